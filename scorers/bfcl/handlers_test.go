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
