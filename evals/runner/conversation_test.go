package runner

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

type journalRuntime struct{ calls int }

func (c *journalRuntime) Generate(_ context.Context, req runtime.Request) (runtime.Response, error) {
	c.calls++
	return runtime.Response{Text: req.Messages[len(req.Messages)-1].Content + "!"}, nil
}
func (*journalRuntime) Close() error { return nil }

// TestJournalResumesConversations: the steps a conversation recorded are
// served again to the same requests after a restart (a torn last line
// ignored); a different request is generated anew.
func TestJournalResumesConversations(t *testing.T) {
	dir := t.TempDir()
	ask := func(s string) runtime.Request {
		return runtime.Request{ID: "a", Messages: []runtime.Message{{Role: "user", Content: s}}}
	}
	rt := &journalRuntime{}
	j, err := openJournal(dir, "task")
	if err != nil {
		t.Fatal(err)
	}
	gen := j.gen(rt, "a", 0)
	for _, s := range []string{"one", "two", "three"} {
		if r, err := gen(context.Background(), ask(s)); err != nil || r.Text != s+"!" {
			t.Fatalf("%q %v", r.Text, err)
		}
	}
	j.close()
	path := filepath.Join(dir, ConversationsDir, "task.jsonl")
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"a","step":3,"requ`) // killed mid-write
	f.Close()

	rt2 := &journalRuntime{}
	j, err = openJournal(dir, "task")
	if err != nil {
		t.Fatal(err)
	}
	defer j.close()
	gen = j.gen(rt2, "a", 0)
	for _, s := range []string{"one", "two", "other", "four"} {
		if r, err := gen(context.Background(), ask(s)); err != nil || r.Text != s+"!" {
			t.Fatalf("%q %v", r.Text, err)
		}
	}
	if rt2.calls != 2 {
		t.Errorf("%d model calls after the restart, want 2 (the changed third step and the new fourth)", rt2.calls)
	}
	// Another repeat of the sample shares nothing.
	if _, err := j.gen(rt2, "a", 1)(context.Background(), ask("one")); err != nil || rt2.calls != 3 {
		t.Errorf("repeat 1 served from repeat 0's journal (%d calls, %v)", rt2.calls, err)
	}
}
