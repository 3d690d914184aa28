package isolated

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

func testExecutor(t *testing.T) *Executor {
	t.Helper()
	pool, _ := codetest.Pool(t)
	return New(pool, 1, sandbox.Limits{CPUTime: 3 * time.Second})
}

// TestProxy checks that programs behave through the proxy as they do in
// one process: results, mutation of arguments and aliasing, exceptions,
// names, and that what cannot cross fails with the reason.
func TestProxy(t *testing.T) {
	ex := testExecutor(t)
	cases := []struct {
		name       string
		p          Program
		want       sandbox.Verdict
		wantReason string
	}{
		{name: "humaneval shape", want: sandbox.Pass, p: Program{
			Candidate: "def poly(xs, x):\n    return 0\ndef add(a, b):\n    return a + b\n",
			Dataset:   "def poly(xs, x):\n    return sum(c * x ** i for i, c in enumerate(xs))\ndef add(a, b):\n    \"\"\"stub\"\"\"\n",
			Tests:     "def check(candidate):\n    assert candidate(2, 3) == 5\n    assert poly([1, 1], 2) == 3\n    assert candidate.__name__ == 'add'\ncheck(add)\n",
			Proxy:     []string{"add"}}},
		{name: "plain types round trip", want: sandbox.Pass, p: Program{
			Candidate: "def f(x):\n    return x\n",
			Tests: `vals = [None, True, False, 0, -1, 2**300, -2**300, 1.5, -0.0, float('inf'), 1e-310, 3+4j, 'h\u00e9\ud800llo', b'\x00\xff',
        [1, [2, [3]]], (1, (2,)), {'a': 1, (1, 2): [3]}, {1, 2, (3, 4)}, frozenset({1}), (), [], {}, set()]
for v in vals:
    r = f(v)
    assert type(r) is type(v), (v, r)
    assert r == v, (v, r)
import math
assert math.isnan(f(float('nan')))
assert str(f(-0.0)) == '-0.0'
`}},
		{name: "floats, bools and big ints keep their meaning", want: sandbox.Pass, p: Program{
			Candidate: "def f(x):\n    return x\ndef nan():\n    return float('nan')\ndef big(n):\n    return 10 ** n\n",
			Tests: `import math
r = f(float('nan'))
assert type(r) is float and r != r
n = nan()
assert [n] != [float('nan')] and not (n == n)
assert math.copysign(1.0, f(-0.0)) == -1.0 and f(-0.0) == 0.0
assert f(float('inf')) == float('inf') and f(float('-inf')) < -1e308
assert f(True) is True and f(1) is not True and type(f(1)) is int and type(f(True)) is bool
assert f([1, True, 1.0]) == [1, 1, 1] and [type(v) for v in f([1, True, 1.0])] == [int, bool, float]
assert type(f((1, 2))) is tuple and f((1, 2)) != [1, 2] and type(f([1, 2])) is list
assert big(5000) == 10 ** 5000 and big(5000) % 7 == pow(10, 5000, 7)
assert f(2 ** 64 + 1) == 18446744073709551617 and f(-(2 ** 100)) == -(2 ** 100)
`}},
		{name: "an int too big to cross", want: sandbox.Fail, wantReason: "CandidateProtocolError", p: Program{
			Candidate: "def big():\n    return 1 << (1 << 21)\n", Tests: "assert big() > 0\n"}},
		{name: "standard library value types", want: sandbox.Pass, p: Program{
			Candidate: "def f(x):\n    return x\n",
			Tests: `import collections, fractions, decimal
vals = [collections.Counter('abca'), collections.OrderedDict([(2, 'b'), (1, 'a')]), collections.defaultdict(list, {1: [2]}),
        collections.deque([1, 2, 3], maxlen=5), fractions.Fraction(-3, 4), decimal.Decimal('-1.50E+3')]
for v in vals:
    r = f(v)
    assert type(r) is type(v) and r == v, (v, r)
assert f(collections.defaultdict(int)).default_factory is int
assert f(collections.deque([1], maxlen=2)).maxlen == 2
`}},
		{name: "fraction and decimal from code that imports them, tests that do not", want: sandbox.Pass, p: Program{
			Candidate: "import fractions, decimal\ndef f():\n    return [fractions.Fraction(1, 3), decimal.Decimal('2.50')]\ndef g(x):\n    return x * 2\n",
			Tests: `r = f()
assert [type(v).__name__ for v in r] == ['Fraction', 'Decimal'] and [str(v) for v in r] == ['1/3', '2.50'], r
assert g(r) == r + r and type(g(r[0])).__module__ == 'fractions' and str(g(r[1])) == '5.00'
`}},
		{name: "standard library containers written back", want: sandbox.Pass, p: Program{
			Candidate: "def f(c, q, o):\n    c['z'] += 5\n    q.appendleft(0)\n    o.move_to_end(1)\n    return c.most_common(1)\n",
			Tests: `import collections
c, q, o = collections.Counter('ab'), collections.deque([1, 2]), collections.OrderedDict([(1, 'a'), (2, 'b')])
assert f(c, q, o) == [('z', 5)]
assert type(c) is collections.Counter and c == collections.Counter({'z': 5, 'a': 1, 'b': 1})
assert list(q) == [0, 1, 2]
assert list(o) == [2, 1]
`}},
		{name: "defaultdict with a lambda factory", want: sandbox.Fail, wantReason: "default_factory", p: Program{
			Candidate: "import collections\ndef f():\n    return collections.defaultdict(lambda: 1)\n", Tests: "assert f() == {}\n"}},
		{name: "mutation written back", want: sandbox.Pass, p: Program{
			Candidate: "def f(xs, d, s):\n    xs.sort(); xs.append([9])\n    d['k'] = xs\n    s.add(3)\n    return xs\n",
			Tests: `xs, d, s = [3, 1, 2], {}, {1}
r = f(xs, d, s)
assert xs == [1, 2, 3, [9]]
assert r is xs
assert d['k'] is xs
assert s == {1, 3}
`}},
		{name: "aliasing kept", want: sandbox.Pass, p: Program{
			Candidate: "def f(a, b):\n    a.append(1)\n    return a is b\n",
			Tests:     "x = []\nassert f(x, x) is True\nassert x == [1]\ny = [x, x]\nr = f(y, [])\nassert r is False and y[0] is y[1] is x\n",
		}},
		{name: "cycle", want: sandbox.Pass, p: Program{
			Candidate: "def f(a):\n    a.append(a)\n    return len(a)\n",
			Tests:     "x = [1]\nassert f(x) == 2\nassert x[1] is x\n",
		}},
		{name: "exception of the same builtin type", want: sandbox.Pass, p: Program{
			Candidate: "class MyError(ValueError):\n    pass\ndef f(x):\n    if x < 0:\n        raise MyError('negative')\n    return {}[x]\n",
			Tests: `try:
    f(-1)
except ValueError as e:
    assert 'MyError' in str(e) and 'negative' in str(e), str(e)
else:
    raise AssertionError('no exception')
try:
    f(1)
except KeyError:
    pass
else:
    raise AssertionError('no KeyError')
`}},
		{name: "wrong answer fails", want: sandbox.Fail, wantReason: "AssertionError", p: Program{
			Candidate: "def f(x):\n    return x + 1\n", Tests: "assert f(1) == 3\n"}},
		{name: "load error", want: sandbox.Fail, wantReason: "NameError", p: Program{
			Candidate: "undefined_name\ndef f(x):\n    return x\n", Tests: "assert f(1) == 1\n"}},
		{name: "syntax error", want: sandbox.Fail, wantReason: "SyntaxError", p: Program{
			Candidate: "def f(x:\n", Tests: "assert f(1) == 1\n"}},
		{name: "missing function", want: sandbox.Fail, wantReason: "NameError", p: Program{
			Candidate: "def g(x):\n    return x\n", Tests: "assert f(1) == 1\n"}},
		{name: "builtin name under test", want: sandbox.Pass, p: Program{
			Candidate: "def sum(a, b):\n    return a * b\n", Tests: "assert sum(2, 5) == 10\nassert len([1]) == 1\n", Proxy: []string{"sum"}}},
		{name: "builtins stay the tests' own", want: sandbox.Fail, wantReason: "AssertionError", p: Program{
			Candidate: "def abs(x):\n    return 0\ndef f(x):\n    return x\n", Tests: "assert abs(f(-3)) == 0\n"}},
		{name: "dataset helpers stay the tests' own", want: sandbox.Fail, wantReason: "AssertionError", p: Program{
			Candidate: "def encode(s):\n    return s\ndef decode(s):\n    return s\n",
			Dataset:   "def encode(s):\n    return s[::-1]\ndef decode(s):\n    pass\n",
			Tests:     "assert decode(encode('abc')) == 'abc'\n", Proxy: []string{"decode"}}},
		{name: "names: plain value and stdlib module", want: sandbox.Pass, p: Program{
			Candidate: "import math, os.path\nLIMIT = [1, 2]\ndef f():\n    return LIMIT\n",
			Tests:     "assert f() == LIMIT\nassert math.pi > 3\n"}},
		{name: "names: a module the tests do not name", want: sandbox.Fail, wantReason: "NotPlainData: m is the module this of the candidate's code", p: Program{
			Candidate: "import this as m\n", Tests: "assert m.s\n"}},
		{name: "generator result", want: sandbox.Fail, wantReason: "NotPlainData: result of f(...) is not plain data: generator", p: Program{
			Candidate: "def f(n):\n    return (i for i in range(n))\n", Tests: "assert list(f(3)) == [0, 1, 2]\n"}},
		{name: "object of the candidate's class", want: sandbox.Fail, wantReason: "NotPlainData", p: Program{
			Candidate: "class Node:\n    def __init__(self, v):\n        self.v = v\ndef f(n):\n    return n.v\n",
			Dataset:   "root = Node(1)\n", Tests: "assert f(root) == 1\n"}},
		{name: "subclass result", want: sandbox.Fail, wantReason: "subclass of list", p: Program{
			Candidate: "class L(list):\n    pass\ndef f():\n    return L([1])\n", Tests: "assert f() == [1]\n"}},
		{name: "argument not plain data", want: sandbox.Fail, wantReason: "argument of f(...) is not plain data", p: Program{
			Candidate: "def f(g):\n    return g(1)\n", Tests: "assert f(lambda x: x) == 1\n"}},
		{name: "isolation failure cannot be swallowed", want: sandbox.Fail, wantReason: "NotPlainData", p: Program{
			Candidate: "def f():\n    return iter([])\n", Tests: "try:\n    f()\nexcept BaseException:\n    pass\n"}},
		{name: "exit inside a call", want: sandbox.Fail, wantReason: "CandidateExited", p: Program{
			Candidate: "import os\ndef f():\n    os._exit(0)\n", Tests: "assert f() is None\n"}},
		{name: "sys.exit inside a call", want: sandbox.Fail, wantReason: "SystemExit", p: Program{
			Candidate: "import sys\ndef f():\n    sys.exit(0)\n", Tests: "f()\n"}},
		{name: "cpu spin inside a call", want: sandbox.Timeout, wantReason: "candidate: cpu time limit", p: Program{
			Candidate: "def f():\n    while True:\n        pass\n", Tests: "f()\n", Limits: sandbox.Limits{CPUTime: time.Second}}},
		{name: "sleep inside a call", want: sandbox.Timeout, wantReason: "idle", p: Program{
			Candidate: "import time\ndef f():\n    time.sleep(100)\n", Tests: "f()\n", Limits: sandbox.Limits{CPUTime: time.Second}}},
		{name: "sleep while loading", want: sandbox.Timeout, wantReason: "idle", p: Program{
			Candidate: "import time\ntime.sleep(100)\ndef f():\n    pass\n", Tests: "f()\n", Limits: sandbox.Limits{CPUTime: time.Second}}},
		{name: "output flood inside a call", want: sandbox.Error, wantReason: "candidate: output cap", p: Program{
			Candidate: "import os\ndef f():\n    while True:\n        os.write(1, b'x' * 65536)\n", Tests: "f()\n", Limits: sandbox.Limits{OutputBytes: 1 << 20}}},
		{name: "many calls", want: sandbox.Pass, p: Program{
			Candidate: "def add(a, b):\n    return a + b\n", Tests: "import random\nfor i in range(500):\n    x, y = random.randint(0, 99), random.randint(0, 99)\n    assert add(x, y) == x + y\n"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.p.Exec = sandbox.ExecHarness
			r, err := ex.RunIsolated(context.Background(), c.p)
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != c.want || !strings.Contains(r.Reason, c.wantReason) {
				t.Errorf("verdict %s (%s), want %s (%s)\nstderr:\n%s", r.Verdict, r.Reason, c.want, c.wantReason, r.Stderr)
			}
		})
	}
}

