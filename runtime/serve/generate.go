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
	echo         bool        // completions: prepend the prompt to the text
	tools        toolRequest // chat: the validated tools
	seeded       bool        // the client gave a seed
}

// param is the request parameter an over-long prompt is blamed on.
func (c genCall) param() string {
	if c.chat {
		return "messages"
	}
	return "prompt"
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
	if !call.seeded {
		// Without a seed every request samples afresh (as OpenAI's API
		// does), so "regenerate" gives a new answer; the seed drawn is
		// reported, so the answer can be reproduced.
		req.Gen.Seed = h.newSeed()
	}
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
	if err == nil {
		err = call.tools.honoured(resp)
	}
	if err != nil {
		h.writeRuntimeError(w, r, err, call.param())
		return
	}
	h.count(w, resp)
	h.callIDs(&resp)
	choice := map[string]any{"index": 0, "finish_reason": resp.FinishReason, "logprobs": nil}
	if call.chat {
		msg := map[string]any{"role": "assistant", "content": resp.Text, "refusal": nil}
		if len(resp.ToolCalls) > 0 {
			if resp.Text == "" {
				msg["content"] = nil
			}
			if call.tools.legacy {
				c := resp.ToolCalls[0]
				msg["function_call"] = map[string]any{"name": c.Name, "arguments": c.Arguments}
				choice["finish_reason"] = "function_call"
			} else {
				msg["tool_calls"] = wireCalls(resp.ToolCalls)
				choice["finish_reason"] = "tool_calls"
			}
		}
		choice["message"] = msg
	} else {
		text := resp.Text
		if call.echo {
			text = req.Prompt + text
		}
		choice["text"] = text
	}
	body := map[string]any{
		"id": id, "object": object, "created": created, "model": h.model,
		"choices": []any{choice}, "usage": responseUsage(resp),
	}
	if t := runtime.ServerTimingsOf(resp); t != nil {
		body["timings"] = t
	}
	body["pocketeval"] = extension(req, resp)
	writeJSON(w, http.StatusOK, body)
}

// callIDs gives resp's tool calls ids unique across responses (and
// server restarts): runtimes number the calls of one answer from call_0
// (toolcall.Apply).
func (h *Handler) callIDs(resp *runtime.Response) {
	for i := range resp.ToolCalls {
		resp.ToolCalls[i].ID = fmt.Sprintf("call_%s%d", h.idBase, h.ids.Add(1))
	}
}

// Extension is the "pocketeval" member of a response: the seed the
// answer was sampled with (the client's, or the one drawn for a request
// without one), what the runtime rendered a chat request to
// (runtime.Response.RenderedPrompt) and, for an answer with tool calls,
// the whole text they were parsed out of (runtime.Response.Raw), so a
// remote run can record all three.
type Extension struct {
	Seed           int64  `json:"seed"`
	RenderedPrompt string `json:"rendered_prompt,omitempty"`
	RawText        string `json:"raw_text,omitempty"`
}

func extension(req runtime.Request, resp runtime.Response) *Extension {
	return &Extension{Seed: req.Gen.Seed, RenderedPrompt: resp.RenderedPrompt, RawText: resp.Raw}
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
//
// A chat request with tools is generated whole, then streamed as OpenAI
// streams tool calls: the content, then per call a delta with its index,
// id, type and name, then its arguments in fragments (delta.tool_calls),
// so the calls are those of the same request unstreamed. Calls can only
// be told from text once the model has finished writing them.
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
		ch := map[string]any{"index": 0, "finish_reason": finish, "logprobs": nil}
		if call.chat {
			ch["delta"] = delta
		} else {
			ch["text"] = *text
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
			return send(chunk(map[string]any{"role": "assistant", "content": "", "refusal": nil}, &empty, nil))
		case call.echo:
			return emit(req.Prompt)
		}
		return nil
	}
	var resp runtime.Response
	var err error
	if s, ok := h.rt.(Streamer); ok && len(call.tools.names) == 0 {
		resp, err = s.GenerateStream(r.Context(), req, func(piece string) error {
			if err := opening(); err != nil {
				return err
			}
			return emit(piece)
		})
	} else {
		resp, err = h.rt.Generate(r.Context(), req)
		if err == nil {
			err = call.tools.honoured(resp)
		}
		if err == nil {
			h.callIDs(&resp)
		}
		if err == nil && resp.Text != "" {
			if err = opening(); err == nil {
				err = emit(resp.Text)
			}
		}
		if err == nil && len(resp.ToolCalls) > 0 {
			if err = opening(); err == nil {
				err = h.streamCalls(send, chunk, call, resp.ToolCalls)
			}
		}
	}
	if err != nil {
		if !started {
			h.writeRuntimeError(w, r, err, call.param())
			return
		}
		if r.Context().Err() != nil {
			markCancelled(w)
			return
		}
		_ = send(map[string]any{"error": apiError{Message: fmt.Sprintf("generation failed: %v", err), Type: "server_error"}})
		return
	}
	h.count(w, resp)
	if err := opening(); err != nil {
		markCancelled(w)
		return
	}
	empty := ""
	finish := resp.FinishReason
	if len(resp.ToolCalls) > 0 {
		finish = "tool_calls"
		if call.tools.legacy {
			finish = "function_call"
		}
	}
	last := chunk(map[string]any{}, &empty, finish)
	if t := runtime.ServerTimingsOf(resp); t != nil {
		last["timings"] = t
	}
	last["pocketeval"] = extension(req, resp)
	if err := send(last); err != nil {
		markCancelled(w)
		return
	}
	if call.includeUsage {
		u := map[string]any{"id": id, "object": object, "created": created, "model": h.model, "choices": []any{}, "usage": responseUsage(resp)}
		if err := send(u); err != nil {
			markCancelled(w)
			return
		}
	}
	if _, err := fmt.Fprint(w, "data: [DONE]\n\n"); err == nil {
		_ = rc.Flush()
	}
}

// streamCalls sends tool calls as OpenAI streams them: for each, a delta
// with index, id, type, name and empty arguments, then the arguments in
// fragments; for the deprecated functions API, function_call deltas of
// the first call.
func (h *Handler) streamCalls(send func(any) error, chunk func(map[string]any, *string, any) map[string]any, call genCall, calls []runtime.ToolCall) error {
	if call.tools.legacy {
		c := calls[0]
		if err := send(chunk(map[string]any{"function_call": map[string]any{"name": c.Name, "arguments": ""}}, nil, nil)); err != nil {
			return err
		}
		for _, frag := range argumentFragments(c.Arguments) {
			if err := send(chunk(map[string]any{"function_call": map[string]any{"arguments": frag}}, nil, nil)); err != nil {
				return err
			}
		}
		return nil
	}
	for i, c := range calls {
		head := map[string]any{"index": i, "id": c.ID, "type": "function", "function": map[string]any{"name": c.Name, "arguments": ""}}
		if err := send(chunk(map[string]any{"tool_calls": []any{head}}, nil, nil)); err != nil {
			return err
		}
		for _, frag := range argumentFragments(c.Arguments) {
			part := map[string]any{"index": i, "function": map[string]any{"arguments": frag}}
			if err := send(chunk(map[string]any{"tool_calls": []any{part}}, nil, nil)); err != nil {
				return err
			}
		}
	}
	return nil
}
