// Package serve exposes any runtime.Runtime as an OpenAI-compatible HTTP
// API, so a model running on a phone or a board can be evaluated from a
// workstation with the openai runtime (or any OpenAI client):
//
//	GET  /health                 {"status":"ok"}
//	GET  /v1/models              the one served model
//	POST /v1/chat/completions    chat, with "stream": true as server-sent events
//	POST /v1/completions         raw prompts (echo supported; per-token logprobs are not)
//	POST /v1/loglikelihood       pocketeval extension: exact log-likelihoods when
//	                             the runtime is a runtime.LogLikelihooder
//	POST /v1/loglikelihood_rolling  pocketeval extension: whole-text log-likelihoods
//	                             (rolling.go) when it is a runtime.RollingLoglikelihooder
//
// Every path is also served without the /v1 prefix. Responses carry the
// engine's own timings in llama.cpp's "timings" format, so the client can
// report on-device prefill and decode speed without the network in them.
//
// Generations are bounded by Options.MaxConcurrent; up to Options.MaxQueue
// more requests wait for a slot and the rest get 429 with a Retry-After
// estimated from the durations of recent generations (load.go).
// Invalid requests get 400 with an OpenAI-style error body naming the
// offending parameter. Sampling parameters the runtime cannot honour
// (n > 1, penalties, logit_bias, per-token logprobs) are rejected rather
// than ignored: an evaluation must not silently run with settings other
// than asked. A request without a seed samples with a fresh one, reported
// in the response's "pocketeval" member.
//
// Tools (tools.go) are validated as OpenAI validates them, the deprecated
// functions/function_call mapped to them, and they reach the runtime's
// chat template or the request is refused (chattemplate's
// ToolsNotRenderedError becomes a 400); tool_choice "required" or a named
// function needs a runtime that enforces it (ToolChoiceEnforcer). Tool
// calls get ids unique across responses and stream as OpenAI streams
// them.
//
// A chat request's "chat_template_kwargs" (an object, as llama-server,
// vLLM and SGLang take it: {"enable_thinking": false}) reaches the
// runtime's chat template as extra variables over the runtime's own
// (runtime.Request.TemplateKwargs; enable_thinking overrides the served
// --thinking), every member as given, as llama-server passes them, except
// that enable_thinking must be a boolean. A runtime that renders no
// template refuses them (400) unless it forwards them (KwargsForwarder).
// Chat responses carry the prompt the runtime rendered, when it reports
// one, in a "pocketeval": {"rendered_prompt": ...} member (the last chunk
// of a stream), which the openai runtime records in the samples.
//
// The package intentionally does not template chats itself, count tokens or
// authenticate users beyond one optional shared key: it is a bridge for
// evaluation on a trusted network, not a production inference server.
package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/runtime/openai"
)

// Streamer is implemented by runtimes that can report text as it is
// decoded. Without it a streamed response sends the whole text in one
// chunk when generation ends.
type Streamer interface {
	// GenerateStream is Generate that calls emit with each new piece of
	// text, in order; an error from emit aborts the generation.
	GenerateStream(ctx context.Context, req runtime.Request, emit func(delta string) error) (runtime.Response, error)
}

// Options configure a Handler. The zero value of each field is documented.
type Options struct {
	// Model is the name reported by /v1/models and in responses. Empty
	// means the runtime's Describe().Model, else "pocketeval".
	Model string
	// MaxConcurrent bounds generations in flight; zero means 1 (an
	// on-device engine usually runs one sequence at a time).
	MaxConcurrent int
	// MaxQueue bounds requests waiting for a generation slot; beyond it
	// requests get 429. Zero means 64.
	MaxQueue int
	// MaxBodyBytes bounds a request body; zero means 8 MiB.
	MaxBodyBytes int64
	// BodyTimeout bounds the time to receive a request body, from when
	// the handler starts reading it; a client that has not sent the whole
	// body by then gets 408 and the connection is closed. The deadline
	// ends with the body, so it never limits a generation. Zero means 60
	// seconds (8 MiB at 140 KB/s). Headers are bounded by Serve's
	// ReadHeaderTimeout.
	BodyTimeout time.Duration
	// APIKey, when set, is required as "Authorization: Bearer <key>" on
	// every path except /health. Empty means no authentication.
	APIKey string
	// Log receives one line per request (method, path, status, duration,
	// token counts; never prompt or response text). Nil means no logging.
	Log *slog.Logger
	// Now is the clock for "created" timestamps and the durations behind
	// Retry-After; nil means time.Now.
	Now func() time.Time
	// CORSOrigins are the browser origins allowed to call the API
	// ("https://app.example", or "*" for any), answered with CORS headers
	// and preflight (OPTIONS) responses, as llama-server's --cors-origin
	// does. Empty means no CORS headers: browsers then refuse the answers
	// of another origin.
	CORSOrigins []string
	// Seed draws the seed of a request that gives none; nil means a
	// random one from crypto/rand. Tests pin it.
	Seed func() int64
}

