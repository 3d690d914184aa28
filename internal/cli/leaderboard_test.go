package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// boardTestdata is the leaderboard package's committed board: five runs
// (two runtimes of one model, a limited run, a run with failed, partial
// and missing tasks, a replay) and a suite file with published numbers.
const boardTestdata = "../../leaderboard/testdata/board"

// boardArgs are the arguments of a leaderboard over boardTestdata.
func boardArgs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join(boardTestdata, "runs", "*"))
	if err != nil || len(dirs) != 5 {
		t.Fatalf("runs in %s: %v %v", boardTestdata, dirs, err)
	}
	return append(append([]string{"leaderboard"}, dirs...), "--suite", filepath.Join(boardTestdata, "suite.yaml"))
}

// TestLeaderboardJSON: `leaderboard --json` prints the board in the --json
// convention (golden file testdata/json/leaderboard.json); with --html and
// --markdown it also writes both files, and prints the same document.
func TestLeaderboardJSON(t *testing.T) {
	t.Parallel()
	args := boardArgs(t)
	code, doc, errOut := run(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	jsonGolden(t, "leaderboard", doc, map[string]string{boardTestdata: "$BOARD"})

	tmp := t.TempDir()
	html, md := filepath.Join(tmp, "board.html"), filepath.Join(tmp, "board.md")
	code, both, errOut := run(t, append(args, "--json", "--html", html, "--markdown", md)...)
	if code != 0 {
		t.Fatalf("--json --html --markdown: exit %d: %s", code, errOut)
	}
	if both != doc {
		t.Errorf("--json with --html and --markdown printed another document:\n%s", both)
	}
	if h, err := os.ReadFile(html); err != nil || !strings.Contains(string(h), "<svg") {
		t.Errorf("--html with --json: %v", err)
	}
	m, err := os.ReadFile(md)
	if err != nil || !strings.Contains(string(m), "| # | run |") {
		t.Errorf("--markdown with --json: %v", err)
	}
	// Without --json or a file, the Markdown goes to stdout.
	if code, out, _ := run(t, args...); code != 0 || out != string(m) {
		t.Errorf("leaderboard without files: exit %d, stdout is not the Markdown:\n%s", code, out)
	}
}

// TestLeaderboardUsage: unusable input exits 2 with the reason on stderr
// and nothing on stdout, --json or not.
func TestLeaderboardUsage(t *testing.T) {
	t.Parallel()
	args := boardArgs(t)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no such directory", []string{"leaderboard", filepath.Join(t.TempDir(), "nope"), "--json"}, "load run"},
		{"unknown suite", append(args[:len(args)-2:len(args)-2], "--suite", "nope", "--json"), "--suite"},
		{"no directory", []string{"leaderboard", "--json"}, "requires at least 1 arg"},
		{"--json takes no value", append(args, "--json=maybe"), "--json"},
	} {
		code, out, errOut := run(t, tt.args...)
		if code != ExitUsage || out != "" || !strings.Contains(errOut, tt.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and %q", tt.name, code, out, errOut, ExitUsage, tt.want)
		}
	}
}
