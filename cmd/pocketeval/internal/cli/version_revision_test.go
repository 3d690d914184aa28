package cli

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

func TestSubstitutedRevision(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"$Format:%H$\n", ""},
		{"", ""},
		{"abc", ""},
		{"1b7e3755c8ecd0ba55d8fc856ee12785406568fd\n", "1b7e3755c8ecd0ba55d8fc856ee12785406568fd"},
		{"1b7e3755c8ecd0ba55d8fc856ee12785406568fz", ""},
	} {
		if got := substitutedRevision(tt.in); got != tt.want {
			t.Errorf("substitutedRevision(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := substitutedRevision(archiveRevision); got != "" {
		t.Errorf("the checkout's revision.txt should hold its placeholder, reads as %q", got)
	}
}

// gitHead returns the checkout's HEAD, skipping the test outside a git
// checkout (a source archive).
func gitHead(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestArchiveRevision checks the tarball fallback: git archive writes the
// commit into revision.txt (export-subst in .gitattributes).
func TestArchiveRevision(t *testing.T) {
	head := gitHead(t)
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal(err)
	}
	// From the top, as a whole-tree archive is made: attributes apply there.
	cmd := exec.Command("git", "archive", "--format=tar", "HEAD", "cmd/pocketeval/internal/cli/revision.txt")
	cmd.Dir = strings.TrimSpace(string(top))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git archive: %v", err)
	}
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("revision.txt not in the archive: %v", err)
		}
		if path.Base(h.Name) != "revision.txt" {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if got := substitutedRevision(string(b)); got != head {
			t.Errorf("archived revision.txt reads %q, want %q (is .gitattributes' export-subst line lost?)", b, head)
		}
		return
	}
}

// TestVersionRevisionStamped builds the binary as README does, with
// GOFLAGS=-buildvcs=false in the environment (as some machines' go env
// has), and checks that `version --json` names the checkout's commit.
func TestVersionRevisionStamped(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	head := gitHead(t)
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(strings.TrimSpace(string(top)), ".git")); err != nil || !fi.IsDir() {
		// Go stamps only where .git is a directory, not in a linked worktree.
		t.Skip("a linked git worktree: Go does not stamp VCS information there")
	}
	bin := filepath.Join(t.TempDir(), "pocketeval")
	build := exec.Command("go", "build", "-buildvcs=auto", "-o", bin, "../..")
	build.Env = append(os.Environ(), "GOFLAGS=-buildvcs=false")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Revision string `json:"vcs_revision"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if v.Revision != head {
		t.Errorf("vcs_revision %q, want %q", v.Revision, head)
	}
}