// KwargsForwarder is implemented by runtimes that render no chat template
// themselves but pass a request's TemplateKwargs on to one that does (the
// openai runtime sends them to its server): ForwardsTemplateKwargs says
// whether it will.
type KwargsForwarder interface {
	ForwardsTemplateKwargs() bool
}

// takesTemplateKwargs reports whether rt applies a request's
// TemplateKwargs: it renders chat templates (runtime.ChatTemplater) or
// passes them on.
func takesTemplateKwargs(rt runtime.Runtime) bool {
	if _, ok := rt.(runtime.ChatTemplater); ok {
		return true
	}
	f, ok := rt.(KwargsForwarder)
	return ok && f.ForwardsTemplateKwargs()
}

// Handler serves a runtime. It is safe for concurrent use.
type Handler struct {
	rt      runtime.Runtime
	opts    Options
	model   string
	slots   chan struct{}
	waiting atomic.Int64
	idBase  string
	ids     atomic.Uint64
	mux     *http.ServeMux
	load    load
}

var _ http.Handler = (*Handler)(nil)

// New returns a Handler serving rt. The caller keeps ownership of rt and
// closes it after the server has shut down.
func New(rt runtime.Runtime, opts Options) *Handler {
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = 1
	}
	if opts.MaxQueue <= 0 {
		opts.MaxQueue = 64
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 8 << 20
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = 60 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	h := &Handler{rt: rt, opts: opts, model: opts.Model, slots: make(chan struct{}, opts.MaxConcurrent)}
	if h.model == "" {
		if d, ok := rt.(runtime.Describer); ok {
			h.model = ServedName(d.Describe().Model)
		}
	}
	if h.model == "" {
		h.model = "pocketeval"
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	h.idBase = hex.EncodeToString(b[:])

	h.mux = http.NewServeMux()
	for _, prefix := range []string{"", "/v1"} {
		h.mux.HandleFunc("GET "+prefix+"/models", h.models)
		h.mux.HandleFunc("GET "+prefix+"/models/{id...}", h.modelByID)
		h.mux.HandleFunc("POST "+prefix+"/chat/completions", h.chat)
		h.mux.HandleFunc("POST "+prefix+"/completions", h.completions)
		h.mux.HandleFunc("POST "+prefix+"/loglikelihood", h.loglikelihood)
		h.mux.HandleFunc("POST "+prefix+"/loglikelihood_rolling", h.loglikelihoodRolling)
	}
	h.mux.HandleFunc("GET /health", h.health)
	// A known path with the wrong method: ServeMux would answer 405 in
	// plain text; clients expect JSON.
	for _, p := range []string{"/health", "/models", "/v1/models", "/chat/completions", "/v1/chat/completions", "/completions", "/v1/completions", "/loglikelihood", "/v1/loglikelihood", "/loglikelihood_rolling", "/v1/loglikelihood_rolling"} {
		h.mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
			writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", fmt.Sprintf("method %s not allowed on %s", r.Method, r.URL.Path))
		})
	}
	h.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "", fmt.Sprintf("unknown endpoint %s %s", r.Method, r.URL.Path))
	})
	return h
}

