//go:build !nollamacpp

package llamacpp

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/hybridgroup/yzma/pkg/llama"
)

// engine is the process-wide llama.cpp state. The shared libraries can be
// loaded only once per process, so every Runtime shares one engine; opening
// a second Runtime with a different library directory is an error.
var engine struct {
	once    sync.Once
	dir     string
	version string
	err     error
	logs    logRing
}

// loadEngine loads the libraries from dir (once per process), initialises
// the backend and loads every CPU backend variant found in dir, and routes
// llama.cpp's log output into a small ring buffer instead of stderr.
func loadEngine(dir string) (version string, err error) {
	engine.once.Do(func() {
		mark := engine.logs.mark()
		engine.dir = dir
		if err := llama.Load(dir); err != nil {
			engine.err = fmt.Errorf("load llama.cpp libraries from %s: %w", dir, err)
			return
		}
		llama.LogSet(purego.NewCallback(engine.logs.callback))
		llama.BackendInit()
		if err := llama.GGMLBackendLoadAllFromPath(dir); err != nil {
			engine.err = fmt.Errorf("load ggml backends from %s: %w", dir, err)
			return
		}
		if llama.GGMLBackendDeviceCount() == 0 {
			engine.err = fmt.Errorf("load ggml backends from %s: no device available (no libggml-cpu-*.so loaded): %s", dir, engine.logs.since(mark))
			return
		}
		engine.version = readVersion(dir)
	})
	if engine.err != nil {
		return "", engine.err
	}
	if dir != engine.dir {
		return "", fmt.Errorf("load llama.cpp libraries from %s: this process already loaded them from %s", dir, engine.dir)
	}
	return engine.version, nil
}

// logRing keeps the last lines llama.cpp logged so that a failure (a model
// that does not load, a context that cannot be created) can say why. Set
// POCKETEVAL_LLAMA_LOG=1 to also copy every line to stderr.
type logRing struct {
	mu    sync.Mutex
	lines []string // the last logRingSize lines
	total int      // lines ever recorded
	part  strings.Builder
}

const logRingSize = 12

// ggml log levels (ggml.h): NONE 0, DEBUG 1, INFO 2, WARN 3, ERROR 4, CONT 5.
const (
	logLevelWarn = 3
	logLevelCont = 5
)

func (r *logRing) callback(level int32, text *byte, _ uintptr) {
	s := bytePtrToString(text)
	if os.Getenv("POCKETEVAL_LLAMA_LOG") != "" {
		os.Stderr.WriteString(s)
	}
	if level < logLevelWarn && level != logLevelCont {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.part.WriteString(s)
	if !strings.HasSuffix(s, "\n") {
		return
	}
	line := strings.TrimSpace(r.part.String())
	r.part.Reset()
	if line == "" {
		return
	}
	r.lines = append(r.lines, line)
	r.total++
	if len(r.lines) > logRingSize {
		r.lines = r.lines[len(r.lines)-logRingSize:]
	}
}

// mark returns a position in the log for since.
func (r *logRing) mark() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// since returns the warnings and errors logged after mark, joined for an
// error message. Lines from concurrent work may be mixed in.
func (r *logRing) since(mark int) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := min(r.total-mark, len(r.lines))
	if n <= 0 {
		return "llama.cpp logged nothing"
	}
	return "llama.cpp said: " + strings.Join(r.lines[len(r.lines)-n:], "; ")
}

// bytePtrToString copies a NUL-terminated C string.
func bytePtrToString(p *byte) string {
	if p == nil {
		return ""
	}
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
