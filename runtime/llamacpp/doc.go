// Package llamacpp provides a runtime.Runtime that runs GGUF models in
// process with llama.cpp.
//
// # Engine and binding
//
// The engine is the prebuilt llama.cpp (commit 5b4ebc5, which
// node-llama-cpp calls its release v0.4.0) shipped by the npm packages
// node-llama-cpp@3.21.1 and @node-llama-cpp/linux-x64@3.21.1;
// scripts/setup-llamacpp.sh installs them and prints the library directory.
// The runtime's version (Info.Version, `pocketeval version`) is the commit
// libllama-common.so was built from and the npm package (version.go).
// The runtime finds the libraries through Options.LibDir, else the
// environment variable POCKETEVAL_LLAMA_LIB, else
// $XDG_CACHE_HOME/pocketeval/llamacpp/lib (or ~/.cache/pocketeval/llamacpp/lib),
// and fails with ErrLibraryMissing, naming the setup script, when they are
// absent.
//
// The binding is github.com/hybridgroup/yzma v1.28.0 (exactly: later
// releases expect symbols these libraries lack), which calls the C API
// through libffi loaded at run time rather than through cgo. It was chosen
// over cgo because it needs no C toolchain, no llama.cpp headers and no
// link-time library path, keeps cgo confined to runtime/mnn as the
// architecture asks, and lets CGO_ENABLED=0 builds include this runtime.
// Its costs:
//
//   - a run-time dependency on the system's libffi.so.8 (Debian package
//     libffi8, on every standard install), opened when the program starts;
//   - in CGO_ENABLED=0 builds, purego (under yzma) installs a fake cgo
//     runtime, after which syscall.AllThreadsSyscall panics. psx, and with it
//     go-landlock's all-threads Restrict, uses that call, so a CGO_ENABLED=0
//     binary that must apply Landlock (the sandbox helper is the pocketeval
//     binary re-executed) has to be built either with CGO_ENABLED=1 (then
//     purego and psx use the real cgo runtime and both work) or with
//     -tags nollamacpp, which leaves this runtime out (Open then returns
//     ErrUnavailable).
//
// # What a Runtime does
//
// Open loads the model once. With Options.Batch on (the default) it
// creates one llama.cpp context of Options.Workers sequences over a unified
// KV cache: concurrent Generate, LogLikelihood and Bench calls become jobs
// on those sequences and are decoded together, one llama_decode per step
// over the next token of every generating sequence plus chunks of newly
// arrived prompts; a sequence whose job finished takes the next queued job
// at the next step (continuous batching). A new job starts from the longest
// prefix of its prompt that any sequence holds — a few-shot preamble, the
// question shared by the choices of a multiple-choice item — shared in the
// cache rather than recomputed (Options.PrefixCache; PrefillStats counts
// what was computed). Batched kernels and a different split of a prompt
// into evaluated chunks can change the last bits of the logits, so a
// result may depend on what ran beside or before it; see docs/throughput.md
// for how much that moves greedy outputs and scores. With Batch off there
// are Workers independent contexts of one sequence each; every request is
// computed alone from an empty cache, exactly as it would be at Workers 1,
// except that LogLikelihood reuses an identical context (all but its last
// token), which changes no number: every request is evaluated in the same
// two phases whether or not the first is reused. With Batch exact there is
// one context of Workers sequences, each in a KV stream of its own: every
// prompt chunk is decoded alone, on the grid of Batch off, and the next
// tokens of all generating sequences in one llama_decode, which Open checks
// gives each the bits it gets alone (invariant.go; refused for models whose
// kernels do not, such as F32 and F16 ones, and with more than one thread).
//
// Chat requests are rendered with the model's own chat template (GGUF key
// tokenizer.chat_template), run as Jinja by package chattemplate with
// transformers' apply_chat_template conventions (bos_token and eos_token are
// the vocabulary's, Options.Thinking sets enable_thinking, strftime_now
// renders Options.TemplateNow), or with Options.ChatTemplate when set. The
// rendered text is tokenized with special-token text parsed and no special
// tokens added, exactly as apply_chat_template(tokenize=True) does: the
// template decides whether a BOS appears. A model without a template
// (stories260K, base models) falls back to ChatML plus the vocabulary's BOS,
// which is what llama-server does. A model template the Jinja engine cannot
// parse is an error for chat requests only. Raw Prompt requests are
// tokenised as they are, with the model's BOS token when its vocabulary
// asks for one (not twice). ChatTemplate reports the template's source,
// sha256 and variables for the run manifest.
//
// Decoding is greedy at temperature 0 (Seed is then irrelevant) and
// otherwise samples with top-p (when 0 < TopP < 1), then temperature, then
// a seeded distribution: the same Seed gives the same text. Generation ends
// at an end-of-generation token (finish reason "stop", the token itself not
// part of the text), at a Stop string (the text is cut before it, "stop"),
// at MaxTokens or when the context is full ("length"). MaxTokens 0 means
// Options.DefaultMaxTokens. Text is assembled from token bytes, so a rune
// split across tokens comes out whole; an incomplete rune left at the very
// end by the token limit is dropped and any other invalid byte becomes
// U+FFFD. A prompt that leaves no room in the context for one generated
// token is an error (ErrPromptTooLong), not a silent truncation.
//
// Timings start once the request has a sequence (time queued for one is
// not counted): TimeToFirstToken covers the prefill and the first sample;
// PrefillTokPerSec is prompt tokens (cached ones included) over prefill
// time;
// DecodeTokPerSec is tokens sampled after the first over the time from the
// first sample to the last.
//
// ctx is checked before every decode step the request takes part in
// (prefill chunks of up to Options.BatchSize tokens, generated tokens); a
// cancelled call returns ctx.Err() itself and the others go on.
//
// With Options.DraftModel, greedy requests and Bench decode speculatively
// inside the scheduler: a draft model of the same vocabulary (checked at
// Open by llama.cpp's rule) proposes up to DraftMax tokens per step for
// every generating sequence, the target verifies them in the step's
// llama_decode and keeps the longest prefix agreeing with its own greedy
// choices plus its next token, and the rejected cells are removed
// (speculative.go). Sampled requests decode without drafts. The text is
// plain greedy decoding's up to the last bits multi-token verification
// changes (docs/speculative.md measures how often that moves a greedy
// choice); SpeculativeStats counts steps, drafted and accepted tokens.
//
// LogLikelihood follows lm-evaluation-harness: context and continuation are
// tokenised together, the split falls at the length of the context's own
// tokenisation (trailing spaces of the context move to the continuation
// first), and the result is the sum of log-softmax over the continuation
// tokens, whether each was the argmax, and their count. An input longer
// than the context loses tokens from the left, as lm-eval truncates.
//
// llama.cpp's own log output is kept out of stderr: its recent warnings and
// errors are quoted in the error of a failed load or decode instead. Set
// POCKETEVAL_LLAMA_LOG=1 to see the full log on stderr.
//
// The package does not download models, convert formats, offload to GPUs or
// serve HTTP (runtime/serve does that for any runtime).
package llamacpp