// Model is the name the model is served under.
func (h *Handler) Model() string { return h.model }

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.opts.Now()
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	defer func() {
		if h.opts.Log != nil {
			status := rec.status
			if rec.cancelled {
				status = statusCancelled
			}
			h.opts.Log.Info("request", "method", r.Method, "path", r.URL.Path, "status", status,
				"duration", h.opts.Now().Sub(start).Round(time.Millisecond), "prompt_tokens", rec.promptTokens, "completion_tokens", rec.completionTokens)
		}
	}()
	if h.cors(rec, r) && r.Method == http.MethodOptions {
		h.preflight(rec, r)
		return
	}
	if h.opts.APIKey != "" && r.URL.Path != "/health" && !h.authorized(r) {
		writeError(rec, http.StatusUnauthorized, "invalid_request_error", "", "missing or wrong API key (Authorization: Bearer ...)")
		return
	}
	h.mux.ServeHTTP(rec, r)
}

func (h *Handler) authorized(r *http.Request) bool {
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(got), []byte(h.opts.APIKey)) == 1
}

func (h *Handler) health(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// models lists the served model. Its "pocketeval" object describes the
// runtime (engine, version, settings) so a remote run's manifest can
// record what actually produced the answers.
func (h *Handler) models(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": []any{h.modelObject()}})
}

// modelByID answers GET /v1/models/{id}: the served model, or 404 as
// OpenAI answers a model that does not exist.
func (h *Handler) modelByID(w http.ResponseWriter, r *http.Request) {
	if id := r.PathValue("id"); id != h.model {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": map[string]any{
			"message": fmt.Sprintf("The model %q does not exist; this server serves %q", id, h.model),
			"type":    "invalid_request_error", "param": "model", "code": "model_not_found",
		}})
		return
	}
	writeJSON(w, http.StatusOK, h.modelObject())
}

// modelObject is the served model as OpenAI describes one. Its
// "pocketeval" member is the runtime's Describe() with the model given
// by its file name and without paths of the server's file system.
func (h *Handler) modelObject() map[string]any {
	m := map[string]any{"id": h.model, "object": "model", "created": 0, "owned_by": "pocketeval"}
	if d, ok := h.rt.(runtime.Describer); ok {
		info := d.Describe()
		info.Model = ServedName(info.Model)
		if info.Settings != nil {
			settings := make(map[string]any, len(info.Settings))
			for k, v := range info.Settings {
				if k != "lib_dir" {
					settings[k] = v
				}
			}
			info.Settings = settings
		}
		m["pocketeval"] = info
	}
	return m
}

// ServedName is the name a model is served under when no name is given:
// for a file (an absolute path, or one that exists) the file's name
// without its extension (an MNN package's directory name), never its path
// on the server; a name that is not a file (a remote server's model, such
// as "Qwen/Qwen2.5-0.5B-Instruct") is kept.
func ServedName(model string) string {
	if model == "" {
		return ""
	}
	if _, err := os.Stat(model); err != nil && !filepath.IsAbs(model) {
		return model
	}
	base := filepath.Base(model)
	if base == "config.json" || base == "llm_config.json" {
		base = filepath.Base(filepath.Dir(model))
	}
	if ext := filepath.Ext(base); ext == ".gguf" || ext == ".json" {
		base = strings.TrimSuffix(base, ext)
	}
	return base
}

// acquire waits for a generation slot. It returns false after answering
// the request itself (429 when the queue is full; nothing when the client
// went away).
func (h *Handler) acquire(w http.ResponseWriter, r *http.Request) bool {
	select {
	case h.slots <- struct{}{}:
		h.load.start(h.opts.Now())
		return true
	default:
	}
	if h.waiting.Add(1) > int64(h.opts.MaxQueue) {
		h.waiting.Add(-1)
		after := h.load.retryAfter(h.opts.Now(), h.opts.MaxConcurrent, h.opts.MaxQueue)
		w.Header().Set("Retry-After", strconv.Itoa(after))
		writeError(w, http.StatusTooManyRequests, "rate_limit_error", "", fmt.Sprintf("server busy: %d generations running and %d queued; retry in about %d s", h.opts.MaxConcurrent, h.opts.MaxQueue, after))
		return false
	}
	defer h.waiting.Add(-1)
	select {
	case h.slots <- struct{}{}:
		h.load.start(h.opts.Now())
		return true
	case <-r.Context().Done():
		markCancelled(w)
		return false
	}
}

