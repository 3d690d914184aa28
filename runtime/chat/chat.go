// Package chat holds what the runtimes and the chat template engine share:
// the chat message. It imports nothing, so runtime/chattemplate renders
// messages without importing the runtime interface above it; runtime.Message
// is this type.
package chat

// Message is one chat turn.
type Message struct {
	Role    string `json:"role"` // "system", "user", "assistant", "tool"
	Content string `json:"content"`
	// ToolCalls are the calls an assistant turn made (OpenAI's
	// tool_calls).
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and Name identify the call a "tool" turn answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Name       string `json:"name,omitempty"`
	// ReasoningContent is an assistant turn's reasoning, for templates
	// that render it (reasoning_content).
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// ToolCall is one function call: its name and its arguments as JSON text.
type ToolCall struct {
	ID        string `json:"id,omitempty"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}
