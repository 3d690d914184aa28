package leaderboard

import (
	"os"
	"testing"

	"github.com/pocketeval/pocketeval/evals/suite"
)

// pocketCaps mirrors the built-in families for the tests (the CLI passes
// registry.Families).
var pocketCaps = []Capability{
	{"instruction following", []string{"ifeval", "ifeval_zh"}},
	{"math", []string{"gsm8k", "mgsm_zh", "math500"}},
	{"code", []string{"humaneval", "mbpp"}},
	{"knowledge", []string{"mmlu", "ceval", "cmmlu", "bbh"}},
}

func loadAll(t testing.TB, dirs []string) []*Run {
	t.Helper()
	var runs []*Run
	for _, d := range dirs {
		r, err := Load(d)
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	return runs
}

func TestWriteRealisticBoard(t *testing.T) {
	out := os.Getenv("BOARD_OUT")
	if out == "" {
		t.Skip("BOARD_OUT not set")
	}
	s, err := suite.Get("pocket11")
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewBoard(loadAll(t, realisticRuns(t, t.TempDir())), BoardOptions{Title: "pocket11 — test board", Suite: s, Capabilities: pocketCaps})
	if err != nil {
		t.Fatal(err)
	}
	h, err := b.HTML()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(out, h, 0o644)
	os.WriteFile(out+".md", []byte(b.Markdown()), 0o644)
}