// hostileServer is candidate code that takes over the candidate process's
// side of the protocol: it answers the names request, then sends REPLY
// (raw JSON) or RAW (raw bytes) as the reply to the first call.
const hostileServer = `import json, os
def _frame(b):
    os.write(6, len(b).to_bytes(4, "big") + b)
def _read():
    n = int.from_bytes(os.read(5, 4), "big")
    return json.loads(os.read(5, n))
_frame(b'{"ready": true}')
_req = _read()
_frame(json.dumps({"names": [[n, "callable", 0] for n in _req["names"]]}).encode())
_read()
RAW = None
REPLY = None
`

// TestHostileReplies: whatever the candidate process sends, the tests'
// process builds nothing but plain data from it, and every malformed,
// oversized or inconsistent reply fails the program.
func TestHostileReplies(t *testing.T) {
	ex := testExecutor(t)
	cases := []struct {
		name, reply string
		want        string
	}{
		{"an honest reply passes", `{"ok": ["i", "1"], "upd": []}`, ""},
		{"untagged number", `{"ok": 1, "upd": []}`, "CandidateProtocolError"},
		{"a JSON constant", `{"ok": NaN, "upd": []}`, "CandidateProtocolError"},
		{"unknown tag", `{"ok": ["x", 1], "upd": []}`, "CandidateProtocolError"},
		{"new container with the caller's numbering", `{"ok": ["l", 1, []], "upd": []}`, "CandidateProtocolError"},
		{"reference to an unknown container", `{"ok": ["r", -7], "upd": []}`, "CandidateProtocolError"},
		{"container defined twice", `{"ok": ["t", [["l", -1, []], ["l", -1, []]]], "upd": []}`, "CandidateProtocolError"},
		{"update of a container never sent", `{"ok": ["i", "1"], "upd": [["l", 3, []]]}`, "CandidateProtocolError"},
		{"int too long", `{"ok": ["i", "` + strings.Repeat("f", 300000) + `"], "upd": []}`, "CandidateProtocolError"},
		{"int not hex", `{"ok": ["i", "12z"], "upd": []}`, "CandidateProtocolError"},
		{"unhashable set item", `{"ok": ["s", -1, [["l", -2, []]]], "upd": []}`, "CandidateProtocolError"},
		{"nested too deep", `{"ok": ` + strings.Repeat(`["t", [`, 150) + `null` + strings.Repeat(`]]`, 150) + `, "upd": []}`, "NotPlainData"},
		{"JSON nested past the parser", `{"ok": ` + strings.Repeat(`[`, 100000) + strings.Repeat(`]`, 100000) + `}`, "CandidateProtocolError"},
		{"no result", `{"upd": []}`, "CandidateProtocolError"},
		{"fraction over zero", `{"ok": ["Q", "1", "0"], "upd": []}`, "CandidateProtocolError"},
		{"defaultdict of an arbitrary factory", `{"ok": ["y", -1, "eval", []], "upd": []}`, "CandidateProtocolError"},
		{"exception of a made-up type", `{"raise": ["Pass", "NotAnException", "x"], "upd": []}`, "Exception"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			cand := hostileServer + "_frame(" + strconvQuote(c.reply) + ".encode())\nos.read(5, 1)\n"
			r, err := ex.RunIsolated(context.Background(), Program{Candidate: cand, Tests: "assert f(1) == 1\n", Exec: sandbox.ExecHarness})
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				if r.Verdict != sandbox.Pass {
					t.Errorf("verdict %s (%s), want pass\n%s", r.Verdict, r.Reason, r.Stderr)
				}
				return
			}
			if r.Verdict == sandbox.Pass || !strings.Contains(r.Reason, c.want) {
				t.Errorf("verdict %s (%s), want a failure with %s\n%s", r.Verdict, r.Reason, c.want, r.Stderr)
			}
		})
	}
	t.Run("frame past the size limit", func(t *testing.T) {
		t.Parallel()
		cand := hostileServer + "os.write(6, (1 << 31).to_bytes(4, 'big'))\nos.read(5, 1)\n"
		r, err := ex.RunIsolated(context.Background(), Program{Candidate: cand, Tests: "assert f(1) == 1\n", Exec: sandbox.ExecHarness})
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict == sandbox.Pass || !strings.Contains(r.Reason, "CandidateProtocolError: frame of 2147483648 bytes") {
			t.Errorf("verdict %s (%s)", r.Verdict, r.Reason)
		}
	})
}

