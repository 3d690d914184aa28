package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
	"github.com/pocketeval/pocketeval/scorers/selective"
	"github.com/pocketeval/pocketeval/stats"
)

// Tests of issue 48: every number and word a user reads is right.

// fakeRun runs the fake runtime on alpha and beta into a new directory.
func fakeRun(t *testing.T, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	args := append([]string{"run", "--runtime", "fake", "--tasks", "alpha,beta", "--out", dir}, extra...)
	if code, _, e := run(t, args...); code != 0 {
		t.Fatal(e)
	}
	return dir
}

// runTTY runs pocketeval with stderr a terminal (where progress shows as
// a bar).
func runTTY(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	f, out, errb := testFactory()
	f.IO.StderrTTY = true
	code := Execute(context.Background(), f, args)
	return code, out.String(), errb.String()
}

func TestCompareSameRunWarns(t *testing.T) {
	t.Parallel()
	a := fakeRun(t)
	code, _, errOut := run(t, "compare", a, a)
	if code != 0 || !strings.Contains(errOut, "warning: A and B are the same run (the same directory)") {
		t.Errorf("compare A A: %d, stderr %q: want a warning that both sides are one run", code, errOut)
	}
	// A copy of the run is the same run too; another run is not.
	cp := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(cp, os.DirFS(a)); err != nil {
		t.Fatal(err)
	}
	if _, _, errOut := run(t, "compare", a, cp); !strings.Contains(errOut, "copies of one run") {
		t.Errorf("compare A copy-of-A: stderr %q", errOut)
	}
	b := fakeRun(t, "--fake-model", "m3")
	if _, _, errOut := run(t, "compare", a, b); strings.Contains(errOut, "same run") {
		t.Errorf("compare A B: stderr %q", errOut)
	}
}

// TestReadersAcceptDataDir: compare, suite, leaderboard and fidelity flips
// accept the --data-dir run, verify and gate take (they read no dataset,
// and their help says so).
func TestReadersAcceptDataDir(t *testing.T) {
	t.Parallel()
	a, b := fakeRun(t), fakeRun(t, "--fake-model", "m3")
	dd := t.TempDir()
	for _, args := range [][]string{
		{"compare", a, b, "--data-dir", dd},
		{"suite", a, "--data-dir", dd},
		{"leaderboard", a, "--json", "--data-dir", dd},
		{"fidelity", "flips", a, b, "--data-dir", dd},
	} {
		// suite's pocket11 names tasks the test factory does not know:
		// what matters is that the flag is taken.
		if code, _, errOut := run(t, args...); strings.Contains(errOut, "unknown flag") || code != 0 && args[0] != "suite" {
			t.Errorf("%s: exit %d: %s", strings.Join(args[:2], " "), code, errOut)
		}
	}
	if _, out, _ := run(t, "compare", "--help"); !strings.Contains(out, "--data-dir") || !strings.Contains(out, "not read") {
		t.Errorf("compare --help does not say --data-dir is not read:\n%s", out)
	}
}

// TestHelpText: the speculative-decoding flags are not in the fidelity
// commands' help, --draft-max states one default, and serve lists its
// rolling log-likelihood route.
func TestHelpText(t *testing.T) {
	t.Parallel()
	for _, sub := range []string{"reference", "compare", "gate"} {
		_, out, _ := run(t, "fidelity", sub, "--help")
		if strings.Contains(out, "--draft-") || strings.Contains(out, "--speculative") {
			t.Errorf("fidelity %s --help lists the speculative-decoding flags", sub)
		}
	}
	_, out, _ := run(t, "bench", "--help")
	i := strings.Index(out, "--draft-max")
	if i < 0 {
		t.Fatal("bench --help lacks --draft-max")
	}
	line, _, _ := strings.Cut(out[i:], "\n")
	if strings.Count(line, "default") != 1 || strings.Contains(line, "(0:") {
		t.Errorf("--draft-max states its default more than once: %q", line)
	}
	if _, out, _ := run(t, "serve", "--help"); !strings.Contains(out, "/v1/loglikelihood_rolling") {
		t.Error("serve --help omits /v1/loglikelihood_rolling")
	}
}

