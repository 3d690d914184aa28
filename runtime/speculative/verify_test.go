package speculative

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

// drifting answers like its inner runtime except for prompts containing
// "drift", whose text changes after the first word: a speculative engine
// that is not lossless on those requests.
type drifting struct {
	runtime.Runtime
	calls int
}

func (d *drifting) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	d.calls++
	resp, err := d.Runtime.Generate(ctx, req)
	if err == nil && strings.Contains(req.Prompt, "drift") {
		if i := strings.Index(resp.Text[1:], " "); i >= 0 {
			resp.Text = resp.Text[:i+1] + " DRIFT" + resp.Text[i+1:]
		}
	}
	return resp, err
}

func TestVerifier(t *testing.T) {
	ref := &runtimetest.Fake{}
	spec := &drifting{Runtime: &runtimetest.Fake{}}
	v := New(ref, spec)
	ctx := context.Background()
	prompts := []string{"one two", "please drift here", "three", "drift again"}
	var mismatched []int
	for i, p := range prompts {
		resp, err := v.Generate(ctx, runtime.Request{Prompt: p, Gen: runtime.GenConfig{MaxTokens: 6}})
		var me *MismatchError
		switch {
		case errors.As(err, &me):
			mismatched = append(mismatched, i)
			if me.Offset == 0 || !strings.Contains(me.Speculative, "DRIFT") || strings.Contains(me.Reference, "DRIFT") {
				t.Errorf("prompt %q: mismatch %+v", p, me)
			}
			if !strings.Contains(err.Error(), "speculative decoding changed the output at byte") {
				t.Errorf("error text %q", err)
			}
		case err != nil:
			t.Fatalf("prompt %q: %v", p, err)
		default:
			want, _ := ref.Generate(ctx, runtime.Request{Prompt: p, Gen: runtime.GenConfig{MaxTokens: 6}})
			if resp.Text != want.Text || resp.Text == "" {
				t.Errorf("prompt %q: text %q, want %q", p, resp.Text, want.Text)
			}
		}
	}
	if len(mismatched) != 2 || mismatched[0] != 1 || mismatched[1] != 3 {
		t.Errorf("mismatched requests %v, want [1 3]", mismatched)
	}
	if c, d := v.Counts(); c != 4 || d != 2 {
		t.Errorf("counts %d checked %d differed, want 4 and 2", c, d)
	}

	_, err := v.Generate(ctx, runtime.Request{Prompt: "x", Gen: runtime.GenConfig{Temperature: 0.7}})
	if !errors.Is(err, ErrSampled) {
		t.Errorf("sampled request: err = %v, want ErrSampled", err)
	}
	if spec.calls != 4 {
		t.Errorf("speculative runtime ran %d requests, want 4 (none for the sampled one)", spec.calls)
	}
	if _, err := v.LogLikelihood(ctx, []runtime.LoglikRequest{{Context: "a", Continuation: " b"}}); err != nil {
		t.Errorf("log-likelihood: %v", err)
	}
	if s := v.Describe().Settings["speculative_verify"]; s == nil {
		t.Error("Describe does not say the runtime is verified")
	}
	if err := v.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ref.Generate(ctx, runtime.Request{Prompt: "x"}); !errors.Is(err, runtimetest.ErrFakeClosed) {
		t.Error("Close did not close the reference runtime")
	}
}

func TestCompare(t *testing.T) {
	r := func(text, finish string) runtime.Response {
		return runtime.Response{Text: text, FinishReason: finish, CompletionTokens: len(text)}
	}
	if err := Compare(r("same", "stop"), r("same", "stop")); err != nil {
		t.Errorf("equal responses: %v", err)
	}
	var me *MismatchError
	if err := Compare(r("abcdef", "stop"), r("abcxef", "stop")); !errors.As(err, &me) || me.Offset != 3 {
		t.Errorf("differ at 3: %v", err)
	}
	if err := Compare(r("abc", "stop"), r("abc", "length")); !errors.As(err, &me) || me.Offset != 3 {
		t.Errorf("finish reasons differ: %v", err)
	}
	long := strings.Repeat("x", 100)
	if err := Compare(r(long+"a", "stop"), r(long+"b", "stop")); !errors.As(err, &me) || len(me.Reference) != 41 || me.Offset != 100 {
		t.Errorf("clipped context: %+v", me)
	}
}
