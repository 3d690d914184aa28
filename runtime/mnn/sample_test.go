package mnn

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

func sampled(t *testing.T, gen runtime.GenConfig) (runtime.Response, *fakeEngine) {
	t.Helper()
	fe := &fakeEngine{}
	resp, err := newFake(t, fe).Generate(context.Background(), runtime.Request{Prompt: "x", Gen: gen})
	if err != nil {
		t.Fatal(err)
	}
	return resp, fe
}

func TestSampleSeeded(t *testing.T) {
	gen := runtime.GenConfig{Temperature: 1, Seed: 42, MaxTokens: 40}
	a, fe := sampled(t, gen)
	b, _ := sampled(t, gen)
	if a.Text != b.Text || len(a.Text) == 0 {
		t.Fatalf("same seed, different text: %q vs %q", a.Text, b.Text)
	}
	if len(fe.prefill) != 1 || string(bytesOf(fe.prefill[0])) != "x" {
		t.Errorf("prompt ids %v", fe.prefill)
	}
	if a.FinishReason == runtime.FinishLength && (a.CompletionTokens != 40 || fe.forwards != 39) {
		t.Errorf("%d tokens, %d decode forwards; want 40 and 39 (no forward after the last token)", a.CompletionTokens, fe.forwards)
	}
	if a.Timings.PrefillTokPerSec <= 0 || a.Timings.TimeToFirstToken <= 0 || a.Timings.Total < a.Timings.TimeToFirstToken {
		t.Errorf("timings %+v", a.Timings)
	}
	differ := 0
	for seed := int64(1); seed <= 5; seed++ {
		c, _ := sampled(t, runtime.GenConfig{Temperature: 1, Seed: seed, MaxTokens: 40})
		if c.Text != a.Text {
			differ++
		}
	}
	if differ < 4 {
		t.Errorf("only %d of 5 other seeds changed the text", differ)
	}
}

func TestSampleLimits(t *testing.T) {
	// A tiny nucleus or a tiny temperature is greedy: the fake's most
	// likely next token is (last id + 1), so the text counts up.
	for _, gen := range []runtime.GenConfig{
		{Temperature: 1, TopP: 1e-9, Seed: 7, MaxTokens: 5},
		{Temperature: 1e-4, Seed: 7, MaxTokens: 5},
	} {
		got, _ := sampled(t, gen)
		// 'x' is 120; 120%15+1 = 1 → "a", then b, c, d, e.
		if got.Text != "abcde" || got.FinishReason != runtime.FinishLength {
			t.Errorf("%+v: got %q (%s), want \"abcde\"", gen, got.Text, got.FinishReason)
		}
	}
	got, _ := sampled(t, runtime.GenConfig{Temperature: 1e-4, MaxTokens: 20, Stop: []string{"cd"}})
	if got.Text != "ab" || got.FinishReason != runtime.FinishStop || got.CompletionTokens != 4 {
		t.Errorf("stop string: %q %s %d", got.Text, got.FinishReason, got.CompletionTokens)
	}
}

func TestSampleCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fe := &fakeEngine{}
	r := newFake(t, fe)
	if _, err := r.Generate(ctx, runtime.Request{Prompt: "x", Gen: runtime.GenConfig{Temperature: 1}}); err != context.Canceled {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestSamplerDistribution checks frequencies against the softmax with a
// fixed seed (deterministic, with wide bounds).
func TestSamplerDistribution(t *testing.T) {
	logits := []float32{0, float32(math.Log(3)), float32(math.Log(6))} // p = .1, .3, .6
	tests := []struct {
		name string
		s    sampler
		want []float64
	}{
		{"temperature 1", sampler{temperature: 1}, []float64{0.1, 0.3, 0.6}},
		{"temperature 2 flattens", sampler{temperature: 2}, softmax(logits, 2)},
		{"top_p 0.5 keeps the top token", sampler{temperature: 1, topP: 0.5}, []float64{0, 0, 1}},
		{"top_p 0.8 keeps two", sampler{temperature: 1, topP: 0.8}, []float64{0, 1.0 / 3, 2.0 / 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			const n = 20000
			counts := make([]float64, len(logits))
			for range n {
				counts[tt.s.next(logits, rng)]++
			}
			for i := range counts {
				if got := counts[i] / n; math.Abs(got-tt.want[i]) > 0.02 {
					t.Errorf("p(%d) = %.3f, want %.3f", i, got, tt.want[i])
				}
			}
		})
	}
}

func softmax(l []float32, temp float64) []float64 {
	out := make([]float64, len(l))
	var z float64
	for i, v := range l {
		out[i] = math.Exp(float64(v) / temp)
		z += out[i]
	}
	for i := range out {
		out[i] /= z
	}
	return out
}
