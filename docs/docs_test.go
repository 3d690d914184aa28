// Package docs_test runs the documentation: every command block of
// README.md and docs/*.md (internal/doctest says which blocks run and how
// they are checked).
package docs_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/internal/doctest"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// TestDocs runs README.md's command blocks, then each file of docs/, in a
// fresh copy of the repository next to the shared material (so "../shared"
// means what it means in a checkout), one bash session per file, in its
// own network namespace where the machine allows one. README's session
// starts without pocketeval on PATH: its install block must build it; the
// other files' sessions find that binary on PATH, as a reader who
// installed it would. $POCKETEVAL_DATA is unset: each example must say
// where its data is.
func TestDocs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command of the documentation (minutes)")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	root, err := sharedtest.Root()
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Dir(sharedtest.Models(t))
	sharedtest.Datasets(t)

	// One working directory per checkout, reused across runs so that the
	// README's `go build` finds its packages in the build cache; a lock
	// keeps two runs of the same checkout apart.
	sum := sha256.Sum256([]byte(root))
	work := filepath.Join(os.TempDir(), "pocketeval-doctest-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	unlock := lock(t, work+".lock")
	defer unlock()

	files := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(more)
	for _, f := range more {
		rel, _ := filepath.Rel(root, f)
		files = append(files, rel)
	}
	isolate := doctest.Isolated()
	if !isolate {
		t.Log("no network namespace here (unshare): examples run on the host network")
	}
	start := time.Now()
	var tally counts
	bin := ""
	for _, file := range files {
		src, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := doctest.Parse(file, src)
		if err != nil {
			t.Error(err)
			continue
		}
		name := strings.TrimSuffix(strings.ReplaceAll(file, "/", "_"), ".md")
		dir := filepath.Join(work, name)
		repo := checkout(t, root, shared, dir)
		env := environment(bin)
		ran := false
		ok := t.Run(name, func(t *testing.T) {
			ran = true
			runFile(t, repo, env, blocks, isolate, &tally)
			if left := strays(t, root, repo, blocks); len(left) > 0 {
				t.Errorf("%s's commands left %s in the checkout, which git would show as untracked: write such files under runs/ (ignored)", file, strings.Join(left, ", "))
			}
		})
		if file == "README.md" {
			bin = filepath.Join(repo, "bin")
			if _, err := os.Stat(filepath.Join(bin, "pocketeval")); err != nil {
				if ran && ok {
					t.Fatal("README.md's install block did not build bin/pocketeval: the other documents need it")
				}
				// README.md was left out (-run) or failed: build as it says.
				build := exec.Command("go", "build", "-o", "bin/pocketeval", "./cmd/pocketeval")
				build.Dir, build.Env = repo, env
				if out, err := build.CombinedOutput(); err != nil {
					t.Fatalf("build pocketeval: %v\n%s", err, out)
				}
			}
		}
	}
	t.Logf("documentation: %d blocks run (%d commands), %d skipped, %d files written, in %v",
		tally.run, tally.commands, tally.skipped, tally.files, time.Since(start).Round(time.Second))
	for _, s := range tally.skips {
		t.Logf("  skipped %s", s)
	}
}

// TestDocsParse checks, quickly, that every document parses: markers are
// known and placed, and no command hides in a block that would not run.
func TestDocsParse(t *testing.T) {
	t.Parallel()
	root, err := sharedtest.Root()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, filepath.Join(root, "README.md"))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		blocks, err := doctest.Parse(rel, src)
		if err != nil {
			t.Error(err)
			continue
		}
		run := 0
		for _, b := range blocks {
			if b.Runnable() {
				run++
			}
		}
		t.Logf("%s: %d blocks, %d run", rel, len(blocks), run)
	}
}

// strays lists what a file's commands left at the top of the checkout copy
// repo that a reader's `git status` would show: names that are neither the
// repository's, nor ignored by its .gitignore (bin/, runs/, out/), nor
// files the document itself asks the reader to write (doctest: file).
func strays(t *testing.T, root, repo string, blocks []doctest.Block) []string {
	t.Helper()
	known := map[string]bool{"bin": true, "runs": true, "out": true, "node_modules": true, "pocketeval": true}
	files, err := repoFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		known[strings.SplitN(filepath.ToSlash(f), "/", 2)[0]] = true
	}
	for _, b := range blocks {
		if b.Marker.Kind == doctest.File {
			known[strings.SplitN(filepath.ToSlash(b.Marker.Arg), "/", 2)[0]] = true
		}
	}
	entries, err := os.ReadDir(repo)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		if !known[e.Name()] {
			left = append(left, e.Name())
		}
	}
	return left
}

type counts struct {
	run, commands, skipped, files int
	skips                         []string
}

