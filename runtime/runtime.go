// Package runtime defines the one small interface every inference engine
// implements — MNN through cgo, llama.cpp in process, any OpenAI-compatible
// server, replay of saved predictions — and the values that cross it.
//
// The package intentionally knows nothing about benchmarks: a Runtime turns a
// Request into a Response and nothing more. Scoring lives in scorers/, task
// logic in evals/.
package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/pocketeval/pocketeval/runtime/chat"
)

// Runtime generates text. Implementations must be safe for concurrent use by
// several goroutines (one engine context per worker, or a pool, or a mutex);
// the runner calls Generate from up to --concurrency goroutines at once.
type Runtime interface {
	// Generate runs one request to completion. It honours ctx: when ctx
	// ends it stops generating and returns ctx.Err().
	Generate(ctx context.Context, req Request) (Response, error)
	// Close releases the engine. It is idempotent.
	Close() error
}

// Describer is implemented by runtimes that can say what they are; the run
// manifest records it.
type Describer interface {
	Describe() Info
}

// Replayer is implemented by runtimes that answer from saved results
// instead of running a model (replay of a predictions file): nothing they
// return was measured, so the runner records no timings for it and their
// result files stay deterministic.
type Replayer interface {
	Replayed() bool
}

// Info identifies a runtime and its model for the run manifest.
type Info struct {
	Name    string `json:"name"`              // "llamacpp", "openai", "mnn", "replay"
	Version string `json:"version,omitempty"` // engine version, e.g. llama.cpp release
	Model   string `json:"model,omitempty"`   // model path, URL or name
	// Settings are engine settings worth recording (threads, backend,
	// context size, precision...).
	Settings map[string]any `json:"settings,omitempty"`
}

// LogLikelihooder is implemented by runtimes that can score continuations
// token by token (llama.cpp in process, MNN, OpenAI completions with echo +
// logprobs). Multiple-choice tasks use it in log-likelihood mode.
type LogLikelihooder interface {
	// LogLikelihood returns, for each request, the summed log-probability of
	// Continuation given Context, and whether the continuation is the greedy
	// choice at every position.
	LogLikelihood(ctx context.Context, reqs []LoglikRequest) ([]LoglikResult, error)
}

// LoglikRequest asks for log P(Continuation | Context).
type LoglikRequest struct {
	Context      string `json:"context"`
	Continuation string `json:"continuation"`
}

// LoglikResult is the answer to one LoglikRequest.
type LoglikResult struct {
	LogProb  float64 `json:"logprob"`
	IsGreedy bool    `json:"is_greedy"`
	// Tokens is the number of continuation tokens scored (for
	// length-normalised accuracy).
	Tokens int `json:"tokens"`
}

// Message is one chat message (package chat, which the chat template
// engine shares).
type Message = chat.Message

// ToolCall is one function call (package chat).
type ToolCall = chat.ToolCall

// Request is one generation request. Exactly one of Messages (chat: the
// runtime applies the model's chat template) and Prompt (raw text, no
// template) is set.
type Request struct {
	// ID is the sample id the request belongs to; runtimes that replay
	// saved predictions use it, engines ignore it.
	ID string `json:"id,omitempty"`
	// Task is the task name; used by replay only.
	Task     string    `json:"task,omitempty"`
	Messages []Message `json:"messages,omitempty"`
	Prompt   string    `json:"prompt,omitempty"`
	Gen      GenConfig `json:"gen"`
	// TemplateKwargs are extra chat template variables for this chat
	// request (a client's "chat_template_kwargs" that `pocketeval serve`
	// passes on), over the runtime's own: runtimes that render templates
	// give them to the template (enable_thinking here overrides
	// --thinking), the openai runtime sends them to its server, others
	// ignore them. Nil for raw prompts.
	TemplateKwargs map[string]any `json:"template_kwargs,omitempty"`
	// Tools are the functions a chat request offers the model: an OpenAI
	// "tools" array ([{"type": "function", "function": {...}}]), given to
	// the chat template as tools with its key order and numbers kept.
	// Runtimes that render templates parse tool calls out of the
	// generated text (Response.ToolCalls).
	Tools json.RawMessage `json:"tools,omitempty"`
	// ToolChoice is OpenAI's tool_choice ("auto", "none", "required" or a
	// named function), passed on by the openai runtime.
	ToolChoice json.RawMessage `json:"tool_choice,omitempty"`
}

