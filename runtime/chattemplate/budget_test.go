package chattemplate

import (
	"errors"
	"runtime"
	"testing"

	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/runtime/chat"
)

// TestChatBudget: a chat template (serve --chat-template) that joins a
// list of a thousand references to one million-item list is refused with
// a limit error, without building its gigabytes (issue #49).
func TestChatBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a million-item list")
	}
	tm, err := ParseFile("bomb.jinja", `{% set a = [[1]*1000000]*1000 %}{{ a|join(",") }}{% for m in messages %}{{ m.content }}{% endfor %}`)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, err = tm.Chat([]chat.Message{{Role: "user", Content: "hi"}}, ChatOptions{})
	runtime.ReadMemStats(&m1)
	if !errors.Is(err, jinja.ErrLimit) {
		t.Errorf("got %v, want a template limit", err)
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 1<<30 {
		t.Errorf("allocated %d MiB", a>>20)
	}
}