// runFile runs one file's blocks in one session.
func runFile(t *testing.T, repo string, env []string, blocks []doctest.Block, isolate bool, tally *counts) {
	s, err := doctest.NewSession(repo, env)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Isolate = isolate
	for _, b := range blocks {
		where := fmt.Sprintf("%s:%d", b.File, b.Line)
		switch b.Marker.Kind {
		case doctest.Skip, doctest.Offline:
			tally.skipped++
			tally.skips = append(tally.skips, fmt.Sprintf("%s (%s: %s)", where, b.Marker.Kind, b.Marker.Arg))
			continue
		case doctest.File:
			p := filepath.Join(s.Pwd(), b.Marker.Arg)
			if err := os.WriteFile(p, []byte(b.Text), 0o644); err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			tally.files++
			continue
		case doctest.Needs:
			if _, err := os.Stat(b.Marker.Arg); err != nil {
				tally.skipped++
				tally.skips = append(tally.skips, fmt.Sprintf("%s (needs %s, absent)", where, b.Marker.Arg))
				continue
			}
		}
		if !b.Runnable() {
			continue
		}
		tally.run++
		t0 := time.Now()
		if b.Lang == "console" {
			runConsole(t, s, b, tally)
		} else {
			tally.commands++
			r, err := s.RunScript(b.Text)
			if err != nil || r.Exit != 0 {
				t.Errorf("%s: the block exited %d (%v):\n%s\noutput:\n%s", where, r.Exit, err, b.Text, r.Output)
			}
			if line := repeatedSetupLine(r.Output); line != "" {
				t.Errorf("%s: the block prints %q more than once: a reader sees set-up reported twice", where, line)
			}
		}
		t.Logf("%s: %v", where, time.Since(t0).Round(100*time.Millisecond))
	}
}

// runConsole runs a console block and checks each command's status and
// documented output.
func runConsole(t *testing.T, s *doctest.Session, b doctest.Block, tally *counts) {
	steps := b.Steps()
	if len(steps) == 0 {
		t.Errorf("%s:%d: a console block without a \"$ \" command", b.File, b.Line)
		return
	}
	res, err := s.RunSteps(steps)
	if err != nil {
		t.Errorf("%s:%d: %v", b.File, b.Line, err)
		return
	}
	for i, st := range steps {
		tally.commands++
		r := res[i]
		shown := i+1 < len(steps) && strings.TrimSpace(steps[i+1].Cmd) == "echo $?"
		if r.Exit != 0 && !shown {
			t.Errorf("%s:%d: $ %s\nexited %d (a documented failure is followed by `echo $?`); output:\n%s", b.File, st.Line, st.Cmd, r.Exit, r.Output)
			continue
		}
		if err := doctest.Match(st.Want, r.Output); err != nil {
			t.Errorf("%s:%d: $ %s\n%v\noutput:\n%s", b.File, st.Line, st.Cmd, err, r.Output)
		}
	}
}

// environment is the sessions' environment: this process's, without the
// variables an example must set itself, with bin (when not empty) first
// on PATH and the Go toolchain on it.
func environment(bin string) []string {
	drop := map[string]bool{"POCKETEVAL_DATA": true, "POCKETEVAL_MODELS": true, "OPENAI_API_KEY": true, "CI": true}
	var env []string
	path := os.Getenv("PATH")
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] || k == "PATH" {
			continue
		}
		env = append(env, kv)
	}
	if !strings.Contains(path, "/usr/local/go/bin") {
		path += ":/usr/local/go/bin"
	}
	if bin != "" {
		path = bin + ":" + path
	}
	return append(env, "PATH="+path)
}

// checkout copies the repository's files (tracked and untracked, not
// ignored) to dir/pocketeval, with dir/shared pointing at the shared
// material, and returns dir/pocketeval. An earlier copy is replaced, but
// its build products (bin/) are kept for the build cache.
func checkout(t *testing.T, root, shared, dir string) string {
	t.Helper()
	repo := filepath.Join(dir, "pocketeval")
	entries, _ := os.ReadDir(repo)
	for _, e := range entries {
		if e.Name() != "bin" {
			if err := os.RemoveAll(filepath.Join(repo, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	files, err := repoFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if err := copyFile(filepath.Join(root, f), filepath.Join(repo, f)); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "shared")
	os.Remove(link)
	if err := os.Symlink(shared, link); err != nil {
		t.Fatal(err)
	}
	return repo
}

// repoFiles lists the checkout's files: git's tracked and untracked ones
// (not ignored) when git knows the directory, else every regular file
// outside .git, bin and runs.
func repoFiles(root string) ([]string, error) {
	out, err := exec.Command("git", "-C", root, "ls-files", "-co", "--exclude-standard", "-z").Output()
	if err == nil {
		var files []string
		for _, f := range strings.Split(string(out), "\x00") {
			if f == "" {
				continue
			}
			if st, err := os.Lstat(filepath.Join(root, f)); err == nil && st.Mode().IsRegular() {
				files = append(files, f)
			}
		}
		return files, nil
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() && (rel == ".git" || rel == "bin" || rel == "runs") {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			files = append(files, rel)
		}
		return nil
	})
	return files, err
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, st.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// lock takes an exclusive lock on path, waiting for another run of the
// documentation of the same checkout to finish.
func lock(t *testing.T, path string) func() {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil && !errors.Is(err, syscall.EINTR) {
		t.Fatal(err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// repeatedSetupLine returns a set-up report ("setup-llamacpp: DIR is up to
// date") that output holds more than once, or "": a documented command
// says once what it set up.
func repeatedSetupLine(output string) string {
	seen := map[string]bool{}
	for _, line := range strings.Split(output, "\n") {
		if !strings.HasSuffix(strings.TrimSpace(line), "is up to date") {
			continue
		}
		if seen[line] {
			return line
		}
		seen[line] = true
	}
	return ""
}

func TestRepeatedSetupLine(t *testing.T) {
	twice := "setup-llamacpp: /c/lib is up to date\nok\nsetup-llamacpp: /c/lib is up to date\n"
	if got := repeatedSetupLine(twice); got != "setup-llamacpp: /c/lib is up to date" {
		t.Errorf("repeatedSetupLine(twice) = %q", got)
	}
	if got := repeatedSetupLine("setup-llamacpp: /c/lib is up to date\nsetup-openai-node: /n is up to date\n"); got != "" {
		t.Errorf("repeatedSetupLine(once each) = %q, want none", got)
	}
}
