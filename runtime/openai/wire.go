package openai

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// maxBody bounds how much of a response is read (a runaway server must not
// exhaust memory).
const maxBody = 64 << 20

type wireMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Name       string         `json:"name,omitempty"`
}

// wireToolCall is an OpenAI tool call; arguments are a JSON string.
type wireToolCall struct {
	ID       string `json:"id,omitempty"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// wireResponse covers the chat and completions responses, streamed chunks
// included.
type wireResponse struct {
	Choices []wireChoice           `json:"choices"`
	Usage   *wireUsage             `json:"usage"`
	Timings *runtime.ServerTimings `json:"timings"`
	Error   *wireError             `json:"error"`
	// Pocketeval is `pocketeval serve`'s extension: the prompt its
	// runtime rendered a chat request to, and the whole generated text
	// its tool calls were parsed out of.
	Pocketeval *struct {
		RenderedPrompt string `json:"rendered_prompt"`
		RawText        string `json:"raw_text"`
	} `json:"pocketeval"`
}

type wireChoice struct {
	Index        int           `json:"index"`
	Text         *string       `json:"text"`
	FinishReason *string       `json:"finish_reason"`
	Message      *wireContent  `json:"message"`
	Delta        *wireContent  `json:"delta"`
	Logprobs     *wireLogprobs `json:"logprobs"`
}

// wireContent is a chat message or delta. Servers that parse reasoning
// models' thinking (llama.cpp --reasoning-format, vLLM reasoning parsers)
// move it to reasoning_content (or reasoning).
type wireContent struct {
	Content          *string        `json:"content"`
	ToolCalls        []wireToolCall `json:"tool_calls"`
	ReasoningContent *string        `json:"reasoning_content"`
	Reasoning        *string        `json:"reasoning"`
}

func (w *wireContent) reasoning() string {
	switch {
	case w.ReasoningContent != nil:
		return *w.ReasoningContent
	case w.Reasoning != nil:
		return *w.Reasoning
	}
	return ""
}

// withThinking puts thinking a server split off back in front of the
// answer, in the <think> form reasoning models emit, so the response is
// the model's whole output and --strip-thinking treats it as for any
// other runtime.
func withThinking(reasoning, text string) string {
	if reasoning == "" {
		return text
	}
	return "<think>\n" + strings.Trim(reasoning, "\n") + "\n</think>\n\n" + text
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

type wireError struct {
	Message string `json:"message"`
	Type    string `json:"type"`
	Code    any    `json:"code"`
}

// wireLogprobs is the completions endpoint's logprobs object.
type wireLogprobs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogprobs []*float64           `json:"token_logprobs"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}

// APIError is a non-200 answer from the server.
type APIError struct {
	StatusCode int
	Type       string // the OpenAI error type, if the body had one
	Code       string // the OpenAI error code, if any
	Message    string // the server's message, or the start of its body
	// RetryAfter is the delay the server asked for (Retry-After or
	// retry-after-ms); zero if none.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	return fmt.Sprintf("server returned %d: %s", e.StatusCode, msg)
}

// Temporary reports whether retrying may succeed.
func (e *APIError) Temporary() bool {
	switch {
	case e.StatusCode == http.StatusTooManyRequests, e.StatusCode == http.StatusRequestTimeout:
		return true
	case e.StatusCode == http.StatusNotImplemented:
		return false
	case e.StatusCode >= 500:
		return true
	}
	return false
}

func newAPIError(resp *http.Response) *APIError {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &APIError{StatusCode: resp.StatusCode, RetryAfter: parseRetryAfter(resp.Header, time.Now())}
	var w struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(raw, &w) == nil && len(w.Error) > 0 {
		var we wireError
		if json.Unmarshal(w.Error, &we) == nil && we.Message != "" {
			e.Message, e.Type = we.Message, we.Type
			if we.Code != nil {
				e.Code = fmt.Sprint(we.Code)
			}
			return e
		}
		var s string
		if json.Unmarshal(w.Error, &s) == nil {
			e.Message = s
			return e
		}
	}
	e.Message = strings.TrimSpace(string(raw))
	if len(e.Message) > 300 {
		e.Message = e.Message[:300] + "…"
	}
	return e
}

