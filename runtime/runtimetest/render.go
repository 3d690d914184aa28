package runtimetest

import (
	"context"
	"errors"
	"fmt"

	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/runtime"
)

// SlowChatTemplate is the chat template CheckRenderCancelled needs: it
// calls stop(), then loops ten times past jinja's step limit.
const SlowChatTemplate = `{{ stop() }}{% for i in range(100000) %}{% for j in range(100) %}{% endfor %}{% endfor %}{{ messages[0].content }}`

// CheckRenderCancelled checks that rt, which renders chat requests with
// SlowChatTemplate, stops a chat request's render when the request's
// context ends during it (pocketeval serve passes the HTTP request's,
// which ends when the client goes away), with the context's error: the
// template's stop() cancels the context. Uncancelled, the same render must
// end in a template limit, so that a render which ignored the context is
// told apart.
func CheckRenderCancelled(rt runtime.Runtime, req runtime.Request) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := func(f func()) map[string]any {
		return map[string]any{"stop": &jinja.Callable{Name: "stop", Fn: func(*jinja.Renderer, []any, []jinja.Kwarg) (any, error) {
			f()
			return "", nil
		}}}
	}
	req.TemplateKwargs = stop(cancel)
	if _, err := rt.Generate(ctx, req); !errors.Is(err, context.Canceled) || errors.Is(err, jinja.ErrLimit) {
		return fmt.Errorf("Generate cancelled during the render: %v, want context.Canceled", err)
	}
	req.TemplateKwargs = stop(func() {})
	if _, err := rt.Generate(context.Background(), req); !errors.Is(err, jinja.ErrLimit) {
		return fmt.Errorf("Generate: %v, want a template limit", err)
	}
	return nil
}
