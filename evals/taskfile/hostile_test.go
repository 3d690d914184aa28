package taskfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// TestTaskNameIsIdentifier (issue #49): a task name becomes a file name,
// so one that is not a lowercase identifier is refused with the file, the
// line and the field.
func TestTaskNameIsIdentifier(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"../../pwned", "a/b", "Upper", ".hidden", "x.y", "-dash", `"a b"`} {
		p := filepath.Join(dir, "t.yaml")
		os.WriteFile(p, []byte("dataset_path: json\noutput_type: generate_until\ntask: "+name+"\n"), 0o644)
		_, err := Parse(p)
		var te *Error
		if !errors.As(err, &te) || te.Field != "task" || te.Line != 3 || !strings.Contains(err.Error(), "not a task name") {
			t.Errorf("task: %s: %v", name, err)
		}
	}
}

// TestIncludeNotRegular: an include that is a named pipe or a device is
// refused unread.
func TestIncludeNotRegular(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.yaml")
	os.WriteFile(p, []byte("include: /dev/zero\ntask: t\n"), 0o644)
	if _, err := Parse(p); !regfile.IsUnusable(err) {
		t.Errorf("include /dev/zero: %v", err)
	}
}
