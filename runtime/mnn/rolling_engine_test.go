//go:build cgo && mnn

package mnn

import (
	"context"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// rollingText is long enough for several windows of 8 tokens.
const rollingText = "Once upon a time there was a little girl named Lily. She loved to play outside in the sun with her dog."

// manualRolling scores text with max-length windows built independently
// of runtime.RollingWindows: with P the prefix token followed by the
// text's tokens, the block of tokens [s, e) (blocks of maxLen from the
// start) is predicted by one forward pass over P[max(0, e-maxLen):e].
func manualRolling(t *testing.T, r *Runtime, text string, maxLen int) (float64, int) {
	t.Helper()
	toks, err := r.Tokenize(text, false)
	if err != nil {
		t.Fatal(err)
	}
	v := r.Vocab()
	prefix := v.BOS
	if prefix < 0 {
		prefix = v.EOS
	}
	p := append([]int32{prefix}, toks...)
	var sum float64
	windows := 0
	for s := 0; s < len(toks); s += maxLen {
		e := min(s+maxLen, len(toks))
		lo := max(0, e-maxLen)
		inp := p[lo:e]
		from := s - lo // the input position whose logits predict toks[s]
		// each window summed, then the windows, as lm-eval adds them
		var w float64
		err := r.Logits(context.Background(), inp, from, func(pos int, l []float32) error {
			w += logSoftmaxAt(l, int(toks[lo+pos]))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sum += w
		windows++
	}
	return sum, windows
}

func TestEngineLoglikelihoodRolling(t *testing.T) {
	for _, name := range tinyPackages {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			r := openTiny(t, name, Options{Threads: 1})
			if n, err := r.MaxLength(); err != nil || n != defaultMaxAllTokens {
				t.Fatalf("max length %d, %v; want MNN's default %d", n, err, defaultMaxAllTokens)
			}
			short := "The quick brown fox."
			got, err := r.LoglikelihoodRolling(ctx, []string{short})
			if err != nil {
				t.Fatal(err)
			}
			want, w := manualRolling(t, r, short, defaultMaxAllTokens)
			toks, _ := r.Tokenize(short, false)
			if got[0].LogProb != want || got[0].Tokens != len(toks) || got[0].Windows != 1 || w != 1 {
				t.Errorf("short text: %+v, want logprob %v over %d tokens in one window", got[0], want, len(toks))
			}

			const maxLen = 8
			small := openTiny(t, name, Options{Threads: 1, Config: map[string]any{"max_all_tokens": maxLen}})
			toks, _ = small.Tokenize(rollingText, false)
			if len(toks) <= 2*maxLen {
				t.Fatalf("%d tokens: want more than two windows", len(toks))
			}
			res, err := small.LoglikelihoodRolling(ctx, []string{rollingText, short})
			if err != nil {
				t.Fatal(err)
			}
			want, w = manualRolling(t, small, rollingText, maxLen)
			nw := len(runtime.RollingWindows(toks, 0, maxLen))
			if res[0].LogProb != want || res[0].Tokens != len(toks) || res[0].Windows != w || w != nw {
				t.Errorf("long text: %+v, want logprob %v over %d tokens in %d windows (RollingWindows: %d)", res[0], want, len(toks), w, nw)
			}
			// Windows lose context: the rolling score differs from one
			// pass over the whole text.
			whole, err := r.LoglikelihoodRolling(ctx, []string{rollingText})
			if err != nil {
				t.Fatal(err)
			}
			if whole[0].LogProb == res[0].LogProb || whole[0].Windows != 1 {
				t.Errorf("one window %+v and windows of %d %+v", whole[0], maxLen, res[0])
			}
			if _, err := small.LoglikelihoodRolling(ctx, []string{"a\x00b"}); err == nil || !strings.Contains(err.Error(), "text 0") {
				t.Errorf("a NUL byte: %v", err)
			}
		})
	}
}
