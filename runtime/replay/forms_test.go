package replay

import (
	"slices"
	"strings"
	"testing"
)

// TestForms: Forms gives every line's form in file order.
func TestForms(t *testing.T) {
	r, err := Read(strings.NewReader(`{"prompt": "p", "response": "r"}
{"task_id": "HumanEval/0", "completion": "  return 1\n"}
{"task": "gsm8k", "id": "3", "response": "4"}
`), "forms.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.Forms(), []Form{FormIFEval, FormHumanEval, FormPocketeval}; !slices.Equal(got, want) {
		t.Errorf("Forms = %v, want %v", got, want)
	}
}
