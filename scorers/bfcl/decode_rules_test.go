package bfcl

import "testing"

// TestPromptDecodingRules pins each rule of BFCL's prompt-mode decoders,
// with the gorilla file and line it comes from.
func TestPromptDecodingRules(t *testing.T) {
	for _, c := range []struct {
		rule    string
		v       Version
		handler string
		text    string
		want    string // repr of the calls, or "error"
	}{
		// v4 bfcl_eval/model_handler/utils.py:474 result.strip("`\n ")
		{"v4 utils.py:474 strips newlines", V4, "default", "\n\nmath.hypot(x=4, y=5)\n", "[{'math.hypot': {'x': 4, 'y': 5}}]"},
		{"v4 utils.py:474 strips backticks", V4, "default", "```[f(a=1)]```", "[{'f': {'a': 1}}]"},
		{"v4 utils.py:474 strips spaces", V4, "default", "  [f(a=1)]  ", "[{'f': {'a': 1}}]"},
		{"v4 utils.py:474 keeps a fence's language", V4, "default", "```python\n[f(a=1)]\n```", "error"},
		{"v4 utils.py:474 keeps tabs", V4, "default", "\t[f(a=1)]", "error"},
		// utils.py:475-478: the missing "[" and "]" are added
		{"v4 utils.py:476 adds [", V4, "default", "f(a=1)]", "[{'f': {'a': 1}}]"},
		{"v4 utils.py:478 adds ]", V4, "default", "[f(a=1)", "[{'f': {'a': 1}}]"},
		{"v4 utils.py:476-478 bare calls", V4, "default", "f(a=1), g(b='x')", "[{'f': {'a': 1}}, {'g': {'b': 'x'}}]"},
		// utils.py:262 input_str.strip().strip("'") comes after the
		// brackets: a quoted list is a list holding a string
		{"v4 utils.py:262 quotes after brackets", V4, "default", "'[f(a=1)]'", "error"},
		// utils.py:265-266: a lone call (body is a Call) is one call
		{"v4 utils.py:265 a lone call", V4, "default", "f(a=1)", "[{'f': {'a': 1}}]"},
		// utils.py:269: every element must be a call
		{"v4 utils.py:269 elements are calls", V4, "default", "[f(a=1), 2]", "error"},
		// utils.py:349 a BinOp is evaluated
		{"v4 utils.py:349 BinOp evaluated", V4, "default", "[f(a=2*3, b='x'*2)]", "[{'f': {'a': 6, 'b': 'xx'}}]"},
		// v2 gpt_handler.py decode_ast: ast_parse (model_handler/utils.py:230) of the text as given
		{"v2 utils.py:232 text as given", V2, "default", "\n\nmath.hypot(x=4, y=5)", "error"},
		{"v2 utils.py:235 elements are calls", V2, "default", "[f(a=1), g]", "error"},
		// v2 oss_handler.py:113-118: one leading space dropped, brackets added
		{"v2 oss_handler.py:113 one space", V2, "oss", " f(a=1)", "[{'f': {'a': 1}}]"},
		{"v2 oss_handler.py:115 brackets", V2, "oss", "\n\nmath.hypot(x=4, y=5)", "[{'math.hypot': {'x': 4, 'y': 5}}]"},
		{"v2 oss_handler.py:113 empty text (func[0])", V2, "oss", "", "error"},
		// v2 llama_handler.py:26 newlines removed
		{"v2 llama_handler.py:26 newlines", V2, "llama", "f(a=1),\ng(b=2)", "[{'f': {'a': 1}}, {'g': {'b': 2}}]"},
		// v2 mistral_handler.py:97 "\_" made "_"
		{"v2 mistral_handler.py:97 escaped underscores", V2, "mistral", "f(a\\_b=1)", "[{'f': {'a_b': 1}}]"},
		// v2 gorilla_handler.py:59 always wrapped
		{"v2 gorilla_handler.py:59 wrapped", V2, "gorilla", "[f(a=1)]", "error"},
	} {
		h, err := LookupHandler(c.handler)
		if err != nil {
			t.Fatal(err)
		}
		out, err := h.Decode(c.v, false, c.text)
		got := "error"
		if err == nil {
			got = repr(out)
		}
		if got != c.want {
			t.Errorf("%s: %q decoded to %s, want %s", c.rule, c.text, got, c.want)
		}
	}
}

// TestBareCallRelevance: BFCL counts a bare call as a call, so an
// irrelevance entry answered with one is an error (v4 eval_runner.py:277
// decodes with the handler and counts a non-empty decoding as a call).
func TestBareCallRelevance(t *testing.T) {
	v := Checker{Version: V4}.Evaluate("irrelevance", false, nil, nil, "\n\nmath.hypot(x=4, y=5)")
	if v.Valid || v.ErrorType != "irrelevance_error:decoder_success" {
		t.Errorf("got %+v", v)
	}
	oss, _ := LookupHandler("oss")
	v = Checker{Version: V2, Handler: oss}.Evaluate("relevance", false, nil, nil, "\n\nmath.hypot(x=4, y=5)")
	if v.Valid || v.ErrorType != "relevance_error:decoder_success" {
		t.Errorf("v2 oss: got %+v", v)
	}
}
