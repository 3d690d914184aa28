package runtimetest

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// Fake is a deterministic toy runtime that passes Check, for tests of code
// that consumes runtimes (runners, servers) without an engine. Its tokens
// are words: the prompt is split on white space (plus one token standing
// for BOS; chat requests cost three more per message), and the answer is a
// chain of words from a fixed list chosen by hashing the prompt, so the
// same request always gives the same text and a longer budget extends it.
// With Temperature > 0 the Seed joins the hash. About one position in
// EOSEvery ends the answer with finish reason "stop".
//
// The zero value is ready to use.
type Fake struct {
	// TokenDelay is slept (honouring ctx) before each generated token, to
	// make cancellation observable. 0 means no delay.
	TokenDelay time.Duration
	// DefaultMaxTokens applies when a request's MaxTokens is 0. 0 means 64.
	DefaultMaxTokens int
	// EOSEvery makes the chain end on average once every EOSEvery tokens.
	// 0 means never.
	EOSEvery int

	closed atomic.Bool
	// afterToken, when set (by this package's tests), is called after
	// each generated token with its index.
	afterToken func(i int)
}

var (
	_ runtime.Runtime         = (*Fake)(nil)
	_ runtime.Describer       = (*Fake)(nil)
	_ runtime.LogLikelihooder = (*Fake)(nil)
	_ runtime.Bencher         = (*Fake)(nil)
)

var fakeWords = []string{
	"the", "cat", "sat", "on", "a", "warm", "mat", "and", "dreamed", "of",
	"fish", "while", "rain", "fell", "softly", "outside,", "then", "woke.",
	"Später", "naïve", "日本", "—", "café", "über",
}

// ErrFakeClosed is returned by a closed Fake.
var ErrFakeClosed = errors.New("fake runtime is closed")

// Describe names the fake.
func (f *Fake) Describe() runtime.Info {
	return runtime.Info{Name: "fake", Version: "1", Settings: map[string]any{"eos_every": f.EOSEvery}}
}

func (f *Fake) promptText(req runtime.Request) (string, int) {
	if !req.IsChat() {
		return req.Prompt, len(strings.Fields(req.Prompt)) + 1
	}
	var b strings.Builder
	n := 1
	for _, m := range req.Messages {
		fmt.Fprintf(&b, "<%s>%s\n", m.Role, m.Content)
		n += 3 + len(strings.Fields(m.Content))
	}
	return b.String(), n
}

// next returns the i-th word generated after prompt, or "" for end of
// sequence.
func (f *Fake) next(prompt string, seed uint64, i int) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d\x00%d\x00%s", seed, i, prompt)
	v := h.Sum64()
	if f.EOSEvery > 0 && i > 0 && v%uint64(f.EOSEvery) == 0 {
		return ""
	}
	return " " + fakeWords[(v>>8)%uint64(len(fakeWords))]
}

// Generate produces the deterministic word chain for req.
func (f *Fake) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	if f.closed.Load() {
		return runtime.Response{}, ErrFakeClosed
	}
	if err := ctx.Err(); err != nil {
		return runtime.Response{}, err
	}
	start := time.Now()
	prompt, nPrompt := f.promptText(req)
	var seed uint64
	if req.Gen.Temperature > 0 {
		seed = uint64(req.Gen.Seed) + 1
	}
	max := req.Gen.MaxTokens
	if max == 0 {
		max = f.DefaultMaxTokens
	}
	if max == 0 {
		max = 64
	}
	var text strings.Builder
	resp := runtime.Response{PromptTokens: nPrompt, FinishReason: runtime.FinishLength}
	for i := range max {
		if f.TokenDelay > 0 {
			select {
			case <-ctx.Done():
				return runtime.Response{}, ctx.Err()
			case <-time.After(f.TokenDelay):
			}
		}
		if err := ctx.Err(); err != nil {
			return runtime.Response{}, err
		}
		w := f.next(prompt, seed, i)
		if w == "" {
			resp.FinishReason = runtime.FinishStop
			break
		}
		prev := text.Len()
		text.WriteString(w)
		resp.CompletionTokens++
		if f.afterToken != nil {
			f.afterToken(i)
		}
		if cut := firstStop(text.String(), prev, req.Gen.Stop); cut >= 0 {
			s := text.String()[:cut]
			text.Reset()
			text.WriteString(s)
			resp.FinishReason = runtime.FinishStop
			break
		}
		if i == 0 {
			resp.Timings.TimeToFirstToken = time.Since(start)
		}
	}
	resp.Text = text.String()
	resp.Timings.Total = time.Since(start)
	return resp, nil
}

func firstStop(s string, prev int, stops []string) int {
	cut := -1
	for _, st := range stops {
		if st == "" {
			continue
		}
		from := max(0, prev-len(st)+1)
		if i := strings.Index(s[from:], st); i >= 0 && (cut < 0 || from+i < cut) {
			cut = from + i
		}
	}
	return cut
}

// LogLikelihood scores continuation words: a word that is the first word
// the fake would generate after the text before it costs log(0.5), any
// other word log(0.5/len(words)).
func (f *Fake) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	if f.closed.Load() {
		return nil, ErrFakeClosed
	}
	out := make([]runtime.LoglikResult, len(reqs))
	for i, r := range reqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res := runtime.LoglikResult{IsGreedy: true}
		prompt := r.Context
		for _, w := range strings.Fields(r.Continuation) {
			res.Tokens++
			if f.next(prompt, 0, 0) == " "+w {
				res.LogProb += math.Log(0.5)
			} else {
				res.LogProb += math.Log(0.5 / float64(len(fakeWords)))
				res.IsGreedy = false
			}
			prompt += " " + w
		}
		out[i] = res
	}
	return out, nil
}

// Bench reports synthetic times proportional to the sizes (1µs a token).
func (f *Fake) Bench(ctx context.Context, req runtime.BenchRequest) (runtime.BenchResult, error) {
	if f.closed.Load() {
		return runtime.BenchResult{}, ErrFakeClosed
	}
	if err := ctx.Err(); err != nil {
		return runtime.BenchResult{}, err
	}
	return runtime.BenchResult{
		PromptTokens:  req.NPrompt,
		GenTokens:     req.NGen,
		PrefillTime:   time.Duration(req.NPrompt) * time.Microsecond,
		DecodeTime:    time.Duration(req.NGen) * time.Microsecond,
		FirstTokenLag: time.Duration(req.NPrompt+1) * time.Microsecond,
	}, nil
}

// Close marks the fake closed; it is idempotent.
func (f *Fake) Close() error {
	f.closed.Store(true)
	return nil
}