// IsChat reports whether the request is a chat request.
func (r Request) IsChat() bool { return len(r.Messages) > 0 }

// GenConfig holds generation settings. The zero value means greedy decoding
// with the runtime's default token limit.
type GenConfig struct {
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Temperature float64  `json:"temperature"`
	TopP        float64  `json:"top_p,omitempty"` // 0 means 1.0 (disabled)
	Seed        int64    `json:"seed"`
	Stop        []string `json:"stop,omitempty"`
}

// Finish reasons.
const (
	FinishStop   = "stop"   // end-of-sequence token or a stop string
	FinishLength = "length" // MaxTokens reached
)

// Response is what a runtime produced for one Request.
type Response struct {
	Text string `json:"text"`
	// ToolCalls are the function calls found in the generated text (or
	// returned by a server) for a request with Tools; Text is then the
	// text outside them.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Raw is the whole generated text when tool calls were parsed out of
	// it (runtime/toolcall), the calls' own markup included; empty
	// otherwise, and when a server returned the calls without it. A scorer
	// that decodes calls itself (a BFCL model handler) reads this text, so
	// a live run decodes what a replay of the same text decodes.
	Raw string `json:"raw,omitempty"`
	// RenderedPrompt is the exact text a chat request was rendered to by
	// the runtime's chat template (empty for raw prompts and for runtimes
	// whose server renders it, unless the server reports it, as
	// `pocketeval serve` does).
	RenderedPrompt   string  `json:"rendered_prompt,omitempty"`
	FinishReason     string  `json:"finish_reason"`
	PromptTokens     int     `json:"prompt_tokens"`
	CompletionTokens int     `json:"completion_tokens"`
	Timings          Timings `json:"timings"`
}

// Timings are what the runtime measured; zero means unknown.
type Timings struct {
	TimeToFirstToken time.Duration `json:"ttft_ns,omitempty"`
	Total            time.Duration `json:"total_ns,omitempty"`
	PrefillTokPerSec float64       `json:"prefill_tps,omitempty"`
	DecodeTokPerSec  float64       `json:"decode_tps,omitempty"`
}

// ChatTemplater is implemented by runtimes that render chat requests with a
// chat template themselves (llama.cpp in process, MNN); the run manifest
// records what it returns, and resuming requires it unchanged.
type ChatTemplater interface {
	ChatTemplate() ChatTemplateInfo
}

// ChatTemplateInfo identifies the chat template a runtime renders with and
// the variables that change its output.
type ChatTemplateInfo struct {
	// Source says where the template came from, e.g.
	// "gguf:tokenizer.chat_template", "llm_config.json:jinja.chat_template",
	// "file:PATH", "fallback:chatml".
	Source string `json:"source"`
	// SHA256 is the hex sha256 of the template text.
	SHA256 string `json:"sha256"`
	// Thinking is the requested mode (on, off, model-default) and
	// ThinkingApplied what it did to this template (e.g.
	// "enable_thinking=false", "not supported by the template (ignored)").
	Thinking        string `json:"thinking"`
	ThinkingApplied string `json:"thinking_applied"`
	// BOS and EOS are the bos_token and eos_token passed to the template.
	BOS string `json:"bos_token,omitempty"`
	EOS string `json:"eos_token,omitempty"`
	// Date is what strftime_now formats (RFC 3339), set only for templates
	// that read the date; a resumed run reuses it.
	Date string `json:"date,omitempty"`
	// AddsBOS reports whether tokenization adds a BOS token the template
	// did not render (only for a fallback template).
	AddsBOS bool `json:"adds_bos,omitempty"`
}