// strconvQuote quotes s as a Python bytes-free string literal.
func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestCombine: the tests' process decides; the candidate's own limits
// make it worse only when the candidate process ended by itself.
func TestCombine(t *testing.T) {
	res := func(v sandbox.Verdict, reason string) sandbox.Result {
		return sandbox.Result{Verdict: v, Reason: reason}
	}
	check := func(tr, cr sandbox.Result, ended bool, want sandbox.Verdict, reason string) {
		t.Helper()
		got := combine(tr, cr, ended)
		if got.Verdict != want || !strings.Contains(got.Reason, reason) {
			t.Errorf("combine(%v, %v, %v) = %s (%s), want %s (%s)", tr, cr, ended, got.Verdict, got.Reason, want, reason)
		}
	}
	check(res(sandbox.Pass, ""), res(sandbox.Pass, ""), true, sandbox.Pass, "")
	check(res(sandbox.Pass, ""), res(sandbox.Fail, "exited before the end"), true, sandbox.Pass, "")
	check(res(sandbox.Fail, "AssertionError"), res(sandbox.Pass, ""), true, sandbox.Fail, "AssertionError")
	check(res(sandbox.Fail, "CandidateExited"), res(sandbox.Timeout, "cpu time limit 3s exceeded"), true, sandbox.Timeout, "candidate: cpu time limit")
	check(res(sandbox.Fail, "CandidateExited"), res(sandbox.Error, "output cap exceeded"), true, sandbox.Error, "candidate: output cap")
	check(res(sandbox.Fail, "AssertionError"), res(sandbox.Error, "cancelled"), false, sandbox.Fail, "AssertionError")
	check(res(sandbox.Timeout, "harness timer 3s exceeded"), res(sandbox.Error, "cancelled"), false, sandbox.Timeout, "tests: harness timer")
	check(res(sandbox.Fail, "CandidateTimeout"), res(sandbox.Fail, ""), true, sandbox.Timeout, "CandidateTimeout")
	tr := res(sandbox.Fail, "NotPlainData")
	tr.Stderr = "Traceback ...\nNotPlainData: result of f(...) is not plain data: generator\n"
	check(tr, res(sandbox.Pass, ""), true, sandbox.Fail, "NotPlainData: result of f(...) is not plain data: generator")
}

