package drivers

import (
	"errors"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestCheckLimits: threads, engine contexts and connections beyond what
// the machine can run are refused naming the flag, unless IgnoreLimits.
// Issue 21: --threads 100000 started 1,684 threads and drove the load
// above 600; --concurrency 100000 opened engine contexts without limit.
func TestCheckLimits(t *testing.T) {
	t.Parallel()
	m := Machine{Cores: 2, MemAvailable: 8 << 30, OpenFiles: 1024}
	inproc, remote := Caps{InProcess: true}, Caps{}
	for _, c := range []struct {
		name    string
		caps    Caps
		threads int
		workers int
		want    string // "" = accepted
	}{
		{"defaults", inproc, 1, 1, ""},
		{"one thread per core", inproc, 2, 1, ""},
		{"twice the cores in contexts", inproc, 1, 4, ""},
		{"two contexts of two threads", inproc, 2, 2, ""},
		{"threads beyond cores", inproc, 100000, 1, "--threads: 100000 threads per engine, but this machine has 2 cores"},
		{"contexts beyond twice the cores", inproc, 1, 100000, "--concurrency/--parallel: 100000 engine contexts of 1 threads each would run 100000 threads on 2 cores"},
		{"contexts times threads", inproc, 2, 3, "--concurrency/--parallel: 3 engine contexts of 2 threads"},
		{"remote requests", remote, 1, 900, ""},
		{"remote beyond open files", remote, 1, 100000, "--concurrency/--parallel: 100000 requests in flight need as many connections, but this process may open 1024 files"},
		{"threads do not matter remotely", remote, 64, 1, ""},
	} {
		err := CheckLimits(c.caps, Common{Threads: c.threads, Workers: c.workers, Machine: m})
		var le *LimitError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.want != "" && (!errors.As(err, &le) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--ignore-limits")):
			t.Errorf("%s: %v, want a *LimitError %q", c.name, err, c.want)
		}
		if err := CheckLimits(c.caps, Common{Threads: c.threads, Workers: c.workers, Machine: m, IgnoreLimits: true}); err != nil {
			t.Errorf("%s with IgnoreLimits: %v", c.name, err)
		}
	}
	if err := CheckLimits(Caps{InProcess: true}, Common{Threads: 100000, Workers: 100000}); err != nil {
		t.Errorf("unknown machine: %v, want nothing checked", err)
	}
}

// TestGGUFLimits: a context longer than the model's trained context, and
// contexts whose key-value caches exceed the available memory, are refused
// from the GGUF header before llama.cpp loads anything. Issue 21:
// --ctx-size 100000000 grew memory by 35 MB/s.
func TestGGUFLimits(t *testing.T) {
	t.Parallel()
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf") // trained on 2048; 5 layers, 4 kv heads of 8
	shape, err := readGGUFShape(model)
	if err != nil {
		t.Fatal(err)
	}
	if shape.trainedContext != 2048 || shape.kvBytesPerTok != 5*(8+8)*4*2 {
		t.Fatalf("shape = %+v, want trained 2048 and %d bytes a token", shape, 5*(8+8)*4*2)
	}
	f := &llamacppFlags{}
	check := func(ctx, workers int, mem int64, ignore bool, want string) {
		t.Helper()
		f.ContextSize = ctx
		err := f.Validate(Common{Model: model, Workers: workers, Machine: Machine{MemAvailable: mem}, IgnoreLimits: ignore})
		var le *LimitError
		if want == "" && err != nil || want != "" && (!errors.As(err, &le) || !strings.Contains(err.Error(), want)) {
			t.Errorf("ctx %d, %d workers, %d bytes: %v, want %q", ctx, workers, mem, err, want)
		}
	}
	check(0, 1, 8<<30, false, "")
	check(2048, 1, 8<<30, false, "")
	check(100000000, 1, 8<<30, false, "--ctx-size: 100000000 tokens, but the model was trained on contexts of 2048")
	check(100000000, 1, 8<<30, true, "")
	// 1000 contexts of 2048 tokens × 640 bytes = 1.2 GiB of caches.
	check(2048, 1000, 1<<30, false, "--concurrency/--parallel: 1000 engine contexts of 2048 tokens need at least 1.2 GiB")
	check(2048, 1000, 2<<30, false, "")
	check(0, 1000, 1<<30, false, "1000 engine contexts of 2048 tokens") // 0 = min(4096, trained)
}

// TestLimitsBatchedContext: with llama.cpp's batching the requests in
// flight are sequences of one context, so their number does not multiply
// the engine threads; with --batch off each is a context. --batch on needs
// one thread and no draft model, refused before the model is loaded.
func TestLimitsBatchedContext(t *testing.T) {
	m := Machine{Cores: 2}
	for _, batch := range []string{"on", "off"} {
		f := &llamacppFlags{Batch: batch}
		c := Common{Threads: 1, Workers: 8, Machine: m}
		c.Contexts = f.Contexts(c)
		err := CheckLimits(llamacppDriver().Caps, c)
		if (batch == "on") != (err == nil) {
			t.Errorf("--batch %s, 8 requests of 1 thread on 2 cores: %v", batch, err)
		}
	}
	f := &llamacppFlags{Batch: "on"}
	if err := f.Validate(Common{Model: "m.gguf", Threads: 1, Workers: 8}); err != nil {
		t.Errorf("--batch on, 1 thread: %v", err)
	}
	if err := f.Validate(Common{Model: "m.gguf", Threads: 2, Workers: 8}); err == nil || !strings.Contains(err.Error(), "--batch on needs --threads 1") {
		t.Errorf("--batch on, 2 threads: %v", err)
	}
	f.DraftModel = "d.gguf"
	if err := f.Validate(Common{Model: "m.gguf", Threads: 1, Workers: 8, Speculative: "draft"}); err == nil || !strings.Contains(err.Error(), "--speculative") {
		t.Errorf("--batch on --speculative draft: %v", err)
	}
	f = &llamacppFlags{Batch: "maybe"}
	if err := f.Validate(Common{Model: "m.gguf"}); err == nil || !strings.Contains(err.Error(), `"maybe"`) {
		t.Errorf("--batch maybe: %v", err)
	}
}