// ErrNotSupported is returned (wrapped) for a capability a runtime lacks,
// e.g. log-likelihood on a chat-only server.
var ErrNotSupported = errors.New("not supported by this runtime")

// Bencher is implemented by in-process runtimes that can run MNN's
// llm_bench-style synthetic measurements: a prompt of NPrompt copies of one
// token, then NGen decoded tokens on the same KV cache.
type Bencher interface {
	Bench(ctx context.Context, req BenchRequest) (BenchResult, error)
}

// BenchRequest is one synthetic measurement.
type BenchRequest struct {
	NPrompt int // prompt tokens (0: skip prefill, decode from a 1-token context)
	NGen    int // generated tokens (0: prefill only)
	// Depth is the number of tokens put in the KV cache, untimed, before
	// the measured prompt (llama-bench's -d); the prompt and the decoded
	// tokens come after them. A runtime that cannot do it returns an
	// error wrapping ErrNotSupported for Depth > 0.
	Depth int
	// Stepwise decodes with one engine call per decoding step (the loop
	// Generate uses), instead of one call for the whole request; the
	// speculative-decoding counts below need it. A runtime that always
	// decodes step by step may ignore it.
	Stepwise bool
}

// BenchResult is what one synthetic measurement took.
type BenchResult struct {
	PromptTokens  int
	GenTokens     int
	PrefillTime   time.Duration
	DecodeTime    time.Duration
	LoadTime      time.Duration // set once by the runtime on the first call, if known
	FirstTokenLag time.Duration
	// Speculative decoding, counted in stepwise runs (zero otherwise):
	// VerifySteps is the number of target forward passes while decoding,
	// Drafted the draft tokens they checked and Accepted those kept.
	VerifySteps, Drafted, Accepted int
}

// ServerTimings is llama.cpp's per-response "timings" object, which
// llama-server and `pocketeval serve` send and the openai runtime reads:
// the engine's own prefill and decode figures, free of network and
// queueing time.
type ServerTimings struct {
	PromptN            int     `json:"prompt_n"`
	PromptMS           float64 `json:"prompt_ms"`
	PromptPerSecond    float64 `json:"prompt_per_second"`
	PredictedN         int     `json:"predicted_n"`
	PredictedMS        float64 `json:"predicted_ms"`
	PredictedPerSecond float64 `json:"predicted_per_second"`
}

// ServerTimingsOf is resp's timings as llama.cpp reports them; nil when the
// runtime measured nothing.
func ServerTimingsOf(resp Response) *ServerTimings {
	t := resp.Timings
	if t == (Timings{}) {
		return nil
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	out := &ServerTimings{
		PromptN:            resp.PromptTokens,
		PromptMS:           ms(t.TimeToFirstToken),
		PromptPerSecond:    t.PrefillTokPerSec,
		PredictedN:         resp.CompletionTokens,
		PredictedPerSecond: t.DecodeTokPerSec,
	}
	if t.Total > t.TimeToFirstToken {
		out.PredictedMS = ms(t.Total - t.TimeToFirstToken)
	}
	return out
}

// PromptCounter is implemented by runtimes that can count, without running
// the model, the prompt tokens requests need with the model's tokenizer and
// chat template, and how many of them the runtime's prompt cache would
// supply when the requests come one after another in the given order.
// `pocketeval run --dry-run` plans a run with it.
type PromptCounter interface {
	CountPrompts(ctx context.Context, items []PromptItem) ([]PromptCount, error)
}

// PromptItem is one unit of work to count: a generation request, or the
// log-likelihood requests of one sample.
type PromptItem struct {
	Generate *Request
	Loglik   []LoglikRequest
}

// PromptCount is a PromptItem's count.
type PromptCount struct {
	// Tokens is how many prompt tokens the model must read (for
	// log-likelihood, every request's context and continuation but the
	// last token).
	Tokens int
	// Cached is how many of them the runtime would find computed.
	Cached int
	// TooLong means the prompt does not fit the context: the request
	// would fail (Tokens and Cached are then 0).
	TooLong bool
}