// TestVerifyChangedFileAdvice: verify's report on a samples file changed
// after the run does not advise running verify, the command just run.
func TestVerifyChangedFileAdvice(t *testing.T) {
	t.Parallel()
	a := fakeRun(t)
	path := results.SamplesPath(a, "alpha")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "verify", a)
	if code != ExitError || !strings.Contains(out, "was changed after the run ended") {
		t.Fatalf("verify of a changed file: %d\n%s", code, out)
	}
	if strings.Contains(out, "pocketeval verify") || !strings.Contains(out, "restore the file") {
		t.Errorf("verify's advice:\n%s\nwant what to do next, not the command just run", out)
	}
}

// TestProgressOfLongCommands: verify, gate (re-scoring both runs) and
// compare show the progress run shows; --quiet and --json turn it off.
func TestProgressOfLongCommands(t *testing.T) {
	t.Parallel()
	a, b := fakeRun(t), fakeRun(t, "--fake-model", "m3")
	policy := filepath.Join(t.TempDir(), "gate.yaml")
	os.WriteFile(policy, []byte("defaults:\n  max_drop: 100\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"verify", a}, "re-scoring " + a},
		{[]string{"gate", "--baseline", a, "--candidate", b, "--policy", policy}, "re-scoring " + b},
		{[]string{"compare", a, b}, "comparing"},
	} {
		code, _, errOut := runTTY(t, c.args...)
		if code != 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: exit %d, stderr %q: want progress %q", c.args[0], code, errOut, c.want)
		}
		for _, off := range []string{"--quiet", "--json"} {
			if _, _, errOut := runTTY(t, append(c.args, off)...); strings.Contains(errOut, c.want) {
				t.Errorf("%s %s: progress on stderr: %q", c.args[0], off, errOut)
			}
		}
	}
}

// TestMarksMeanOneThing: suite marks a score at chance with compare's °
// (compare's ~ is "not significant"), and a partial score with †, each
// with its legend.
func TestMarksMeanOneThing(t *testing.T) {
	t.Parallel()
	v := 25.0
	rep := &rundir.SuiteReport{Suite: "s", Rows: []rundir.SuiteRow{
		{Task: "mmlu", Metric: "acc", Status: results.TaskComplete, Score: &v, Lo: 20, Hi: 30, N: 100, Scored: 100, Samples: 100,
			Chance: &results.Chance{Metric: "acc", Chance: stats.Chance{Baseline: 0.25, N: 100, Correct: 25, P: 0.5}}},
		{Task: "ceval", Metric: "acc", Status: results.TaskIncomplete, Score: &v, Lo: 20, Hi: 30, N: 50, Scored: 50, Samples: 100},
	}}
	var b bytes.Buffer
	rep.Print(&b)
	out := b.String()
	for _, want := range []string{"25.00°", "° at chance", "25.00†", "† partial"} {
		if !strings.Contains(out, want) {
			t.Errorf("suite table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "~") || strings.Contains(out, "25.00*") {
		t.Errorf("suite table uses compare's significance marks:\n%s", out)
	}
}

// TestDecisionTableUnmet: a decision task whose calibration split has no
// threshold meeting the target shows "none meets 5%", not a threshold of
// 0.00, and no risk over no accepted decision; the run's notes are printed.
func TestDecisionTableUnmet(t *testing.T) {
	t.Parallel()
	s := &results.Summary{Order: []string{"dec"}, Tasks: map[string]*results.TaskSummary{"dec": {
		PrimaryMetric: "acc", Samples: 96, Scored: 96,
		Metrics: map[string]stats.Summary{
			"acc":               {Mean: 0.04, Lo: 0.01, Hi: 0.14, N: 48},
			"coverage_at_error": {Mean: 0, N: 48},
		},
		Decision: &selective.Report{CalibrationItems: 48, TestItems: 48, Operating: selective.Operating{Target: 0.05}},
		Notes:    []string{"no threshold keeps the 48 calibration decisions' error at or below 0.05"},
	}}}
	var b bytes.Buffer
	PrintSummary(&b, s)
	out := b.String()
	for _, want := range []string{"threshold          none meets 5%", "risk_at_error      none accepted", "dec note: no threshold keeps"} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "threshold          0.00") {
		t.Errorf("table shows a threshold of 0:\n%s", out)
	}
}