// TestLimits: each process gets the CPU limit; only wall-clock guards
// bound the waiting, and the candidate's idle limit moves into its calls.
func TestLimits(t *testing.T) {
	e := New(nil, 1, sandbox.Limits{CPUTime: 3 * time.Second})
	tests, cand, idle := e.limits(sandbox.Limits{})
	if tests.CPUTime != 3*time.Second || cand.CPUTime != 3*time.Second || idle != 3*time.Second {
		t.Errorf("defaults: tests %+v cand %+v idle %s", tests, cand, idle)
	}
	if tests.Wall != time.Minute || tests.Idle != tests.Wall || cand.Wall <= tests.Wall || cand.Idle < cand.Wall {
		t.Errorf("guards: tests %+v cand %+v", tests, cand)
	}
	tests, cand, idle = e.limits(sandbox.Limits{CPUTime: 10 * time.Second, Idle: 2 * time.Second})
	if idle != 2*time.Second || tests.Wall != 200*time.Second || cand.CPUTime != 10*time.Second {
		t.Errorf("own limits: tests %+v cand %+v idle %s", tests, cand, idle)
	}
	tests, cand, idle = e.limits(sandbox.Limits{Alarm: 3 * time.Second, CPUTime: 4 * time.Second})
	if idle != 0 || tests.Alarm != 3*time.Second || cand.Alarm != 0 || tests.Wall != 4*time.Second || cand.Wall <= tests.Wall {
		t.Errorf("harness timer: tests %+v cand %+v idle %s", tests, cand, idle)
	}
}

