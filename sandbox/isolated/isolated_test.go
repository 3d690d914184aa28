package isolated

import (
	"context"
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
			Candidate: "import math as m\nLIMIT = [1, 2]\ndef f():\n    return LIMIT\n",
			Tests:     "assert f() == LIMIT\nassert m.pi > 3\n"}},
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
