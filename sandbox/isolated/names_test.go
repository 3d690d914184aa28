package isolated

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// namesCheck compares _pe_module_names over the compiler's own tables
// with the same over the symtable module, for every source read as JSON
// from stdin, and prints how many it compared (or where they differ).
const namesCheck = `import json, sys
srcs = json.load(sys.stdin)
n = 0
for src in srcs:
    b = src.encode("utf-8", "surrogateescape")
    try:
        want = _pe_module_names(b, "<t>", raw=False)
    except SyntaxError:
        continue
    got = _pe_module_names(b, "<t>", raw=True)
    if got != want:
        print("differ: %r\n got %r\n want %r" % (src[:300], got, want))
        sys.exit(1)
    n += 1
print(n)
`

// TestModuleNames: the names the tests' process takes from the
// candidate's code are the same whether read from the compiler's own
// symbol tables (CPython 3.11) or through the symtable module, for every
// HumanEval and MBPP prompt, solution and test (and cases of scopes the
// corpus lacks).
func TestModuleNames(t *testing.T) {
	pool, _ := codetest.Pool(t)
	py, version := pool.Python()
	if py == "" || !strings.HasPrefix(version, "3.11") {
		t.Skipf("the raw symbol tables are read on CPython 3.11 only (interpreter %q %s)", py, version)
	}
	srcs := []string{
		"class top:\n    x = 1\n    def f(self): return y\n    print(z, x)\n",
		"global q\ndef g():\n    global w\n    w = 1\n    return [v for v in u]\n",
		"import os.path as p, sys\nfrom m import *\nlambda: k\nclass C:\n    def m(self):\n        nonlocal_ = free_name\n",
		"def f(x):\n    def g():\n        return x + h\n    return g\nf = 1\n",
	}
	data := sharedtest.Datasets(t)
	f, err := os.Open(filepath.Join(data, "humaneval", "HumanEval.jsonl.gz"))
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var p struct{ Prompt, CanonicalSolution, Test, EntryPoint string }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, p.Prompt, p.Prompt+p.CanonicalSolution, p.Test+"\ncheck("+p.EntryPoint+")")
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !testing.Short() {
		mb, err := os.ReadFile(filepath.Join(data, "mbpp", "mbpp.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(mb)), "\n") {
			var p struct {
				Code          string   `json:"code"`
				TestList      []string `json:"test_list"`
				TestSetupCode string   `json:"test_setup_code"`
			}
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, p.Code, strings.Join(p.TestList, "\n"), p.TestSetupCode)
		}
	}
	in, err := json.Marshal(srcs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, "-I", "-B", "-c", codecSource+"\n\n"+trustedSource+"\n\n"+namesCheck)
	cmd.Stdin = strings.NewReader(string(in))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	t.Logf("%d sources compared", len(srcs))
	if strings.TrimSpace(string(out)) == "0" {
		t.Fatalf("nothing compared: %s", out)
	}
}
