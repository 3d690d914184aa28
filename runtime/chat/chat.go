// Package chat holds what the runtimes and the chat template engine share:
// the chat message. It imports nothing, so runtime/chattemplate renders
// messages without importing the runtime interface above it; runtime.Message
// is this type.
package chat

// Message is one chat turn.
type Message struct {
	Role    string `json:"role"` // "system", "user", "assistant"
	Content string `json:"content"`
}
