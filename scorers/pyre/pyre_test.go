package pyre

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

type golden struct {
	Inputs   []string `json:"inputs"`
	Patterns []struct {
		Pattern string   `json:"pattern"`
		Files   []string `json:"files"`
		Uses    int      `json:"uses"`
		Error   string   `json:"error"`
		Groups  int      `json:"groups"`
		Results []struct {
			FindAll [][]string `json:"findall"`
			Sub     string     `json:"sub"`
		} `json:"results"`
	} `json:"patterns"`
}

// TestPythonDifferential replays testdata/pyre_golden.json: every regex of
// lm-eval's task files and adversarial patterns, run by Python 3.11's re
// on every input (gen_pyre_golden.py). Compile errors, re.findall and
// re.sub must agree.
func TestPythonDifferential(t *testing.T) {
	raw, err := os.ReadFile("testdata/pyre_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	lmeval, cases := 0, 0
	for _, p := range g.Patterns {
		re, err := Compile(p.Pattern, 0)
		if p.Error != "" {
			if err == nil {
				t.Errorf("%q: Python refuses it (%s); compiled here", p.Pattern, p.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q (%v): %v", p.Pattern, p.Files, err)
			continue
		}
		if p.Uses > 0 {
			lmeval++
		}
		if re.NumGroups() != p.Groups {
			t.Errorf("%q: %d groups, Python %d", p.Pattern, re.NumGroups(), p.Groups)
		}
		for i, want := range p.Results {
			in := g.Inputs[i]
			cases++
			got, err := re.FindAllStrings(in)
			if err != nil {
				t.Errorf("%q on %q: %v", p.Pattern, in, err)
				continue
			}
			if got == nil {
				got = [][]string{}
			}
			if !slices.EqualFunc(got, want.FindAll, slices.Equal[[]string]) {
				t.Errorf("findall(%q, %q) = %q, Python %q", p.Pattern, in, got, want.FindAll)
			}
			sub, _ := re.RemoveAll(in)
			if sub != want.Sub {
				t.Errorf("sub(%q, '', %q) = %q, Python %q", p.Pattern, in, sub, want.Sub)
			}
		}
	}
	if lmeval < 80 || cases < 5000 {
		t.Fatalf("only %d lm-eval patterns and %d cases: is the golden file complete?", lmeval, cases)
	}
}

// TestTimeout: a catastrophic pattern returns ErrTimeout instead of
// running for years; the bound is the caller's, so the test does not
// depend on the machine's speed.
func TestTimeout(t *testing.T) {
	re, err := CompileTimeout(`(a+)+$`, 0, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	_, err = re.FindAllStrings(strings.Repeat("a", 64) + "!")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if !strings.Contains(err.Error(), `"(a+)+$"`) {
		t.Errorf("error does not name the pattern: %v", err)
	}
}

func TestSyntaxErrorPosition(t *testing.T) {
	_, err := Compile(`ab\q`, 0)
	var se *SyntaxError
	if !errors.As(err, &se) || se.Pos != 4 {
		t.Fatalf("err = %#v, want a SyntaxError at 4", err)
	}
}

// TestRefused: what this package does not translate is refused, never
// approximated.
func TestRefused(t *testing.T) {
	for _, p := range []string{`(?x) a`, `(?a:\w)`, `\N{DIGIT ONE}`} {
		if _, err := Compile(p, 0); err == nil {
			t.Errorf("%q compiled; want a refusal", p)
		}
	}
}
