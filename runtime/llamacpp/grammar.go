//go:build !nollamacpp

package llamacpp

import (
	"fmt"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/toolcall"
)

// EnforcesToolChoice reports that tool_choice "required" and a named
// function are enforced: decoding is constrained by a grammar of the
// tools' calls (toolcall.Grammar) in the chat template's tool-call
// format, so the answer is a call. It needs a chat template.
func (r *Runtime) EnforcesToolChoice() bool { return r.chat.tmpl != nil }

// toolGrammar is the grammar a request's tool_choice asks for: none for
// "auto" and "none", one call of any tool for "required", one call of the
// named function for a named choice.
func (r *Runtime) toolGrammar(req runtime.Request) (string, error) {
	if !req.IsChat() || !toolcall.HasTools(req) {
		return "", nil
	}
	mode, name := toolcall.Choice(req.ToolChoice)
	if mode != "required" && mode != "named" {
		return "", nil
	}
	if r.chat.tmpl == nil {
		return "", fmt.Errorf("tool_choice %s: %w", mode, runtime.ErrNotSupported)
	}
	return toolcall.Grammar(toolcall.Detect(r.chat.tmpl.Source()), req.Tools, name)
}
