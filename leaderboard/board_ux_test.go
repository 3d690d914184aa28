package leaderboard

import (
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/rundir/rundirtest"
	"github.com/pocketeval/pocketeval/suite"
)

// withVerdictMode records in dir's manifest that humaneval was judged in
// mode, as a run with --verdict-mode does.
func withVerdictMode(t *testing.T, dir, mode string) {
	t.Helper()
	m, err := results.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	m.Environment = map[string]any{"code:humaneval": map[string]any{"verdict_mode": map[string]any{"mode": mode}}}
	if err := results.WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
}

// TestBoardShowsVerdictModeAndAssumedMembers: an official-verdict and an
// isolated-verdict run of the same completions are told apart, and the
// suite's assumed members are named, in Markdown, HTML and JSON (issue
// 48).
func TestBoardShowsVerdictModeAndAssumedMembers(t *testing.T) {
	t.Parallel()
	scores := map[string][]float64{"humaneval": rundirtest.Pattern(20, 10), "gsm8k": rundirtest.Pattern(20, 5)}
	official := rundirtest.FakeRun(t, "official.gguf", scores, 100, 0)
	isolated := rundirtest.FakeRun(t, "isolated.gguf", scores, 100, 0)
	withVerdictMode(t, official, "official")
	withVerdictMode(t, isolated, "isolated")
	s, err := suite.Get("pocket11", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Assumed()) == 0 {
		t.Fatal("pocket11 assumes no member: the test needs one")
	}
	b, err := NewBoard([]*rundir.Run{rundirtest.MustLoad(t, official), rundirtest.MustLoad(t, isolated)}, BoardOptions{Title: "t", Suite: s})
	if err != nil {
		t.Fatal(err)
	}
	assumed := strings.Join(s.Assumed(), ", ")
	md := b.Markdown()
	for _, want := range []string{"official.gguf · official verdicts", "isolated.gguf · isolated verdicts", "Verdicts: how a run judged its code tasks",
		"Assumed members of pocket11", assumed} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	h, err := b.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">isolated verdicts<", ">official verdicts<", "members assumed", assumed} {
		if !strings.Contains(string(h), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	rep := b.Report()
	if strings.Join(rep.AssumedMembers, ", ") != assumed {
		t.Errorf("JSON assumed_members %v, want %s", rep.AssumedMembers, assumed)
	}
	modes := map[string]string{}
	for _, r := range rep.Rows {
		if r.VerdictMode != nil {
			modes[r.Name] = *r.VerdictMode
		}
	}
	if modes["official.gguf"] != "official" || modes["isolated.gguf"] != "isolated" {
		t.Errorf("JSON verdict modes %v", modes)
	}
}
