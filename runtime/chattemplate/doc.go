// Package chattemplate renders Jinja chat templates exactly as Hugging Face
// transformers' apply_chat_template does, so every model sees the prompt
// its authors' tooling produces, byte for byte.
//
// The conventions are transformers' (utils/chat_template_utils.py):
// trim_blocks and lstrip_blocks on, a single trailing newline of the
// template dropped and its line endings normalised (Jinja's defaults), the
// globals raise_exception and strftime_now, a tojson filter that does not
// escape HTML and keeps non-ASCII text, and the variables messages,
// add_generation_prompt, tools and documents (None when absent), the
// special tokens (bos_token, eos_token) and extra keyword arguments such as
// Qwen3's enable_thinking. Undefined variables render as empty text, as in
// Jinja's default (lenient) mode.
//
// Conformance is proved, not assumed: testdata holds real templates from
// public model repositories (with provenance in testdata/templates.json),
// a set of conversations, and the renders Python's jinja2 produces for
// them (scripts/chattemplate-goldens.py); the tests require the Go renders
// to equal them byte for byte.
//
// The engine is pocketeval's internal/jinja, which follows jinja2 3.1's
// sandboxed environment and bounds every render (range capped at
// 100,000 items as in Python's sandbox, output size, loop steps, call
// depth and time; errors name the file and line). The package implements
// only the Hugging Face chat-template environment: it does not offer
// Jinja's default whitespace mode (no trim_blocks, keep_trailing_newline)
// that some prompt-template systems use.
//
// For plain template use, Render(source, vars) renders once; Parse compiles
// once for many renders (a Template is safe for concurrent use). Chat
// applies the chat-template conventions to a conversation. RenderContext
// and ChatContext stop a render at its next step when their context ends
// (pocketeval serve passes each request's, which ends when its client goes
// away).
package chattemplate
