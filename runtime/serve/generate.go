package serve

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/pocketeval/pocketeval/runtime"
)

type genCall struct {
	chat         bool
	stream       bool
	includeUsage bool
	echo         bool // completions: prepend the prompt to the text
}

// usage is OpenAI's usage object.
type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

func responseUsage(resp runtime.Response) usage {
	return usage{resp.PromptTokens, resp.CompletionTokens, resp.PromptTokens + resp.CompletionTokens}
}

func (h *Handler) generate(w http.ResponseWriter, r *http.Request, req runtime.Request, call genCall) {
	if !h.acquire(w, r) {
		return
	}
	defer h.release()
	prefix, object := "cmpl", "text_completion"
	if call.chat {
		prefix, object = "chatcmpl", "chat.completion"
	}
	id := h.newID(prefix)
	created := h.opts.Now().Unix()
	if call.stream {
		h.stream(w, r, req, call, id, object+".chunk", created)
		return
	}
	resp, err := h.rt.Generate(r.Context(), req)
	if err != nil {
		h.writeRuntimeError(w, r, err)
		return
	}
	h.count(w, resp)
	choice := map[string]any{"index": 0, "finish_reason": resp.FinishReason}
	if call.chat {
		msg := map[string]any{"role": "assistant", "content": resp.Text}
		if len(resp.ToolCalls) > 0 {
			calls := make([]any, len(resp.ToolCalls))
			for i, c := range resp.ToolCalls {
				calls[i] = map[string]any{"id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": c.Arguments}}
			}
			msg["tool_calls"] = calls
			if resp.Text == "" {
				msg["content"] = nil
			}
			choice["finish_reason"] = "tool_calls"
		}
		choice["message"] = msg
	} else {
		text := resp.Text
		if call.echo {
			text = req.Prompt + text
		}
		choice["text"] = text
		choice["logprobs"] = nil
	}
	body := map[string]any{
		"id": id, "object": object, "created": created, "model": h.model,
		"choices": []any{choice}, "usage": responseUsage(resp),
	}
	if t := runtime.ServerTimingsOf(resp); t != nil {
		body["timings"] = t
	}
	if x := extension(resp); x != nil {
		body["pocketeval"] = x
	}
	writeJSON(w, http.StatusOK, body)
}

// Extension is the "pocketeval" member of a response: what the runtime
// rendered a chat request to (runtime.Response.RenderedPrompt), so a
// remote run can record it.
type Extension struct {
	RenderedPrompt string `json:"rendered_prompt,omitempty"`
}

// extension returns the response's "pocketeval" member, nil when empty.
func extension(resp runtime.Response) *Extension {
	if resp.RenderedPrompt == "" {
		return nil
	}
	return &Extension{RenderedPrompt: resp.RenderedPrompt}
}

func (h *Handler) count(w http.ResponseWriter, resp runtime.Response) {
	if rec, ok := w.(*recorder); ok {
		rec.promptTokens, rec.completionTokens = resp.PromptTokens, resp.CompletionTokens
	}
}

// stream answers with server-sent events: text deltas as the runtime
// produces them (all at once unless it is a Streamer), a final chunk with
// the finish reason and engine timings, a usage chunk when asked, and
// "data: [DONE]". An error after the headers are sent becomes an error
// event and the stream ends without [DONE], which clients treat as a
// failed request.
func (h *Handler) stream(w http.ResponseWriter, r *http.Request, req runtime.Request, call genCall, id, object string, created int64) {
	rc := http.NewResponseController(w)
	started := false
	start := func() {
		if started {
			return
		}
		started = true
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
	}
	send := func(v any) error {
		start()
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return err
		}
		return rc.Flush()
	}
	chunk := func(delta map[string]any, text *string, finish any) map[string]any {
		ch := map[string]any{"index": 0, "finish_reason": finish}
		if call.chat {
			ch["delta"] = delta
		} else {
			ch["text"] = *text
			ch["logprobs"] = nil
		}
		return map[string]any{"id": id, "object": object, "created": created, "model": h.model, "choices": []any{ch}}
	}
	emit := func(piece string) error {
		return send(chunk(map[string]any{"content": piece}, &piece, nil))
	}
	first := true
	opening := func() error {
		if !first {
			return nil
		}
		first = false
		switch {
		case call.chat:
			empty := ""
			return send(chunk(map[string]any{"role": "assistant", "content": ""}, &empty, nil))
		case call.echo:
			return emit(req.Prompt)
		}
		return nil
	}
	var resp runtime.Response
	var err error
	if s, ok := h.rt.(Streamer); ok {
		resp, err = s.GenerateStream(r.Context(), req, func(piece string) error {
			if err := opening(); err != nil {
				return err
			}
			return emit(piece)
		})
	} else {
		resp, err = h.rt.Generate(r.Context(), req)
		if err == nil && resp.Text != "" {
			if err = opening(); err == nil {
				err = emit(resp.Text)
			}
		}
	}
	if err != nil {
		if !started {
			h.writeRuntimeError(w, r, err)
			return
		}
		_ = send(map[string]any{"error": apiError{Message: fmt.Sprintf("generation failed: %v", err), Type: "server_error"}})
		return
	}
	h.count(w, resp)
	if err := opening(); err != nil {
		return
	}
	empty := ""
	last := chunk(map[string]any{}, &empty, resp.FinishReason)
	if t := runtime.ServerTimingsOf(resp); t != nil {
		last["timings"] = t
	}
	if x := extension(resp); x != nil {
		last["pocketeval"] = x
	}
	if err := send(last); err != nil {
		return
	}
	if call.includeUsage {
		u := map[string]any{"id": id, "object": object, "created": created, "model": h.model, "choices": []any{}, "usage": responseUsage(resp)}
		if err := send(u); err != nil {
			return
		}
	}
	if _, err := fmt.Fprint(w, "data: [DONE]\n\n"); err == nil {
		_ = rc.Flush()
	}
}
