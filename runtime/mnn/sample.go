package mnn

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/runtime"
)

// sample decodes with temperature (and top-p) sampling done here, in Go,
// from the engine's logits: MNN's own sampler is fixed at load and seeded
// from std::random_device, so it cannot reproduce a run. The random source
// is a PCG seeded from req.Gen.Seed, so the same request and seed give the
// same text on the same build and thread count.
//
// Timings follow MNN's conventions: prefill is the forward pass over the
// prompt, decode time covers the forward pass of each sampled non-stop
// token (sampling itself is not included).
func (r *Runtime) sample(ctx context.Context, sl *slot, req runtime.Request, ids []int, keep, maxTokens int, start time.Time, text *runtime.TextStream) (runtime.Response, error) {
	rng := rand.New(rand.NewPCG(uint64(req.Gen.Seed), 0x706f636b65746576)) // "pocketev"
	s := sampler{temperature: req.Gen.Temperature, topP: req.Gen.TopP}
	e := sl.e
	t0 := time.Now()
	logits, err := e.Forward(ids, keep)
	if err != nil {
		return runtime.Response{}, fmt.Errorf("prefill %d tokens: %w", len(ids), err)
	}
	r.pool.record(sl, ids)
	prefill := time.Since(t0)
	var (
		out      []byte
		tokens   int
		forwards int
		decode   time.Duration
		ttft     time.Duration
		finish   = runtime.FinishLength
		maxStop  int
	)
	for _, st := range req.Gen.Stop {
		maxStop = max(maxStop, len(st))
	}
	for tokens < maxTokens {
		if err := ctx.Err(); err != nil {
			return runtime.Response{}, err
		}
		tok := s.next(logits, rng)
		if e.IsStop(tok) {
			finish = runtime.FinishStop
			break
		}
		tokens++
		from := max(0, len(out)-maxStop)
		out = append(out, e.Piece(tok)...)
		if tokens == 1 {
			ttft = time.Since(start)
		}
		if cut, ok := findStop(out, from, req.Gen.Stop); ok {
			out = out[:cut]
			finish = runtime.FinishStop
			break
		}
		text.Update(out)
		if tokens == maxTokens {
			break // no forward pass for a token nobody will sample from
		}
		t1 := time.Now()
		if logits, err = e.Forward([]int{tok}, -1); err != nil {
			return runtime.Response{}, fmt.Errorf("decode token %d: %w", tokens+1, err)
		}
		decode += time.Since(t1)
		forwards++
	}
	resp := runtime.Response{
		Text:             strings.ToValidUTF8(string(out), string(utf8.RuneError)),
		FinishReason:     finish,
		PromptTokens:     len(ids),
		CompletionTokens: tokens,
	}
	resp.Timings.Total = time.Since(start)
	resp.Timings.TimeToFirstToken = ttft
	if prefill > 0 {
		resp.Timings.PrefillTokPerSec = float64(len(ids)-keep) / prefill.Seconds()
	}
	if forwards > 0 && decode > 0 {
		resp.Timings.DecodeTokPerSec = float64(forwards) / decode.Seconds()
	}
	return resp, nil
}

// sampler draws a token from logits with temperature and nucleus (top-p)
// filtering. Its scratch buffers are reused across tokens.
type sampler struct {
	temperature float64
	topP        float64 // 0 or 1: no nucleus filtering
	probs       []float64
	order       []int
}

// next returns a token id drawn from softmax(logits / temperature),
// restricted to the smallest set of most likely tokens whose probability
// reaches topP.
func (s *sampler) next(logits []float32, rng *rand.Rand) int {
	n := len(logits)
	if cap(s.probs) < n {
		s.probs = make([]float64, n)
	}
	p := s.probs[:n]
	mx := math.Inf(-1)
	for _, l := range logits {
		mx = max(mx, float64(l))
	}
	var z float64
	for i, l := range logits {
		p[i] = math.Exp((float64(l) - mx) / s.temperature)
		z += p[i]
	}
	if s.topP > 0 && s.topP < 1 {
		if cap(s.order) < n {
			s.order = make([]int, n)
		}
		order := s.order[:n]
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			switch {
			case p[a] > p[b]:
				return -1
			case p[a] < p[b]:
				return 1
			}
			return a - b
		})
		var cum, kept float64
		k := 0
		for k < n && (k == 0 || cum < s.topP*z) {
			cum += p[order[k]]
			k++
		}
		kept = cum
		u := rng.Float64() * kept
		for _, id := range order[:k] {
			u -= p[id]
			if u < 0 {
				return id
			}
		}
		return order[k-1]
	}
	u := rng.Float64() * z
	for i, v := range p {
		u -= v
		if u < 0 {
			return i
		}
	}
	return n - 1
}
