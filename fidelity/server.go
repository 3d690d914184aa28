package fidelity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// TopLogprob is one entry of a server's top-k next-token log-probabilities.
type TopLogprob struct {
	ID      int
	Logprob float64
}

// TopKSource is a candidate known only through its k most likely next
// tokens at each position: an OpenAI-compatible server that returns
// log-probabilities. fn receives, for each position from pos = from to
// len(tokens)-2, the top-k (most likely first) and, when the server gives
// it, the log-probability of the actual next token tokens[pos+1] (nil
// otherwise).
type TopKSource interface {
	TopK(ctx context.Context, tokens []int32, from int, fn func(pos int, top []TopLogprob, next *float64) error) error
	// Describe names the source for the report.
	Describe() string
}

// LlamaServer asks llama-server's /completion for one token after each
// prefix with n_probs K (one request a position; llama-server keeps the
// prompt in its cache, so each request computes one new token). The
// actual next token's log-probability comes only when it is in the top K.
type LlamaServer struct {
	BaseURL string // the server's root, e.g. http://127.0.0.1:8080
	K       int
	Client  *http.Client
}

// VLLM asks vLLM's /v1/completions for prompt_logprobs K over the whole
// sequence in one request: every position's top K plus the actual next
// token's log-probability.
type VLLM struct {
	BaseURL string // the server's OpenAI root, e.g. http://127.0.0.1:8000/v1
	Model   string
	K       int
	Client  *http.Client
}

func (s *LlamaServer) Describe() string {
	return fmt.Sprintf("llama-server %s (n_probs %d)", s.BaseURL, s.K)
}

func (s *VLLM) Describe() string {
	return fmt.Sprintf("vLLM %s model %s (prompt_logprobs %d)", s.BaseURL, s.Model, s.K)
}

func postJSON(ctx context.Context, c *http.Client, url string, body, out any) error {
	if c == nil {
		c = &http.Client{Timeout: 10 * time.Minute}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<28))
	if err != nil {
		return fmt.Errorf("POST %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s: %s: %.300s", url, resp.Status, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("POST %s: decode the answer: %w", url, err)
	}
	return nil
}

// TopK implements TopKSource.
func (s *LlamaServer) TopK(ctx context.Context, tokens []int32, from int, fn func(int, []TopLogprob, *float64) error) error {
	url := strings.TrimSuffix(s.BaseURL, "/") + "/completion"
	for pos := from; pos <= len(tokens)-2; pos++ {
		var out struct {
			Probs []struct {
				Top []struct {
					ID      *int     `json:"id"`
					Logprob *float64 `json:"logprob"`
				} `json:"top_logprobs"`
			} `json:"completion_probabilities"`
		}
		body := map[string]any{"prompt": tokens[:pos+1], "n_predict": 1, "n_probs": s.K, "temperature": 0,
			"cache_prompt": true, "samplers": []string{}}
		if err := postJSON(ctx, s.Client, url, body, &out); err != nil {
			return err
		}
		if len(out.Probs) == 0 || len(out.Probs[0].Top) == 0 {
			return fmt.Errorf("POST %s: no completion_probabilities[0].top_logprobs in the answer (is this llama-server, with n_probs?)", url)
		}
		top := make([]TopLogprob, 0, len(out.Probs[0].Top))
		var next *float64
		for i, e := range out.Probs[0].Top {
			if e.ID == nil || e.Logprob == nil {
				return fmt.Errorf("POST %s: top_logprobs[%d] lacks id or logprob", url, i)
			}
			top = append(top, TopLogprob{ID: *e.ID, Logprob: *e.Logprob})
			if *e.ID == int(tokens[pos+1]) {
				lp := *e.Logprob
				next = &lp
			}
		}
		if err := fn(pos, top, next); err != nil {
			return err
		}
	}
	return nil
}

// TopK implements TopKSource.
func (s *VLLM) TopK(ctx context.Context, tokens []int32, from int, fn func(int, []TopLogprob, *float64) error) error {
	url := strings.TrimSuffix(s.BaseURL, "/") + "/completions"
	var out struct {
		Choices []struct {
			PromptLogprobs []map[string]struct {
				Logprob float64 `json:"logprob"`
				Rank    *int    `json:"rank"`
			} `json:"prompt_logprobs"`
		} `json:"choices"`
	}
	body := map[string]any{"model": s.Model, "prompt": tokens, "max_tokens": 1, "prompt_logprobs": s.K, "temperature": 0}
	if err := postJSON(ctx, s.Client, url, body, &out); err != nil {
		return err
	}
	if len(out.Choices) == 0 || len(out.Choices[0].PromptLogprobs) != len(tokens) {
		return fmt.Errorf("POST %s: want choices[0].prompt_logprobs for each of %d prompt tokens (is this vLLM?)", url, len(tokens))
	}
	pl := out.Choices[0].PromptLogprobs
	for pos := from; pos <= len(tokens)-2; pos++ {
		// Entry pos+1 is the distribution of token pos+1 given the
		// tokens before it: the top K and the actual token.
		entry := pl[pos+1]
		top := make([]TopLogprob, 0, len(entry))
		var next *float64
		for key, e := range entry {
			id, err := strconv.Atoi(key)
			if err != nil {
				return fmt.Errorf("POST %s: prompt_logprobs[%d] key %q is not a token id", url, pos+1, key)
			}
			if id == int(tokens[pos+1]) {
				lp := e.Logprob
				next = &lp
				if e.Rank != nil && *e.Rank > s.K {
					continue // the actual token, outside the top K
				}
			}
			top = append(top, TopLogprob{ID: id, Logprob: e.Logprob})
		}
		sort.Slice(top, func(i, j int) bool {
			if top[i].Logprob != top[j].Logprob {
				return top[i].Logprob > top[j].Logprob
			}
			return top[i].ID < top[j].ID
		})
		if len(top) > s.K {
			top = top[:s.K]
		}
		if err := fn(pos, top, next); err != nil {
			return err
		}
	}
	return nil
}

