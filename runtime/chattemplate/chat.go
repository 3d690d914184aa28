package chattemplate

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pocketeval/pocketeval/runtime/chat"
)

// Thinking selects a reasoning mode for templates that support one
// (Qwen3-style enable_thinking).
type Thinking string

// Thinking modes. The zero value is ThinkingModelDefault.
const (
	// ThinkingModelDefault leaves enable_thinking undefined: the template's
	// own default applies (Qwen3 thinks).
	ThinkingModelDefault Thinking = ""
	ThinkingOn           Thinking = "on"
	ThinkingOff          Thinking = "off"
)

// ParseThinking parses a --thinking value: on, off or model-default ("" is
// model-default too).
func ParseThinking(s string) (Thinking, error) {
	switch s {
	case "", "model-default":
		return ThinkingModelDefault, nil
	case "on":
		return ThinkingOn, nil
	case "off":
		return ThinkingOff, nil
	}
	return "", fmt.Errorf("thinking mode %q: want on, off or model-default", s)
}

// String returns the flag spelling: on, off or model-default.
func (m Thinking) String() string {
	if m == ThinkingModelDefault {
		return "model-default"
	}
	return string(m)
}

// ChatOptions are the variables of one chat render besides the messages.
// The zero value renders without a generation prompt, with bos_token and
// eos_token undefined, thinking at the template's default and the date of
// the call.
type ChatOptions struct {
	// AddGenerationPrompt appends the assistant turn's opening, as for
	// generation.
	AddGenerationPrompt bool
	// BOS and EOS are bos_token and eos_token; "" leaves them undefined (a
	// tokenizer without that token).
	BOS, EOS string
	// Thinking sets enable_thinking for templates that read it
	// (UsesThinking); other templates are rendered unchanged.
	Thinking Thinking
	// Now is what strftime_now formats; the zero value means time.Now().
	Now time.Time
	// Tools is an OpenAI tools array (JSON), rendered as tools with its
	// key order and number types kept; nil renders tools as None.
	Tools json.RawMessage
	// Extra holds further template keyword arguments; they override the
	// variables above.
	Extra map[string]any
}

// Chat renders a conversation with transformers' apply_chat_template
// variables: messages, add_generation_prompt, tools and documents (None),
// bos_token/eos_token, enable_thinking per o.Thinking, and o.Extra.
//
// Tools and tool calls reach the prompt or the render fails: when o.Tools
// offers functions or an assistant turn carries tool calls, Chat renders
// again without them and returns a *ToolsNotRenderedError if a function's
// name is not added by them (a template without a tools branch).
func (t *Template) Chat(msgs []chat.Message, o ChatOptions) (string, error) {
	return t.ChatContext(context.Background(), msgs, o)
}

// ChatContext is Chat, stopped when ctx is done (as a server's request
// is when its client goes away): the render ends at its next step with
// ctx's error.
func (t *Template) ChatContext(ctx context.Context, msgs []chat.Message, o ChatOptions) (string, error) {
	out, err := t.chat(ctx, msgs, o)
	if err != nil {
		return "", err
	}
	if err := t.checkToolsRendered(ctx, out, msgs, o); err != nil {
		return "", err
	}
	return out, nil
}

// chat is ChatContext without the tools check.
func (t *Template) chat(ctx context.Context, msgs []chat.Message, o ChatOptions) (string, error) {
	vars := map[string]any{
		"messages":              msgs,
		"add_generation_prompt": o.AddGenerationPrompt,
		"tools":                 nil,
		"documents":             nil,
	}
	if len(o.Tools) > 0 && string(o.Tools) != "null" {
		vars["tools"] = o.Tools
	}
	if o.BOS != "" {
		vars["bos_token"] = o.BOS
	}
	if o.EOS != "" {
		vars["eos_token"] = o.EOS
	}
	if t.UsesThinking() && o.Thinking != ThinkingModelDefault {
		vars["enable_thinking"] = o.Thinking == ThinkingOn
	}
	if !o.Now.IsZero() {
		vars["strftime_now"] = o.Now
	}
	for k, v := range o.Extra {
		vars[k] = v
	}
	return t.RenderContext(ctx, vars)
}

// ThinkingApplied describes what a thinking mode did to this template, for
// the run manifest: "enable_thinking=true", "enable_thinking=false", "the
// template's default" or "not supported by the template (ignored)".
func (t *Template) ThinkingApplied(m Thinking) string { return ThinkingApplied(t.UsesThinking(), m) }

// ThinkingApplied is Template.ThinkingApplied for a template that does or
// does not read enable_thinking (also for formats that are not Jinja).
func ThinkingApplied(usesThinking bool, m Thinking) string {
	switch {
	case !usesThinking && m != ThinkingModelDefault:
		return "not supported by the template (ignored)"
	case m == ThinkingOn:
		return "enable_thinking=true"
	case m == ThinkingOff:
		return "enable_thinking=false"
	}
	return "the template's default"
}

// ChatML is the plain ChatML template, used when a model ships none.
const ChatML = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
