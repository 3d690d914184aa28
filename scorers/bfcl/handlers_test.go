package bfcl

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// TestHandlersDecodeAsBFCL: every handler's decode_ast on 76 texts (each
// family's format, its near misses and the prompt-mode forms), against
// what BFCL's own classes return for them (testdata/handler_decode.jsonl:
// v2 from model_handler/*_handler.py at gorilla 4a64db34, v4 from
// bfcl_eval/model_handler/local_inference/*.py at 6ea57973, run under
// Python 3.11.7): the decoded value's repr, or that it raised.
func TestHandlersDecodeAsBFCL(t *testing.T) {
	f, err := os.Open("testdata/handler_decode.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n, bad := 0, 0
	for sc.Scan() {
		var c struct {
			V       Version
			Handler string
			Text    string
			OK      bool
			Decoded string
			IsList  bool `json:"is_list"`
		}
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		h, err := LookupHandler(c.Handler)
		if err != nil {
			t.Fatal(err)
		}
		n++
		out, err := h.Decode(c.V, false, c.Text)
		got := ""
		switch {
		case err != nil:
			got = "error: " + err.Error()
		case len(out) == 1 && isNotList(out[0]):
			got = repr(out[0].(notList).v)
		default:
			got = repr(out)
		}
		want := "error"
		if c.OK {
			want = c.Decoded
		}
		if c.OK != (err == nil) || c.OK && got != want || c.OK && c.IsList == (len(out) == 1 && isNotList(out[0])) {
			bad++
			t.Errorf("v%d %s %q: got %s, BFCL: %s", c.V, c.Handler, c.Text, got, want)
		}
	}
	if n < 2000 {
		t.Errorf("%d cases", n)
	}
}

func isNotList(v any) bool {
	_, ok := v.(notList)
	return ok
}

// TestDecodedListHandlers: mistral_fc, phi_fc, granite_3 and arch record
// the calls their inference decoded (mistral_fc.py:24 "The input is
// already a list of dictionaries"): a list of {name: arguments} is the
// decoding, anything else an error.
func TestDecodedListHandlers(t *testing.T) {
	call := &Dict{}
	call.Set("f", `{"a": [1, 2]}`)
	for _, name := range []string{"mistral_fc", "phi_fc", "granite_3", "arch"} {
		h, _ := LookupHandler(name)
		out, err := h.Decode(V4, true, []any{call})
		if err != nil || repr(out) != "[{'f': {'a': [1, 2]}}]" {
			t.Errorf("%s: %s %v", name, repr(out), err)
		}
		if _, err := h.Decode(V4, true, "[f(a=1)]"); err == nil {
			t.Errorf("%s decoded text", name)
		}
		if !h.ReadsCalls() || h.Has(V2) {
			t.Errorf("%s: reads calls %v, in v2 %v", name, h.ReadsCalls(), h.Has(V2))
		}
	}
}

// TestHandlerRegistry: model names map to their handlers as BFCL's
// registries say.
func TestHandlerRegistry(t *testing.T) {
	for _, c := range []struct {
		v           Version
		model, want string
	}{
		{V2, "NousResearch/Hermes-2-Pro-Llama-3-8B", "hermes"},
		{V2, "Salesforce/xLAM-1b-fc-r", "xlam"},
		{V2, "THUDM/glm-4-9b-chat", "glm"},
		{V2, "google/gemma-7b-it", "gemma"},
		{V4, "Salesforce/xLAM-2-1b-fc-r", "xlam"},
		{V4, "google/gemma-3-1b-it", "gemma"},
		{V4, "microsoft/Phi-4-mini-instruct", "phi"},
		{V4, "microsoft/Phi-4-mini-instruct-FC", "phi_fc"},
		{V4, "meta-llama/Llama-3.2-1B-Instruct-FC", "llama"},
		{V4, "Qwen/Qwen3-0.6B-FC", "qwen_fc"},
	} {
		h, ok := HandlerForModel(c.v, c.model)
		if !ok || h.Name != c.want {
			t.Errorf("v%d %s: %v %v, want %s", c.v, c.model, h, ok, c.want)
		}
	}
	if _, ok := HandlerForModel(V4, "NousResearch/Hermes-2-Pro-Llama-3-8B"); ok {
		t.Error("a v2 model found in v4's registry")
	}
}
