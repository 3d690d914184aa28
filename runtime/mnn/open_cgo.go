//go:build cgo && mnn

package mnn

/*
#cgo CXXFLAGS: -std=c++17 -O2 -I/opt/mnn/include
#cgo LDFLAGS: -L/opt/mnn/lib -Wl,--no-as-needed -lllm -lMNN_Express -lMNN -lstdc++ -lpthread -Wl,-rpath,/opt/mnn/lib
#include <stdlib.h>
#include "mnnshim.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/pocketeval/pocketeval/runtime"
)

// Available reports whether this build includes the MNN engine.
const Available = true

// Version returns the linked MNN library's version.
func Version() string { return C.GoString(C.mnnshim_version()) }

// Open loads the package at path (a directory holding config.json, or the
// config.json file) opts.Workers times. Loading is serial; ctx is checked
// between instances.
func Open(ctx context.Context, path string, opts Options) (*Runtime, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("open mnn %s: %w", path, err)
	}
	pkg, err := ResolvePackage(path)
	if err != nil {
		return nil, err
	}
	cfg, err := opts.engineConfig()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	var engines []engine
	fail := func(err error) (*Runtime, error) {
		for _, e := range engines {
			e.Close()
		}
		return nil, err
	}
	for i := 0; i < opts.Workers; i++ {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		e, err := newCEngine(pkg.Config, cfg)
		if err != nil {
			return fail(fmt.Errorf("open mnn %s: worker %d: %w", pkg.Config, i, err))
		}
		engines = append(engines, e)
	}
	return newRuntime(opts, pkg, Version(), time.Since(start), engines), nil
}

// cEngine is one MNN Llm behind the shim. Every call into the engine,
// from its creation to its destruction, runs on one OS thread that the
// engine keeps for its lifetime (see thread).
type cEngine struct {
	mu sync.Mutex
	h  *C.mnnshim_llm
	th *thread
}

// thread runs functions on one locked OS thread. glibc gives each thread
// that allocates its own malloc arena, and memory freed in one arena is
// not reused by another; when cgo calls of one engine hop between Go's
// threads, the engine's buffers end up spread over several arenas and the
// process's peak memory grows by tens of MiB, differently from run to run.
// On one thread the engine allocates from one arena, as it does in a C++
// program, and its peak is reproducible.
type thread struct {
	calls chan func()
}

func newThread() *thread {
	t := &thread{calls: make(chan func())}
	ready := make(chan struct{})
	var serve func()
	serve = func() {
		goruntime.LockOSThread()
		if isMainThread() {
			// The process's main thread allocates from glibc's main
			// arena, other threads from their own: the engine would
			// measure ~1 % differently depending on where it landed.
			// Hold the main thread until another goroutine has locked a
			// different thread.
			go serve()
			<-ready
			goruntime.UnlockOSThread()
			return
		}
		close(ready)
		// Never unlocked: when the goroutine ends the thread exits with
		// it, and glibc hands its arena to the next new thread.
		for f := range t.calls {
			f()
		}
	}
	go serve()
	return t
}

// do runs f on the thread and waits for it.
func (t *thread) do(f func()) {
	done := make(chan struct{})
	t.calls <- func() { f(); close(done) }
	<-done
}

// stop ends the thread after the calls in progress.
func (t *thread) stop() { close(t.calls) }

func newCEngine(configPath, configJSON string) (*cEngine, error) {
	cp := C.CString(configPath)
	defer C.free(unsafe.Pointer(cp))
	cj := C.CString(configJSON)
	defer C.free(unsafe.Pointer(cj))
	th := newThread()
	var (
		cerr *C.char
		h    *C.mnnshim_llm
	)
	th.do(func() { h = C.mnnshim_create(cp, cj, &cerr) })
	if h == nil {
		th.stop()
		msg := "create failed"
		if cerr != nil {
			msg = C.GoString(cerr)
			C.mnnshim_free(unsafe.Pointer(cerr))
		}
		return nil, errors.New(msg)
	}
	e := &cEngine{h: h, th: th}
	goruntime.SetFinalizer(e, func(e *cEngine) { e.Close() })
	return e, nil
}

func (e *cEngine) lastError(op string) error {
	return fmt.Errorf("%s: %s", op, C.GoString(C.mnnshim_last_error(e.h)))
}

func (e *cEngine) Template(msgs []runtime.Message) (string, error) {
	n := len(msgs)
	roles := C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(uintptr(0))))
	contents := C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(uintptr(0))))
	defer C.free(roles)
	defer C.free(contents)
	rs := unsafe.Slice((**C.char)(roles), n)
	cs := unsafe.Slice((**C.char)(contents), n)
	for i, m := range msgs {
		rs[i] = C.CString(m.Role)
		cs[i] = C.CString(m.Content)
	}
	defer func() {
		for i := range msgs {
			C.free(unsafe.Pointer(rs[i]))
			C.free(unsafe.Pointer(cs[i]))
		}
	}()
	var out *C.char
	e.th.do(func() { out = C.mnnshim_chat_template(e.h, (**C.char)(roles), (**C.char)(contents), C.int(n)) })
	if out == nil {
		return "", errors.New("chat template: out of memory")
	}
	defer C.mnnshim_free(unsafe.Pointer(out))
	return C.GoString(out), nil
}

func (e *cEngine) Tokenize(text string) ([]int, error) {
	ct := C.CString(text) // NUL-terminated copy; the length below is exact
	defer C.free(unsafe.Pointer(ct))
	var (
		ids *C.int
		n   C.int
	)
	e.th.do(func() { n = C.mnnshim_tokenize(e.h, ct, C.int(len(text)), &ids) })
	if n < 0 {
		return nil, e.lastError("tokenize")
	}
	defer C.mnnshim_free(unsafe.Pointer(ids))
	out := make([]int, int(n))
	for i, v := range unsafe.Slice(ids, int(n)) {
		out[i] = int(v)
	}
	return out, nil
}

// cInts copies ids into C memory; free the result with C.free.
func cInts(ids []int) *C.int {
	p := (*C.int)(C.malloc(C.size_t(len(ids)+1) * C.size_t(unsafe.Sizeof(C.int(0)))))
	s := unsafe.Slice(p, len(ids))
	for i, v := range ids {
		s[i] = C.int(v)
	}
	return p
}

func toStats(st *C.mnnshim_stats) stats {
	us := func(v C.int64_t) time.Duration { return time.Duration(v) * time.Microsecond }
	return stats{
		PromptTokens: int(st.prompt_tokens),
		GenTokens:    int(st.gen_tokens),
		Stopped:      st.stopped != 0,
		Load:         us(st.load_us),
		Prefill:      us(st.prefill_us),
		Decode:       us(st.decode_us),
		FirstPiece:   us(st.first_piece_us),
		LastToken:    int(st.last_token),
		CtxLen:       int(st.ctx_len),
		KVLen:        int(st.kv_len),
	}
}

func (e *cEngine) Prefill(ids []int, keep int) (stats, error) {
	p := cInts(ids)
	defer C.free(unsafe.Pointer(p))
	var (
		st C.mnnshim_stats
		rc C.int
	)
	e.th.do(func() { rc = C.mnnshim_prefill(e.h, p, C.int(len(ids)), C.int(keep), &st) })
	if rc != 0 {
		return toStats(&st), e.lastError("prefill")
	}
	return toStats(&st), nil
}

func (e *cEngine) Step() ([][]byte, stats, error) {
	var (
		piece     *C.char
		ids, ends *C.int
		n, rc     C.int
		st        C.mnnshim_stats
		pieces    [][]byte
	)
	e.th.do(func() {
		rc = C.mnnshim_step(e.h, &piece, &ids, &ends, &n, &st)
		if rc != 0 || n == 0 {
			return
		}
		all := C.GoBytes(unsafe.Pointer(piece), unsafe.Slice(ends, int(n))[n-1])
		from := 0
		for _, end := range unsafe.Slice(ends, int(n)) {
			pieces = append(pieces, all[from:int(end):int(end)])
			from = int(end)
		}
	})
	if rc != 0 {
		return nil, toStats(&st), e.lastError("step")
	}
	return pieces, toStats(&st), nil
}

func (e *cEngine) Reset() { e.th.do(func() { C.mnnshim_reset(e.h) }) }

func (e *cEngine) Bench(ids []int, maxNew int) (stats, error) {
	p := cInts(ids)
	defer C.free(unsafe.Pointer(p))
	var (
		st C.mnnshim_stats
		rc C.int
	)
	e.th.do(func() { rc = C.mnnshim_bench(e.h, p, C.int(len(ids)), C.int(maxNew), &st) })
	if rc != 0 {
		return toStats(&st), e.lastError("bench")
	}
	return toStats(&st), nil
}

func (e *cEngine) Loglik(ids []int, start, keep int) (float64, bool, error) {
	p := cInts(ids)
	defer C.free(unsafe.Pointer(p))
	var (
		lp     C.double
		greedy C.int
		rc     C.int
	)
	e.th.do(func() { rc = C.mnnshim_loglik(e.h, p, C.int(len(ids)), C.int(start), C.int(keep), &lp, &greedy) })
	if rc != 0 {
		return 0, false, e.lastError("loglik")
	}
	return float64(lp), greedy != 0, nil
}

func (e *cEngine) Forward(ids []int, keep int) ([]float32, error) {
	p := cInts(ids)
	defer C.free(unsafe.Pointer(p))
	var (
		logits *C.float
		vocab  C.int
		rc     C.int
	)
	e.th.do(func() { rc = C.mnnshim_forward(e.h, p, C.int(len(ids)), C.int(keep), &logits, &vocab) })
	if rc != 0 {
		return nil, e.lastError("forward")
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(logits)), int(vocab)), nil
}

func (e *cEngine) Piece(id int) []byte {
	var (
		piece *C.char
		n     C.int
	)
	e.th.do(func() { C.mnnshim_piece(e.h, C.int(id), &piece, &n) })
	return C.GoBytes(unsafe.Pointer(piece), n)
}

func (e *cEngine) IsStop(id int) bool {
	var r C.int
	e.th.do(func() { r = C.mnnshim_is_stop(e.h, C.int(id)) })
	return r != 0
}

// Close destroys the engine; it is idempotent.
func (e *cEngine) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.h != nil {
		e.th.do(func() { C.mnnshim_destroy(e.h) })
		e.th.stop()
		e.h = nil
		goruntime.SetFinalizer(e, nil)
	}
	return nil
}
