package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// boardTestdata is the leaderboard package's committed board: five runs
// (two runtimes of one model, a limited run, a run with failed, partial
// and missing tasks, a replay) and a suite file with published numbers.
const boardTestdata = "../../../../leaderboard/testdata/board"

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

// TestLeaderboardJSONWithoutSuite: without --suite the columns are the
// runs' tasks, "suite" is null and there is no reference row.
func TestLeaderboardJSONWithoutSuite(t *testing.T) {
	t.Parallel()
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	for _, r := range [][]string{{"--tasks", "alpha,beta", "--out", a}, {"--tasks", "alpha", "--out", b}} {
		if code, _, errOut := run(t, append([]string{"run", "--runtime", "fake"}, r...)...); code != 0 {
			t.Fatal(errOut)
		}
	}
	code, out, errOut := run(t, "leaderboard", a, b, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	jsonGolden(t, "", out, nil)
	var doc struct {
		Suite *string `json:"suite"`
		Tasks []struct {
			Task string `json:"task"`
		} `json:"tasks"`
		Rows []struct {
			Dir       string   `json:"dir"`
			Reference bool     `json:"reference"`
			Average   *float64 `json:"average"`
			Missing   []string `json:"missing"`
			Tasks     []struct {
				Status string   `json:"status"`
				Score  *float64 `json:"score"`
			} `json:"tasks"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Suite != nil || len(doc.Tasks) != 2 || len(doc.Rows) != 2 || doc.Rows[0].Reference || doc.Rows[1].Reference {
		t.Fatalf("document %+v", doc)
	}
	// b lacks beta: no average, the reason, and no score for beta.
	rb := doc.Rows[1]
	if rb.Dir != b || rb.Average != nil || len(rb.Missing) != 1 || rb.Missing[0] != "beta" || rb.Tasks[1].Status != "missing" || rb.Tasks[1].Score != nil {
		t.Errorf("row of %s: %+v", b, rb)
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

// TestLeaderboardSameRunTwice: a directory named twice (again with a
// trailing slash, as ./dir, or through a symlink) is ranked once.
func TestLeaderboardSameRunTwice(t *testing.T) {
	t.Parallel()
	args := boardArgs(t)
	_, once, _ := run(t, append(args, "--json")...)
	dir := args[1]
	link := filepath.Join(t.TempDir(), "link")
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(abs, link); err != nil {
		t.Fatal(err)
	}
	twice := append([]string{"leaderboard", dir, dir + "/", "./" + dir, link}, args[2:]...)
	code, doc, errOut := run(t, append(twice, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Count(errOut, "same run directory") != 3 {
		t.Errorf("stderr should name the 3 repeats:\n%s", errOut)
	}
	if doc != once {
		t.Errorf("a repeated directory changed the board:\n%s", doc)
	}
}