func (h *Handler) release() {
	h.load.done(h.opts.Now())
	<-h.slots
}

// newSeed draws the seed of a request that gives none: positive and
// below 2^31, so every runtime takes it as it is.
func (h *Handler) newSeed() int64 {
	if h.opts.Seed != nil {
		return h.opts.Seed()
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	return int64(binary.BigEndian.Uint32(b[:])>>1) | 1
}

func (h *Handler) newID(prefix string) string {
	return fmt.Sprintf("%s-%s%d", prefix, h.idBase, h.ids.Add(1))
}

func (h *Handler) chat(w http.ResponseWriter, r *http.Request) {
	var body chatRequest
	if !h.decode(w, r, &body) {
		return
	}
	cc, verr := body.toRequest()
	if verr != nil {
		writeValidation(w, verr)
		return
	}
	if cc.req.TemplateKwargs != nil && !takesTemplateKwargs(h.rt) {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "chat_template_kwargs", "chat_template_kwargs: this server's runtime does not render chat templates")
		return
	}
	if (cc.tools.mode == choiceRequired || cc.tools.mode == choiceNamed) && !enforcesToolChoice(h.rt) {
		param := "tool_choice"
		if cc.tools.legacy {
			param = "function_call"
		}
		writeError(w, http.StatusBadRequest, "invalid_request_error", param, param+": this server's runtime cannot force a function call (it cannot constrain decoding); use \"auto\"")
		return
	}
	h.generate(w, r, cc.req, genCall{chat: true, stream: cc.stream, includeUsage: cc.includeUsage, tools: cc.tools, seeded: cc.seeded})
}

func (h *Handler) completions(w http.ResponseWriter, r *http.Request) {
	var body completionRequest
	if !h.decode(w, r, &body) {
		return
	}
	req, verr := body.toRequest()
	if verr != nil {
		writeValidation(w, verr)
		return
	}
	if body.Logprobs != nil && *body.Logprobs > 0 {
		// 400, not 501: the request cannot succeed as sent, and clients
		// retry 5xx answers.
		msg := "per-token logprobs are not available from this server"
		if _, ok := h.rt.(runtime.LogLikelihooder); ok {
			msg += "; use POST /v1/loglikelihood for exact log-likelihoods"
		}
		writeError(w, http.StatusBadRequest, "invalid_request_error", "logprobs", msg)
		return
	}
	stream := body.Stream
	includeUsage := body.StreamOptions != nil && body.StreamOptions.IncludeUsage
	h.generate(w, r, req, genCall{chat: false, stream: stream, includeUsage: includeUsage, echo: body.Echo, seeded: body.Seed != nil})
}

func (h *Handler) loglikelihood(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model    string                  `json:"model"`
		Requests []runtime.LoglikRequest `json:"requests"`
	}
	if !h.decode(w, r, &body) {
		return
	}
	ll, ok := h.rt.(runtime.LogLikelihooder)
	if !ok {
		writeError(w, http.StatusNotImplemented, "invalid_request_error", "", "this runtime cannot compute log-likelihoods")
		return
	}
	if body.Requests == nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "requests", "is required (an array; empty asks whether log-likelihoods are available)")
		return
	}
	for i, q := range body.Requests {
		if q.Context == "" {
			writeError(w, http.StatusBadRequest, "invalid_request_error", fmt.Sprintf("requests[%d].context", i), "context must not be empty")
			return
		}
	}
	if len(body.Requests) == 0 {
		writeJSON(w, http.StatusOK, map[string]any{"object": "loglikelihood", "model": h.model, "results": []runtime.LoglikResult{}})
		return
	}
	if !h.acquire(w, r) {
		return
	}
	res, err := ll.LogLikelihood(r.Context(), body.Requests)
	h.release()
	if err != nil {
		h.writeRuntimeError(w, r, err, "requests")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "loglikelihood", "model": h.model, "results": res})
}

