// Package mnn provides a runtime.Runtime over MNN's C++ LLM engine
// (MNN::Transformer::Llm), called in process through cgo and a small
// extern "C" shim (mnnshim.h, mnnshim.cpp) that lives in this directory.
//
// The engine is compiled in only with the build tag mnn and cgo enabled:
//
//	go build -tags mnn ./cmd/pocketeval
//
// MNN is found through the #cgo directives, which default to the prefix
// /opt/mnn (include/ and lib/ holding libMNN.so, libMNN_Express.so and
// libllm.so). For another prefix, override the flags:
//
//	CGO_CXXFLAGS="-I$MNN_ROOT/include" \
//	CGO_LDFLAGS="-L$MNN_ROOT/lib -Wl,-rpath,$MNN_ROOT/lib" go build -tags mnn ./...
//
// Without the tag (or with CGO_ENABLED=0) the package still compiles, and
// Open returns an error wrapping ErrUnavailable that names the tag.
//
// What the runtime does:
//
//  1. Open loads an MNN LLM package (a directory holding config.json, or
//     the config.json itself) once per worker: Options.Workers independent
//     engine instances, pooled, because one instance is not safe for
//     concurrent use. Threads, backend, precision and memory mode are set
//     before load (MNN reads them only in load()). MNN runs one sequence
//     per engine: there is no batching of several requests in one forward
//     pass (docs/mnn.md §7 says why).
//  2. Temperature 0 (the default) decodes greedily with MNN's own decode
//     loop. MNN's sampler cannot serve temperature > 0 reproducibly (it is
//     built at load and seeded from std::random_device, with no seed
//     option), so such requests are sampled here instead: the engine
//     returns each step's logits and Go draws the token (temperature,
//     top-p) from a PCG seeded with GenConfig.Seed. The same request and
//     seed give the same text on the same build and thread count.
//  3. Chat requests are rendered with the package's chat template, raw
//     prompts are tokenized as they are, the prompt is prefilled in one
//     call and tokens are decoded one engine step at a time, so
//     cancellation (ctx) and stop strings take effect between steps. A
//     prefill itself cannot be interrupted. With speculative decoding (the
//     speculative_type config key) one step verifies a draft and may
//     decode several tokens; the loop still ends at exactly the token
//     limit and the first stop string.
//  4. With Options.PrefixCache on (the default) each engine keeps the KV
//     cache of its last request; a request runs on the idle engine whose
//     cache holds the longest prefix of its prompt, the rest of the cache
//     is dropped and only the rest of the prompt runs (prefix.go), and the
//     choices of a log-likelihood question run in turn on one engine.
//     Off, every request starts from an empty cache, exactly as at one
//     worker.
//  5. Responses carry MNN's own per-request figures: prompt and generated
//     token counts, prefill and decode time (prefill tok/s counts the
//     tokens the engine ran, not those found cached; decode tok/s the
//     forward pass of each non-stop token, as llm_bench does) and the time
//     to the first decoded token.
//  6. LogLikelihood runs one forward pass with all-position logits and
//     computes the log-softmax in the shim; Bench runs llm_bench's
//     synthetic measurement (n copies of token 16), or, stepwise, the
//     decode loop of item 3 with counts of the speculative drafts.
//  7. Every call into an engine runs on one OS thread the engine keeps
//     (never the main thread), and the shim fixes glibc's mmap threshold
//     before the first load, so an engine's peak memory is the same from
//     run to run and for a second engine in the same process (glibc's
//     per-thread arenas and its dynamic threshold made it vary by up to
//     16 %).
//
// MNN prints its diagnostics with printf; the shim sends C stdio's stdout
// to stderr, unbuffered, so they are neither lost when stdout is a pipe
// nor mixed into pocketeval's machine-readable output.
package mnn