// CompareTopK compares a top-k candidate with the reference. Only the
// candidate's k most likely tokens (and the actual next token, when the
// server gives it) are known at a position; the rest of its mass, 1 minus
// what is known, is spread over the other tokens in proportion to the
// reference's probabilities. That completion has the least KL divergence of
// all distributions that agree with what the server returned (log-sum
// inequality over the unknown tokens), so the KL figures are lower bounds:
// KL ≥ Σ_known p·ln(p/q) + P_rest·ln(P_rest/Q_rest). Top-1 agreement is
// exact (the candidate's first token is known); the candidate's perplexity
// is exact where the actual token's log-probability is known, else an
// estimate. The same-top-p rate is not measured. The vocabulary cannot be checked by hash: ids at or beyond the
// reference's vocabulary size are refused.
func CompareTopK(ctx context.Context, src TopKSource, ref *Reference, o Options) (*TokenReport, Cost, error) {
	hv := ref.Header.Vocab
	// The top-p set of a completed distribution is not the server's: not
	// measured.
	a := &accum{}
	cost := Cost{Bytes: ref.Bytes, BytesPerPosition: ref.Header.BytesPerPosition}
	q := make([]float32, hv.Size)
	known := make([]bool, hv.Size)
	var elapsed time.Duration
	estimated := 0
	for i := 0; ; i++ {
		s, recs, err := ref.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, Cost{}, err
		}
		start := time.Now()
		err = src.TopK(ctx, s.Tokens, s.From, func(pos int, top []TopLogprob, next *float64) error {
			if len(top) == 0 {
				return fmt.Errorf("position %d: no top-k entries", pos)
			}
			k := pos - s.From
			base := decode(recs[k*ref.Header.RecordLen:(k+1)*ref.Header.RecordLen], hv.Size)
			tok := int(s.Tokens[pos+1])
			for j := range known {
				known[j] = false
			}
			var qKnown float64
			imax := -1
			set := func(id int, lp float64) error {
				if id < 0 || id >= hv.Size {
					return fmt.Errorf("position %d: token id %d is outside the reference's vocabulary of %d", pos, id, hv.Size)
				}
				if known[id] {
					return nil
				}
				known[id] = true
				q[id] = float32(lp)
				qKnown += math.Exp(lp)
				if imax < 0 || lp > float64(q[imax]) {
					imax = id
				}
				return nil
			}
			for _, t := range top {
				if err := set(t.ID, t.Logprob); err != nil {
					return err
				}
			}
			if next != nil {
				if err := set(tok, *next); err != nil {
					return err
				}
			} else if !known[tok] {
				estimated++
			}
			var pRest float64
			nRest := 0
			for j := range q {
				if !known[j] {
					pRest += math.Exp(float64(base.logProb(j)))
					nRest++
				}
			}
			qRest := math.Max(1-qKnown, 1e-12)
			for j := range q {
				if known[j] {
					continue
				}
				if pRest > 0 {
					q[j] = float32(math.Log(qRest) + float64(base.logProb(j)) - math.Log(pRest))
				} else {
					q[j] = float32(math.Log(qRest / float64(nRest)))
				}
			}
			a.addTop(q, base, tok, imax)
			return nil
		})
		elapsed += time.Since(start)
		if err != nil {
			return nil, Cost{}, fmt.Errorf("sequence %d: %s: %w", i+1, src.Describe(), err)
		}
		cost.Tokens += len(s.Tokens)
		cost.Positions += s.scored()
		if o.Progress != nil {
			o.Progress(i+1, ref.Header.Sequences)
		}
	}
	if a.count == 0 {
		return nil, Cost{}, fmt.Errorf("%s: no position to compare", ref.Path)
	}
	cost.Seconds = elapsed.Seconds()
	if cost.Seconds > 0 {
		cost.TokensPerSec = float64(cost.Tokens) / cost.Seconds
	}
	r := a.report(ref.Header.Sequences)
	r.CandidateTopK = &TopKNote{KLIsLowerBound: true, EstimatedNextTokens: estimated}
	return &r, cost, nil
}