// anonymous hides the pool's interpreter and zygote modules, so the
// Executor sends the two sides' code as source.
type anonymous struct{ sandbox.Executor }

// named hides the pool's zygote modules but names its interpreter, so the
// Executor sends the two sides' code compiled.
type named struct{ *sandbox.Pool }

func (n named) HasZygoteModule(string) bool { return false }

// TestPreludes: programs behave the same whether the two sides' code is
// the module the pool's zygotes hold, sent compiled (an executor that
// names its interpreter) or sent as source (one that does not).
func TestPreludes(t *testing.T) {
	pool, _ := codetest.Pool(t)
	if !pool.HasZygoteModule(zygoteModule) {
		t.Fatal("the pool's zygotes do not hold the isolated mode's module")
	}
	for _, c := range []struct {
		name string
		ex   *Executor
		want func(preludes) bool
	}{
		{"zygote module", New(pool, 1, sandbox.Limits{CPUTime: 3 * time.Second}), func(p preludes) bool { return p == modulePreludes }},
		{"compiled", New(named{pool}, 1, sandbox.Limits{CPUTime: 3 * time.Second}), func(p preludes) bool {
			return strings.Contains(p.trusted, "marshal") && strings.HasSuffix(p.trusted, "_pe_trusted") && strings.HasSuffix(p.candidate, "_pe_candidate")
		}},
		{"source", New(anonymous{pool}, 1, sandbox.Limits{CPUTime: 3 * time.Second}), func(p preludes) bool { return p == sourcePreludes }},
	} {
		t.Run(c.name, func(t *testing.T) {
			if pre := c.ex.programPreludes(); !c.want(pre) {
				t.Fatalf("preludes %.200q", pre.trusted)
			}
			for _, tc := range []struct {
				tests string
				want  sandbox.Verdict
			}{{"assert f([3, 1]) == [1, 3]\n", sandbox.Pass}, {"assert f([3, 1]) == [3, 1]\n", sandbox.Fail}} {
				r, err := c.ex.RunIsolated(context.Background(), Program{Candidate: "def f(xs):\n    return sorted(xs)\n", Tests: tc.tests, Exec: sandbox.ExecHarness})
				if err != nil {
					t.Fatal(err)
				}
				if r.Verdict != tc.want {
					t.Errorf("%q: %s (%s), want %s\n%s", tc.tests, r.Verdict, r.Reason, tc.want, r.Stderr)
				}
			}
		})
	}
}