// decode reads a JSON body; on failure it answers 400 and returns false.
func (h *Handler) decode(w http.ResponseWriter, r *http.Request, v any) bool {
	// The content type is not checked: `curl -d` sends form encoding
	// with a JSON body, and OpenAI-compatible servers accept that.
	//
	// The body must arrive within BodyTimeout. The deadline is set on the
	// connection for the body only and cleared once it is read: a
	// server-wide http.Server.ReadTimeout would also fire during a long
	// generation and cancel it (net/http cancels the request context on
	// any read error of the connection). Without a connection (a
	// ResponseWriter that is not net/http's) there is no deadline.
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(h.opts.BodyTimeout)) == nil {
		defer func() { _ = rc.SetReadDeadline(time.Time{}) }()
	}
	body, err := readUTF8Body(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	dec := json.NewDecoder(bytes.NewReader(body))
	if err == nil {
		err = dec.Decode(v)
	}
	if err != nil {
		if writeNotUTF8(w, err) {
			return false
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "", fmt.Sprintf("request body larger than %d bytes", mbe.Limit))
			return false
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			w.Header().Set("Connection", "close")
			writeError(w, http.StatusRequestTimeout, "invalid_request_error", "", fmt.Sprintf("request body not received within %s", h.opts.BodyTimeout))
			return false
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			field := strings.TrimPrefix(te.Field, "sampling.") // the embedded struct's name is not part of the API
			writeError(w, http.StatusBadRequest, "invalid_request_error", field, fmt.Sprintf("%s: must be %s, not %s", field, jsonKind(te.Type.Kind().String()), te.Value))
			return false
		}
		var ve *validationError
		if errors.As(err, &ve) {
			writeValidation(w, ve)
			return false
		}
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", fmt.Sprintf("invalid JSON body: %v", err))
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "invalid JSON body: data after the object")
		return false
	}
	return true
}

func jsonKind(k string) string {
	switch {
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"), strings.HasPrefix(k, "float"):
		return "a number"
	case k == "bool":
		return "a boolean"
	case k == "slice":
		return "an array"
	case k == "struct", k == "map":
		return "an object"
	}
	return "a " + k
}

// statusCancelled is the status logged for a request whose client went
// away (nginx's 499).
const statusCancelled = 499

// writeRuntimeError answers a runtime's error; param is the request
// parameter an over-long prompt is blamed on.
func (h *Handler) writeRuntimeError(w http.ResponseWriter, r *http.Request, err error, param string) {
	var tn *chattemplate.ToolsNotRenderedError
	var upstream *openai.APIError
	switch {
	case r.Context().Err() != nil:
		// The client went away or the server is shutting down; nobody
		// reads an answer.
		writeError(w, statusCancelled, "request_cancelled", "", "request cancelled")
	case errors.As(err, &tn):
		writeError(w, http.StatusBadRequest, "invalid_request_error", tn.Param, tn.Error())
	case errors.Is(err, errChoiceIgnored):
		writeError(w, http.StatusBadGateway, "server_error", "tool_choice", err.Error())
	case errors.Is(err, runtime.ErrNotSupported):
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
	case writeContextExceeded(w, err, param):
	case errors.As(err, &upstream) && upstream.StatusCode >= 400 && upstream.StatusCode < 500 && upstream.StatusCode != http.StatusTooManyRequests:
		// A server behind the openai runtime refused the request as
		// sent: the client's fault there too, not this server's.
		writeError(w, http.StatusBadRequest, "invalid_request_error", "", "the upstream server refused the request: "+upstream.Error())
	default:
		writeError(w, http.StatusInternalServerError, "server_error", "", fmt.Sprintf("generation failed: %v", err))
	}
}

// recorder captures the status and token counts for the request log.
type recorder struct {
	http.ResponseWriter
	status           int
	wrote            bool
	cancelled        bool // the client went away before the answer was complete
	promptTokens     int
	completionTokens int
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

// markCancelled records that the client went away.
func markCancelled(w http.ResponseWriter) {
	if rec, ok := w.(*recorder); ok {
		rec.cancelled = true
	}
}

// Flush lets streamed responses through the recorder.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError is OpenAI's error body.
type apiError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

func writeError(w http.ResponseWriter, status int, typ, param, msg string) {
	e := apiError{Message: msg, Type: typ}
	if param != "" {
		e.Param = &param
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func writeValidation(w http.ResponseWriter, ve *validationError) {
	writeError(w, http.StatusBadRequest, "invalid_request_error", ve.param, ve.Error())
}
