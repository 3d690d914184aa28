package serve

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/runtime"
)

// notUTF8Error is a request body that is not UTF-8 text. JSON is UTF-8
// (RFC 8259) and encoding/json would turn the bad bytes into U+FFFD
// silently, so the model would see text the client never sent.
type notUTF8Error struct{ offset int }

func (e *notUTF8Error) Error() string {
	return fmt.Sprintf("request body is not valid UTF-8 (first bad byte at offset %d)", e.offset)
}

// readUTF8Body reads a whole request body (already bounded by
// MaxBytesReader) and refuses one that is not valid UTF-8.
func readUTF8Body(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if !utf8.Valid(b) {
		off := 0
		for off < len(b) {
			_, size := utf8.DecodeRune(b[off:])
			if size == 1 && b[off] >= utf8.RuneSelf {
				break
			}
			off += size
		}
		return nil, &notUTF8Error{offset: off}
	}
	return b, nil
}

// writeNotUTF8 answers 400 for a body that is not UTF-8 and reports
// whether it did.
func writeNotUTF8(w http.ResponseWriter, err error) bool {
	var ne *notUTF8Error
	if !errors.As(err, &ne) {
		return false
	}
	writeError(w, http.StatusBadRequest, "invalid_request_error", "", ne.Error())
	return true
}

// writeContextExceeded answers a prompt longer than the context as
// OpenAI does — 400, type invalid_request_error, code
// context_length_exceeded, param naming the prompt ("messages" for chat),
// on which apps trim their history — with llama-server's n_prompt_tokens
// and n_ctx added; it reports whether err was one.
func writeContextExceeded(w http.ResponseWriter, err error, param string) bool {
	var ce *runtime.ContextExceededError
	if !errors.As(err, &ce) {
		return false
	}
	e := map[string]any{
		"message":         fmt.Sprintf("This model's maximum context length is %d tokens. However, your request has %d prompt tokens (with room for at least one generated token). Please reduce the length of the %s.", ce.ContextSize, ce.PromptTokens, param),
		"type":            "invalid_request_error",
		"param":           nil,
		"code":            "context_length_exceeded",
		"n_prompt_tokens": ce.PromptTokens,
		"n_ctx":           ce.ContextSize,
	}
	if param != "" {
		e["param"] = param
	}
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": e})
	return true
}
