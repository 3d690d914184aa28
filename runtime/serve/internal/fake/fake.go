// Package fake provides a deterministic runtime for testing servers and
// clients: its answer is a pure function of the request, so the same
// request gives the same Response however it travels.
package fake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// Runtime answers with the words of the last user message (or the raw
// prompt) reversed, one token per word, prefixed by "echo:". It honours
// MaxTokens (finish "length") and Stop strings (cut before the first stop,
// finish "stop"). Tokens are whitespace-separated words: PromptTokens counts
// the words of every message plus one per message for its role.
//
// A request whose text contains "FAIL" fails with an error; one containing
// "UNSUPPORTED" fails with runtime.ErrNotSupported.
type Runtime struct {
	// Calls counts Generate calls.
	Calls atomic.Int64
	// Gate, when non-nil, is received from before each generation
	// returns (tests use it to hold requests in flight).
	Gate chan struct{}
	// Started, when non-nil, receives once per generation as it begins.
	Started chan struct{}
	// Cancelled counts generations that ended because ctx ended.
	Cancelled atomic.Int64
}

var (
	_ runtime.Runtime         = (*Runtime)(nil)
	_ runtime.LogLikelihooder = (*Runtime)(nil)
	_ runtime.Describer       = (*Runtime)(nil)
)

// Describe names the fake.
func (r *Runtime) Describe() runtime.Info {
	return runtime.Info{Name: "fake", Model: "fake-reverser"}
}

// Close does nothing.
func (r *Runtime) Close() error { return nil }

// Generate computes the deterministic answer.
func (r *Runtime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	return r.GenerateStream(ctx, req, nil)
}

// GenerateStream is Generate that reports each token as it is "decoded".
func (r *Runtime) GenerateStream(ctx context.Context, req runtime.Request, emit func(string) error) (runtime.Response, error) {
	r.Calls.Add(1)
	if r.Started != nil {
		r.Started <- struct{}{}
	}
	if r.Gate != nil {
		select {
		case <-r.Gate:
		case <-ctx.Done():
			r.Cancelled.Add(1)
			return runtime.Response{}, ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		return runtime.Response{}, err
	}
	src, promptTokens := req.Prompt, len(strings.Fields(req.Prompt))
	for _, m := range req.Messages {
		promptTokens += 1 + len(strings.Fields(m.Content))
		if m.Role == "user" {
			src = m.Content
		}
	}
	if strings.Contains(src, "UNSUPPORTED") {
		return runtime.Response{}, fmt.Errorf("fake: %w", runtime.ErrNotSupported)
	}
	if strings.Contains(src, "FAIL") {
		return runtime.Response{}, errors.New("fake: injected failure")
	}
	words := strings.Fields(src)
	toks := []string{"echo:"}
	for i := len(words) - 1; i >= 0; i-- {
		toks = append(toks, " "+words[i])
	}
	resp := runtime.Response{FinishReason: runtime.FinishStop, PromptTokens: promptTokens}
	var text strings.Builder
	start := time.Now()
	var ttft time.Duration
	for i, t := range toks {
		if req.Gen.MaxTokens > 0 && i == req.Gen.MaxTokens {
			resp.FinishReason = runtime.FinishLength
			break
		}
		next := text.String() + t
		if cut, ok := cutStop(next, req.Gen.Stop); ok {
			t = cut[text.Len():]
			text.WriteString(t)
			if emit != nil && t != "" {
				if err := emit(t); err != nil {
					return runtime.Response{}, err
				}
			}
			resp.CompletionTokens = i + 1
			break
		}
		text.WriteString(t)
		resp.CompletionTokens = i + 1
		if i == 0 {
			ttft = time.Since(start)
		}
		if emit != nil {
			if err := emit(t); err != nil {
				return runtime.Response{}, err
			}
		}
	}
	resp.Text = text.String()
	total := time.Since(start)
	resp.Timings = runtime.Timings{TimeToFirstToken: ttft, Total: total}
	return resp, nil
}

func cutStop(s string, stops []string) (string, bool) {
	best := -1
	for _, st := range stops {
		if st == "" {
			continue
		}
		if i := strings.Index(s, st); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return s, false
	}
	return s[:best], true
}

// LogLikelihood scores a continuation as -1 per byte, greedy when the
// continuation starts with a space, with one token per word.
func (r *Runtime) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	out := make([]runtime.LoglikResult, len(reqs))
	for i, q := range reqs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = runtime.LoglikResult{
			LogProb:  -float64(len(q.Continuation)),
			IsGreedy: strings.HasPrefix(q.Continuation, " "),
			Tokens:   len(strings.Fields(q.Continuation)),
		}
	}
	return out, nil
}
