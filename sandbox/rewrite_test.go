//go:build linux

package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// rewriteCheck loads the assert rewrite of zygote.py (its functions
// located, Compare and rewrite and the names they use, taken from the
// zygote's source) and compares what it makes of each program with what
// a rewrite that walks every node of the tree (ast.walk, the zygote's
// earlier code) makes of it: the trees must dump identically, locations
// included. argv: zygote.py, HumanEval.jsonl.gz, mbpp.jsonl (either may
// be "-": not there).
const rewriteCheck = `
import ast, gzip, json, sys

zsrc = open(sys.argv[1]).read()
zyg = next(n for n in ast.parse(zsrc).body if isinstance(n, ast.FunctionDef) and n.name == "_pe_zygote")
defs, names = {"located", "Compare", "rewrite"}, {"stmt_lists", "Assert"}
picked = []
for n in zyg.body:
    if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name in defs:
        picked.append(n)
        defs.discard(n.name)
    elif isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in n.targets):
        picked.append(n)
        names -= {t.id for t in n.targets if isinstance(t, ast.Name)}
if defs or names:
    sys.exit("zygote.py: not found: %s" % sorted(defs | names))
ns = {"ast": ast, "_isinstance": isinstance, "_type": type, "_len": len}
exec(compile(ast.Module(body=picked, type_ignores=[]), "zygote.py", "exec"), ns)
Compare, rewrite = ns["Compare"], ns["rewrite"]

def rewrite_walk(tree, helper):
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            node.test = Compare(helper).visit(node.test)
    return tree

progs = []
if sys.argv[2] != "-":
    for line in gzip.open(sys.argv[2], "rt"):
        r = json.loads(line)
        progs.append((r["task_id"], r["prompt"] + r["canonical_solution"] + "\n" + r["test"] + "\n" + "check(%s)" % r["entry_point"]))
if sys.argv[3] != "-":
    for line in open(sys.argv[3]):
        r = json.loads(line)
        progs.append(("mbpp/%s" % r["task_id"], r["test_setup_code"] + "\n" + r["code"] + "\n" +
                      "\n".join(r["test_list"] + r["challenge_test_list"]) + "\n"))
progs += [("case/%d" % i, s) for i, s in enumerate(json.loads(sys.stdin.read()))]

checked = skipped = asserts = 0
for name, src in progs:
    try:
        a, b = ast.parse(src), ast.parse(src)
    except SyntaxError:  # an older interpreter's grammar
        skipped += 1
        continue
    asserts += sum(isinstance(n, ast.Assert) for n in ast.walk(a))
    want = ast.dump(rewrite_walk(a, "_pe_cmp_x"), include_attributes=True)
    got = ast.dump(rewrite(b, "_pe_cmp_x"), include_attributes=True)
    if got != want:
        sys.exit("%s: rewrite differs from the walk of every node:\n%s\n--- want\n%s\n--- got\n%s" % (name, src, want, got))
    checked += 1
print("checked %d programs (%d asserts), skipped %d" % (checked, asserts, skipped))
`

// rewriteCases are programs with asserts in every kind of statement list.
var rewriteCases = []string{
	"assert 1 == 1\nassert 1 != 2, 'm'\nassert 1 < 2 == 2\nassert (1 == 1) == True\nassert [x == 1 for x in (1,)] == [True]\n",
	"def f():\n    def g():\n        assert 1 == 1\n        class C:\n            assert 2 != 3\n            def m(self):\n                assert self == self\n        return C\n    return g\n",
	"class A:\n    class B:\n        assert 'x' == 'x', ('msg' == 'msg')\n    assert (lambda a: a == 1)(1) == True\n",
	"for i in range(2):\n    assert i == i\nelse:\n    assert i != -1\nwhile False:\n    assert 0 == 0\nelse:\n    assert 1 == 1\n",
	"if 1 == 1:\n    assert 1 == 1\nelif 2 == 2:\n    assert 2 == 2\nelse:\n    assert 3 == 3\n",
	"try:\n    assert 1 == 1\nexcept ValueError as e:\n    assert e == e\nexcept (TypeError, KeyError):\n    assert 2 == 2\nelse:\n    assert 3 != 4\nfinally:\n    assert 5 == 5\n",
	"with open('/dev/null') as f, open('/dev/null') as g:\n    assert f != g\n    with f:\n        assert 1 == 1\n",
	"async def f():\n    async with a as b:\n        assert b == 1\n    async for x in y:\n        assert x == 2\n    else:\n        assert x != 3\n    assert (await z) == 4\n",
	"match x:\n    case 1:\n        assert x == 1\n    case [a, *rest] if a == 2:\n        assert rest != []\n    case {'k': v}:\n        match v:\n            case _:\n                assert v == v\n",
	"try:\n    pass\nexcept* ValueError:\n    assert 1 == 1\nelse:\n    assert 2 == 2\nfinally:\n    assert 3 == 3\n",
	"def f(x=lambda: 1 == 1):\n    assert x() == (1 == 1)\n    return [y for y in range(3) if y == 1]\nassert f() == [1]\n",
	"if True: assert 1 == 1; assert 2 != 3\nwhile 0: assert 0 == 0\n@d(lambda: 1 == 1)\ndef g(): assert g == g\n",
	"x = 1\n",
	"",
}

// TestRewriteMatchesWalk: the assert rewrite walks statement lists only;
// over every canonical HumanEval program, every MBPP program and the
// cases above it gives exactly the trees (locations included) of a
// rewrite that visits every node.
func TestRewriteMatchesWalk(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	data := sharedtest.Datasets(t)
	he := filepath.Join(data, "humaneval", "HumanEval.jsonl.gz")
	mbpp := filepath.Join(data, "mbpp", "mbpp.jsonl")
	for _, p := range []*string{&he, &mbpp} {
		if _, err := os.Stat(*p); errors.Is(err, os.ErrNotExist) {
			t.Logf("%s not found: checked without it", *p)
			*p = "-"
		}
	}
	dir := t.TempDir()
	zyg := filepath.Join(dir, "zygote.py")
	if err := os.WriteFile(zyg, []byte(zygoteSource), 0o644); err != nil {
		t.Fatal(err)
	}
	cases, err := json.Marshal(rewriteCases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-I", "-B", "-c", rewriteCheck, zyg, he, mbpp)
	cmd.Stdin = strings.NewReader(string(cases))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Log(strings.TrimSpace(string(out)))
	var checked int
	if _, err := fmt.Sscanf(string(out), "checked %d programs", &checked); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if want := 164 + 974; he != "-" && mbpp != "-" && checked < want {
		t.Errorf("%d programs checked, want at least %d", checked, want)
	}
}
