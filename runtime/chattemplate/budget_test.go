package chattemplate

import (
	"context"
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

// slowChat renders in ten million steps, ten times jinja's step limit: a
// render nobody cancels ends with a limit error, one cancelled at its
// start with the context's error.
const slowChat = `{% for i in range(100000) %}{% for j in range(100) %}{% endfor %}{% endfor %}{{ messages[0].content }}`

// TestChatContextCancelled: ChatContext stops the render when its context
// ends (pocketeval serve passes the request's, which ends when the client
// goes away), also in the renders that check the tools reached the prompt.
func TestChatContextCancelled(t *testing.T) {
	tm, err := Parse(slowChat)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []chat.Message{{Role: "user", Content: "hi"}}
	if _, err := tm.Chat(msgs, ChatOptions{}); !errors.Is(err, jinja.ErrLimit) {
		t.Fatalf("uncancelled: %v, want a template limit", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = tm.ChatContext(ctx, msgs, ChatOptions{})
	if !errors.Is(err, context.Canceled) || errors.Is(err, jinja.ErrLimit) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}

	// The tools check renders again without the tools: a context that
	// ends during the first render stops the second.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	fast, err := Parse(`{% if tools %}{% for t in tools %}{{ t.function.name }}{% endfor %}{{ stop() }}{% else %}` + slowChat[:len(slowChat)-len("{{ messages[0].content }}")] + `{% endif %}`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fast.ChatContext(ctx, msgs, ChatOptions{
		Tools: []byte(`[{"type":"function","function":{"name":"f"}}]`),
		Extra: map[string]any{"stop": &jinja.Callable{Name: "stop", Fn: func(*jinja.Renderer, []any, []jinja.Kwarg) (any, error) {
			cancel()
			return "", nil
		}}},
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during the tools check: %v, want context.Canceled", err)
	}
}
