// Package isolated provides the isolated verdict mode: a code benchmark's
// program runs in two sandboxed processes, so that the program under test
// never shares an interpreter with the tests that judge it.
//
// The trusted process holds the benchmark's tests (HumanEval's check, MBPP's
// asserts), their expected values and the run-to-completion proof; the
// candidate process holds the model's code alone. In the tests, every name
// taken from the model's code (the function under test) is a proxy: its
// arguments go to the candidate process as plain data (None, bool, int,
// float, complex, str, bytes, list, tuple, dict, set, frozenset — exact
// types, bounded size and depth), the result comes back the same way, the
// candidate's changes to its arguments are written back into the tests'
// own objects, and its exceptions are raised again as the builtin exception
// of the same name. Anything else (a generator, an object of the model's
// own class, a value with a lying __eq__) fails the program with the reason.
// The verdict is the trusted process's alone; the candidate process can
// only make it worse (a timeout, the output cap, a crash during a call).
//
// In the official mode the program runs as one process, as the official
// harnesses run it; a program sharing the interpreter with its tests can
// forge a pass (docs/sandbox.md lists how). The isolated mode closes that,
// at the price of programs that cannot work through a proxy (functions
// returning generators or objects; tests that build objects of the model's
// classes), which it fails.
//
// The package does not build processes itself: it runs both through a
// sandbox.Executor that passes Program.ExtraFiles (sandbox.Pool does).
package isolated

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/pocketeval/pocketeval/sandbox"
)

var (
	//go:embed codec.py
	codecSource string
	//go:embed trusted.py
	trustedSource string
	//go:embed candidate.py
	candidateSource string
	//go:embed preload.py
	preloadSource string
)

// zygoteModule is the name under which every sandbox zygote holds the two
// sides' code (codec.py, trusted.py, candidate.py and preload.py), loaded
// and warmed once per worker instead of once per program.
const zygoteModule = "_pocketeval_isolated"

func init() {
	sandbox.RegisterZygoteModule(zygoteModule,
		codecSource+"\n\n"+trustedSource+"\n\n"+candidateSource+"\n\n"+preloadSource)
}

// Program is one problem's program, split at the trust boundary.
type Program struct {
	// Candidate is the model's code with what it builds on, run alone in
	// the candidate process: HumanEval's prompt + completion, MBPP's code.
	Candidate string
	// Dataset is the benchmark's own code the tests need, run in the
	// trusted process before them: HumanEval's prompt (so check uses the
	// prompt's helpers, e.g. poly, not the model's), MBPP's test imports
	// or set-up code.
	Dataset string
	// Tests are the benchmark's tests: HumanEval's test +
	// "\ncheck(entry_point)", MBPP's asserts, one per line.
	Tests string
	// Proxy lists names bound to the candidate's definitions even though
	// Dataset defines them (HumanEval's prompt has a stub of the function
	// under test) or they are builtins (MBPP 126 tests a function called
	// sum). Other names are taken from the candidate only when neither
	// Dataset nor Tests define them and they are not builtins.
	Proxy []string
	// Exec says how both processes run their code (the program's own
	// semantics: sandbox.ExecHarness for the official harnesses').
	Exec sandbox.Exec
	// Limits bound the program as in the official mode: the CPU time of
	// each process, the idle time of the candidate inside a call (and of
	// the tests outside calls, by the wall-clock guard), the harness timer
	// over the tests, memory and output per process. Zero fields take the
	// Executor's defaults.
	Limits sandbox.Limits
}

// Descriptors of the two pipes in both processes (sandbox.Program's
// ExtraFiles start at 5).
const (
	fdIn  = 5
	fdOut = 6
)

// Failure reasons of the trusted process that are about the candidate:
// the exception types trusted.py and codec.py raise.
var isolationErrors = map[string]bool{
	"NotPlainData": true, "CandidateExited": true, "CandidateTimeout": true, "CandidateProtocolError": true,
}

// Executor runs isolated programs through a sandbox.Executor. It also
// runs ordinary programs (Run), so it can stand in for the executor it
// wraps. It is safe for concurrent use.
type Executor struct {
	ex    sandbox.Executor
	pairs chan struct{}
	def   sandbox.Limits
	// grace is how long the candidate process may take to end by itself
	// once the tests are done, before it is stopped.
	grace time.Duration

	compileOnce sync.Once
	preludes    preludes
}

// preludes are the Python texts each side's program starts with, up to
// the function it calls with (globals(), cfg): the two sides' code
// (codec.py with trusted.py, codec.py with candidate.py) as source, or
// the same compiled once by the pool's interpreter and loaded with
// marshal, which spares every program the parse and compile of some 600
// lines, then the function's name; or, when the pool's zygotes hold that
// code (zygoteModule), just the function of the module.
type preludes struct{ trusted, candidate string }