// readJSON decodes a non-streamed response.
func readJSON(r io.Reader, chat bool) (result, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxBody))
	if err != nil {
		return result{}, readError(err)
	}
	var w wireResponse
	if err := json.Unmarshal(data, &w); err != nil {
		return result{}, &retryableError{err: fmt.Errorf("malformed JSON response: %w", err)}
	}
	if w.Error != nil && w.Error.Message != "" {
		return result{}, &retryableError{err: fmt.Errorf("server error in response: %s", w.Error.Message)}
	}
	if len(w.Choices) == 0 {
		return result{}, &retryableError{err: errors.New("malformed response: no choices")}
	}
	ch := w.Choices[0]
	var res result
	switch {
	case chat && ch.Message != nil && (ch.Message.Content != nil || ch.Message.reasoning() != "" || len(ch.Message.ToolCalls) > 0):
		if ch.Message.Content != nil {
			res.text = *ch.Message.Content
		}
		res.text = withThinking(ch.Message.reasoning(), res.text)
		for _, tc := range ch.Message.ToolCalls {
			res.toolCalls = append(res.toolCalls, runtime.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
	case !chat && ch.Text != nil:
		res.text = *ch.Text
	case chat && ch.Message == nil:
		return result{}, &retryableError{err: errors.New("malformed response: choice has no message")}
	case chat:
		// "content": null (or absent) with no reasoning either: no
		// answer at all, which must not be scored as an empty one. An
		// empty answer is "content": "".
		return result{}, &retryableError{err: errors.New("malformed response: message content is null")}
	default:
		return result{}, &retryableError{err: errors.New("malformed response: choice has no text")}
	}
	if ch.FinishReason != nil {
		res.finish = *ch.FinishReason
	}
	if w.Usage != nil {
		res.promptTokens, res.completionTokens = w.Usage.PromptTokens, w.Usage.CompletionTokens
	}
	res.server = w.Timings
	if w.Pocketeval != nil && chat {
		res.rendered = w.Pocketeval.RenderedPrompt
		if len(res.toolCalls) > 0 {
			res.raw = w.Pocketeval.RawText
		}
	}
	return res, nil
}

// readStream decodes a server-sent-event stream of chunks. It requires the
// stream to end with "data: [DONE]" or, for servers that omit it, at least
// a finish reason; anything shorter is a truncated stream (retryable).
func readStream(r io.Reader, chat bool, start time.Time) (result, error) {
	br := bufio.NewReaderSize(io.LimitReader(r, maxBody), 32<<10)
	var (
		res      result
		text     strings.Builder
		thinking strings.Builder
		data     strings.Builder
		haveData bool
		finished bool
		// sawChoice: some chunk carried choice 0. Null or absent
		// content in a chunk is normal (role-only first chunks, the
		// final chunk), so an empty answer is a stream of such chunks;
		// a stream with no choice at all answered nothing.
		sawChoice bool
	)
	noChoice := &retryableError{err: errors.New("malformed stream: stream carried no choice")}
	handle := func(payload string) (done bool, err error) {
		if strings.TrimSpace(payload) == "[DONE]" {
			return true, nil
		}
		var w wireResponse
		if err := json.Unmarshal([]byte(payload), &w); err != nil {
			return false, &retryableError{err: fmt.Errorf("malformed JSON in stream: %w", err)}
		}
		if w.Error != nil && w.Error.Message != "" {
			return false, &retryableError{err: fmt.Errorf("server error in stream: %s", w.Error.Message)}
		}
		for _, ch := range w.Choices {
			if ch.Index != 0 {
				continue
			}
			sawChoice = true
			var piece *string
			if chat && ch.Delta != nil {
				piece = ch.Delta.Content
				if r := ch.Delta.reasoning(); r != "" {
					if text.Len() == 0 && thinking.Len() == 0 {
						res.ttft = time.Since(start)
					}
					thinking.WriteString(r)
				}
			} else if !chat {
				piece = ch.Text
			}
			if piece != nil && *piece != "" {
				if text.Len() == 0 && thinking.Len() == 0 {
					res.ttft = time.Since(start)
				}
				text.WriteString(*piece)
			}
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				res.finish = *ch.FinishReason
				finished = true
			}
		}
		if w.Usage != nil {
			res.promptTokens, res.completionTokens = w.Usage.PromptTokens, w.Usage.CompletionTokens
		}
		if w.Timings != nil {
			res.server = w.Timings
		}
		if w.Pocketeval != nil && chat {
			res.rendered = w.Pocketeval.RenderedPrompt
		}
		return false, nil
	}
	for {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return result{}, readError(err)
		}
		eof := err == io.EOF
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "" && !eof:
			// End of an event.
			if haveData {
				done, herr := handle(data.String())
				if herr != nil {
					return result{}, herr
				}
				if done {
					if !sawChoice {
						return result{}, noChoice
					}
					res.text = withThinking(thinking.String(), text.String())
					return res, nil
				}
				data.Reset()
				haveData = false
			}
		case strings.HasPrefix(line, ":"):
			// Comment (keep-alive).
		case strings.HasPrefix(line, "data:"):
			v := strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " ")
			if haveData {
				data.WriteByte('\n')
			}
			data.WriteString(v)
			haveData = true
		default:
			// event:, id:, retry: and unknown fields are ignored.
		}
		if eof {
			if haveData {
				done, herr := handle(data.String())
				if herr != nil {
					return result{}, herr
				}
				if done {
					finished = true
				}
			}
			if !finished {
				return result{}, &retryableError{err: errors.New("truncated stream: ended before a finish reason or [DONE]")}
			}
			if !sawChoice {
				return result{}, noChoice
			}
			res.text = withThinking(thinking.String(), text.String())
			return res, nil
		}
	}
}

// readError classifies an error while reading a body: context errors pass
// through; anything else (reset, unexpected EOF) is retryable.
func readError(err error) error {
	return transportError(err)
}
