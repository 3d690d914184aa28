package runtime

// ContextExceededError is a request whose prompt the runtime's context
// cannot hold (with room for one generated token). It wraps the runtime's
// own error (llamacpp.ErrPromptTooLong) and carries the two numbers a
// client needs, as llama-server's exceed_context_size_error does.
type ContextExceededError struct {
	PromptTokens int // tokens of the rendered prompt
	ContextSize  int // tokens the context holds
	Err          error
}

func (e *ContextExceededError) Error() string { return e.Err.Error() }
func (e *ContextExceededError) Unwrap() error { return e.Err }
