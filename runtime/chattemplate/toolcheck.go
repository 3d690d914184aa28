package chattemplate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/runtime/chat"
)

// ToolsNotRenderedError is a chat request whose tools, or whose earlier
// assistant tool calls, the template does not put into the prompt: a
// template without a tools branch (the ChatML fallback, Gemma 2) renders
// the conversation as if no function had been offered or called. The
// model would then answer a different question than the one asked, so
// Chat refuses such a request instead of rendering it.
type ToolsNotRenderedError struct {
	// Param names what did not reach the prompt the way OpenAI's API
	// names parameters: "tools" or "messages[3].tool_calls".
	Param string
	// Name is the function whose name is missing from the prompt.
	Name string
}

func (e *ToolsNotRenderedError) Error() string {
	if e.Param == "tools" {
		return fmt.Sprintf("the chat template does not render tools: the function %q offered in tools does not reach the prompt", e.Name)
	}
	return fmt.Sprintf("the chat template does not render tool calls: the call of %q in %s does not reach the prompt", e.Name, e.Param)
}

// toolNames returns the function names of an OpenAI tools array, in
// order; nil for an empty or unreadable one (the caller validated it).
func toolNames(tools json.RawMessage) []string {
	var list []struct {
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	}
	if json.Unmarshal(tools, &list) != nil {
		return nil
	}
	var names []string
	for _, t := range list {
		if t.Function.Name != "" {
			names = append(names, t.Function.Name)
		}
	}
	return names
}

// checkToolsRendered proves that out, the render of msgs with o, holds
// the request's tools and tool calls: every offered function's name occurs
// more often than in a render without tools, and every assistant turn's
// calls add their names over a render of that turn without them. A
// request without tools or calls costs nothing. A render stopped by ctx
// stops the check with ctx's error.
func (t *Template) checkToolsRendered(ctx context.Context, out string, msgs []chat.Message, o ChatOptions) error {
	if names := toolNames(o.Tools); len(names) > 0 {
		bare := o
		bare.Tools = nil
		without, err := t.chat(ctx, msgs, bare)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			// The template needs the tools to render at all: they
			// reached it, and its own checks ran.
			without = ""
		}
		for _, n := range names {
			if strings.Count(out, n) <= strings.Count(without, n) {
				return &ToolsNotRenderedError{Param: "tools", Name: n}
			}
		}
	}
	for i, m := range msgs {
		if len(m.ToolCalls) == 0 {
			continue
		}
		stripped := append([]chat.Message(nil), msgs...)
		stripped[i].ToolCalls = nil
		without, err := t.chat(ctx, stripped, o)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			without = ""
		}
		want := map[string]int{}
		for _, c := range m.ToolCalls {
			want[c.Name]++
		}
		for _, c := range m.ToolCalls {
			if strings.Count(out, c.Name)-strings.Count(without, c.Name) < want[c.Name] {
				return &ToolsNotRenderedError{Param: fmt.Sprintf("messages[%d].tool_calls", i), Name: c.Name}
			}
		}
	}
	return nil
}