var sourcePreludes = preludes{
	trusted:   codecSource + "\n\n" + trustedSource + "\n\n_pe_trusted",
	candidate: codecSource + "\n\n" + candidateSource + "\n\n_pe_candidate",
}

// compileScript compiles the two texts read as JSON from stdin and writes
// their marshalled code objects, base64, one per line.
const compileScript = `import base64, json, marshal, sys
for src in json.load(sys.stdin):
    print(base64.b64encode(marshal.dumps(compile(src, "<pocketeval-isolated>", "exec", dont_inherit=True))).decode())
`

// compiledPreludes compiles the preludes with python (the interpreter
// that runs the programs: marshal's format is the interpreter version's).
func compiledPreludes(python string) (preludes, error) {
	in, err := json.Marshal([]string{codecSource + "\n\n" + trustedSource, codecSource + "\n\n" + candidateSource})
	if err != nil {
		return preludes{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-B", "-c", compileScript)
	cmd.Stdin = bytes.NewReader(in)
	cmd.Env = []string{"LANG=C.UTF-8"}
	out, err := cmd.Output()
	if err != nil {
		return preludes{}, fmt.Errorf("compile the isolated mode's code with %s: %w", python, err)
	}
	lines := strings.Fields(string(out))
	if len(lines) != 2 {
		return preludes{}, fmt.Errorf("compile the isolated mode's code with %s: %d lines of output", python, len(lines))
	}
	load := func(b64, fn string) string {
		return "import marshal as _pe_m, binascii as _pe_b\nexec(_pe_m.loads(_pe_b.a2b_base64(\"" + b64 + "\")))\ndel _pe_m, _pe_b\n\n\n" + fn
	}
	return preludes{trusted: load(lines[0], "_pe_trusted"), candidate: load(lines[1], "_pe_candidate")}, nil
}

// modulePreludes are the preludes of a pool whose zygotes hold the two
// sides' code: the program calls it.
var modulePreludes = preludes{
	trusted:   "__import__(\"sys\").modules[\"" + zygoteModule + "\"].trusted",
	candidate: "__import__(\"sys\").modules[\"" + zygoteModule + "\"].candidate",
}

// moduleHolder is an executor whose processes may inherit a module from
// their zygote (sandbox.Pool).
type moduleHolder interface {
	HasZygoteModule(name string) bool
}

// programPreludes returns the preludes to use: the module the wrapped
// executor's zygotes hold when they hold it; else compiled by the wrapped
// executor's interpreter when it names one; else the source (the same
// programs, slower to start).
func (e *Executor) programPreludes() preludes {
	e.compileOnce.Do(func() {
		e.preludes = sourcePreludes
		if h, ok := e.ex.(moduleHolder); ok && h.HasZygoteModule(zygoteModule) {
			e.preludes = modulePreludes
			return
		}
		if py, _ := e.Python(); py != "" {
			if p, err := compiledPreludes(py); err == nil {
				e.preludes = p
			}
		}
	})
	return e.preludes
}

var _ sandbox.Executor = (*Executor)(nil)

// New returns an Executor running at most pairs isolated programs at once
// through ex, which must be able to run 2×pairs programs at once (a
// sandbox.Pool with at least 2×pairs workers): each isolated program holds
// two of them for its whole run. defaults fill the zero limits of programs
// (zero fields: sandbox.DefaultLimits).
func New(ex sandbox.Executor, pairs int, defaults sandbox.Limits) *Executor {
	pairs = max(pairs, 1)
	return &Executor{ex: ex, pairs: make(chan struct{}, pairs), def: defaults, grace: 5 * time.Second}
}

// pythonReporter is an executor that knows its interpreter.
type pythonReporter interface {
	Python() (path, version string)
}

// Python reports the interpreter of the wrapped executor when it knows it.
func (e *Executor) Python() (path, version string) {
	if p, ok := e.ex.(pythonReporter); ok {
		return p.Python()
	}
	return "", ""
}

func (e *Executor) acquire(ctx context.Context) error {
	select {
	case e.pairs <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (e *Executor) release() { <-e.pairs }

// Run runs an ordinary (official-mode) program through the wrapped
// executor.
func (e *Executor) Run(ctx context.Context, prog sandbox.Program) (sandbox.Result, error) {
	if err := e.acquire(ctx); err != nil {
		return sandbox.Result{Verdict: sandbox.Error, Reason: "cancelled"}, err
	}
	defer e.release()
	return e.ex.Run(ctx, prog)
}

// limits derives the two processes' limits from the program's: each
// process gets the CPU limit; the tests' process waits for the candidate
// during calls, so only the wall-clock guard bounds its idle time; the
// candidate process waits for the tests between calls, so its own
// watchdog applies the idle limit inside calls only, and its wall-clock
// guard is a little longer than the tests' (the tests decide).
func (e *Executor) limits(l sandbox.Limits) (tests, cand sandbox.Limits, callIdle time.Duration) {
	def := e.def
	pick := func(v, d, dd time.Duration) time.Duration {
		if v != 0 {
			return v
		}
		if d != 0 {
			return d
		}
		return dd
	}
	cpu := pick(l.CPUTime, def.CPUTime, sandbox.DefaultLimits.CPUTime)
	idle := l.Idle
	if idle == 0 && l.CPUTime == 0 {
		idle = def.Idle
	}
	if idle == 0 {
		idle = cpu
	}
	wall := l.Wall
	switch {
	case wall != 0:
	case l.Alarm > 0:
		wall = l.Alarm + time.Second
	case l.CPUTime == 0 && def.Wall != 0:
		wall = def.Wall
	default:
		wall = max(60*time.Second, 20*cpu)
	}
	tests = sandbox.Limits{CPUTime: cpu, Idle: wall, Wall: wall, Alarm: l.Alarm, MemoryBytes: l.MemoryBytes, OutputBytes: l.OutputBytes}
	cand = sandbox.Limits{CPUTime: cpu, Idle: wall + 5*time.Second, Wall: wall + 5*time.Second, MemoryBytes: l.MemoryBytes, OutputBytes: l.OutputBytes}
	if l.Alarm == 0 {
		// With the harness timer the official mode has no idle limit.
		callIdle = idle
		// A candidate process that stops itself stops its watchdog too:
		// the sandbox ends it at the program's idle limit, as it would the
		// one-process program.
		cand.Stopped = idle
	}
	return tests, cand, callIdle
}

// RunIsolated runs p's tests and its candidate code in two sandboxed
// processes connected by two pipes, and returns the verdict of the tests'
// process, made worse by the candidate's when the candidate process hit a
// limit (timeout, output cap, memory, a killing signal) before the tests
// ended. A non-nil error means a process could not be run to a verdict
// about the program (the context ended, the sandbox failed to set up).
func (e *Executor) RunIsolated(ctx context.Context, p Program) (sandbox.Result, error) {
	if err := e.acquire(ctx); err != nil {
		return sandbox.Result{Verdict: sandbox.Error, Reason: "cancelled"}, err
	}
	defer e.release()
	start := time.Now()
	testLim, candLim, callIdle := e.limits(p.Limits)
	pre := e.programPreludes()
	testSrc, err := trustedProgram(pre.trusted, p)
	if err != nil {
		return sandbox.Result{Verdict: sandbox.Error, Reason: err.Error()}, err
	}
	candSrc, err := candidateProgram(pre.candidate, p, callIdle)
	if err != nil {
		return sandbox.Result{Verdict: sandbox.Error, Reason: err.Error()}, err
	}
	// requests: tests -> candidate; replies: candidate -> tests.
	reqR, reqW, err := os.Pipe()
	if err != nil {
		return sandbox.Result{Verdict: sandbox.Error, Reason: err.Error()}, fmt.Errorf("isolated run: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		reqR.Close()
		reqW.Close()
		return sandbox.Result{Verdict: sandbox.Error, Reason: err.Error()}, fmt.Errorf("isolated run: %w", err)
	}
	var closeCand, closeTests sync.Once
	candFiles := func() { closeCand.Do(func() { reqR.Close(); repW.Close() }) }
	testFiles := func() { closeTests.Do(func() { repR.Close(); reqW.Close() }) }
	defer candFiles()
	defer testFiles()

	cctx, stopCand := context.WithCancel(ctx)
	defer stopCand()
	var (
		cres    sandbox.Result
		cerr    error
		stopped bool // the candidate process was stopped by us, after the tests
		mu      sync.Mutex
	)
	cdone := make(chan struct{})
	go func() {
		defer close(cdone)
		r, err := e.ex.Run(cctx, sandbox.Program{Source: candSrc, Exec: p.Exec, Limits: candLim, ExtraFiles: []*os.File{reqR, repW}, ReleaseExtraFiles: true})
		// The sandbox released this side's copies once the process held
		// its own (so the tests see the end of the replies as soon as the
		// process closes or replaces its descriptor); close them here when
		// it never got that far.
		candFiles()
		mu.Lock()
		cres, cerr = r, err
		mu.Unlock()
	}()
	tres, terr := e.ex.Run(ctx, sandbox.Program{Source: testSrc, Exec: p.Exec, Limits: testLim, ExtraFiles: []*os.File{repR, reqW}, ReleaseExtraFiles: true})
	testFiles() // the candidate process sees the end of the requests
	if terr != nil || tres.Verdict == sandbox.Timeout || tres.Verdict == sandbox.Error {
		// The tests' own limit (or set-up) decided; the candidate may be
		// stuck inside a call.
		stopCand()
	}
	select {
	case <-cdone:
	case <-time.After(e.grace):
		stopCand()
		<-cdone
	}
	mu.Lock()
	defer mu.Unlock()
	if cctx.Err() != nil && ctx.Err() == nil {
		stopped = true
	}
	if err := ctx.Err(); err != nil {
		return sandbox.Result{Verdict: sandbox.Error, Reason: "cancelled", Duration: time.Since(start)}, err
	}
	if terr != nil {
		return tres, fmt.Errorf("isolated run: tests: %w", terr)
	}
	if cerr != nil && !stopped {
		return cres, fmt.Errorf("isolated run: candidate: %w", cerr)
	}
	res := combine(tres, cres, !stopped)
	res.Duration = time.Since(start)
	return res, nil
}

// combine decides the verdict from the tests' process (t) and the
// candidate's (c; ended says it ended by itself rather than being stopped
// after the tests):
//   - the tests' process hit its own limit: its verdict;
//   - the candidate process hit a limit (timeout, or error: output cap,
//     memory, a killing signal) before being stopped: its verdict, as the
//     same limit would have ended the one-process program;
//   - a call slept past the idle limit (CandidateTimeout): timeout;
//   - otherwise the tests' verdict: pass only if they ran to their end.
func combine(t, c sandbox.Result, ended bool) sandbox.Result {
	res := t
	res.Stdout = joinOutput(c.Stdout, t.Stdout, "")
	res.Stderr = joinOutput(t.Stderr, c.Stderr, "\n--- candidate process ---\n")
	res.CPUTime = t.CPUTime + c.CPUTime
	switch {
	case t.Verdict == sandbox.Timeout || t.Verdict == sandbox.Error:
		res.Reason = "tests: " + t.Reason
	case ended && (c.Verdict == sandbox.Timeout || c.Verdict == sandbox.Error):
		res.Verdict, res.Reason = c.Verdict, "candidate: "+c.Reason
		res.ExitCode, res.Signal = c.ExitCode, c.Signal
	case t.Verdict == sandbox.Fail && isolationErrors[t.Reason]:
		why := isolationMessage(t.Stderr, t.Reason)
		if t.Reason == "CandidateTimeout" {
			res.Verdict = sandbox.Timeout
		}
		res.Reason = why
	}
	return res
}

// isolationMessage is the message of the isolation error the tests'
// process raised last ("NotPlainData: result of f(...) is not plain data:
// generator"), from its traceback.
func isolationMessage(stderr, name string) string {
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], name+": ") {
			return lines[i]
		}
	}
	return name
}

func joinOutput(a, b, sep string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	if sep == "" && !strings.HasSuffix(a, "\n") {
		sep = "\n"
	}
	return a + sep + b
}

// TrustedProgram is the source of the tests' process for p.
func TrustedProgram(p Program) (string, error) { return trustedProgram(sourcePreludes.trusted, p) }

func trustedProgram(prelude string, p Program) (string, error) {
	for _, n := range p.Proxy {
		if !isIdentifier(n) {
			return "", fmt.Errorf("isolated program: proxy name %q is not a Python identifier", n)
		}
	}
	cfg := map[string]any{
		"fd_in": fdIn, "fd_out": fdOut, "proxy": append([]string{}, p.Proxy...),
		"trusted": base64.StdEncoding.EncodeToString([]byte(p.Dataset)),
		"tests":   base64.StdEncoding.EncodeToString([]byte(p.Tests)),
	}
	return program(prelude, cfg)
}

// CandidateProgram is the source of the candidate process for p; callIdle
// (zero: none) bounds the time a call may spend sleeping or blocked.
func CandidateProgram(p Program, callIdle time.Duration) (string, error) {
	return candidateProgram(sourcePreludes.candidate, p, callIdle)
}

func candidateProgram(prelude string, p Program, callIdle time.Duration) (string, error) {
	cfg := map[string]any{
		"fd_in": fdIn, "fd_out": fdOut, "idle": callIdle.Seconds(),
		"source": base64.StdEncoding.EncodeToString([]byte(p.Candidate)),
	}
	return program(prelude, cfg)
}

// program is the prelude (ending in the function to call) +
// "(globals(), cfg)", cfg as a Python literal (JSON of ints, floats, ASCII
// strings and lists of them is one).
func program(prelude string, cfg map[string]any) (string, error) {
	js, err := json.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("isolated program: %w", err)
	}
	if strings.ContainsRune(string(js), '\\') {
		// Base64, identifiers and numbers never need escapes; a JSON
		// escape would not mean the same in Python.
		return "", errors.New("isolated program: configuration needs escaping")
	}
	return prelude + "(globals(), " + string(js) + ")\n", nil
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}
