package openai

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// fakeVLLM answers as vLLM does for lm-eval's remote tokenizer and echoed
// completions. Its tokenizer maps each byte b to id b+10 ("<s>" is 1,
// "</s>" 2); the log-probability of a token depends only on the token
// before it, so a text's rolling log-likelihood equals the sum over the
// whole sequence after the prefix token, whatever the windows.
type fakeVLLM struct {
	bos, eos *string
	mu       sync.Mutex
	prompts  [][]int32
}

func pairLogprob(prev, cur int32) float64 { return -float64((prev*31+cur)%97+1) / 64 }

func (f *fakeVLLM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/tokenizer_info":
		json.NewEncoder(w).Encode(map[string]any{"bos_token": f.bos, "eos_token": f.eos})
	case "/tokenize":
		var req struct {
			Prompt string `json:"prompt"`
			Add    *bool  `json:"add_special_tokens"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		if req.Add == nil || *req.Add {
			http.Error(w, "want add_special_tokens false", 400)
			return
		}
		ids := []int32{}
		switch req.Prompt {
		case "<s>":
			ids = append(ids, 1)
		case "</s>":
			ids = append(ids, 2)
		case "<zero>":
			ids = append(ids, 0)
		default:
			for _, b := range []byte(req.Prompt) {
				ids = append(ids, int32(b)+10)
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"count": len(ids), "max_model_len": 4096, "tokens": ids})
	case "/v1/completions":
		var req struct {
			Prompt [][]int32 `json:"prompt"`
			Echo   bool      `json:"echo"`
			Max    int       `json:"max_tokens"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Prompt) != 1 || !req.Echo || req.Max != 1 {
			http.Error(w, "bad request", 400)
			return
		}
		p := req.Prompt[0]
		f.mu.Lock()
		f.prompts = append(f.prompts, p)
		f.mu.Unlock()
		lps := []*float64{nil}
		for i := 1; i < len(p); i++ {
			v := pairLogprob(p[i-1], p[i])
			lps = append(lps, &v)
		}
		gen := -0.5
		lps = append(lps, &gen)
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{{"index": 0, "text": "x",
			"logprobs": map[string]any{"token_logprobs": lps}}}})
	default:
		http.NotFound(w, r)
	}
}

func TestLoglikelihoodRollingEcho(t *testing.T) {
	bos, eos, zero := "<s>", "</s>", "<zero>"
	text := "It was a sunny day, and the cat sat on the warm mat by the door."
	want := func(prefix int32) float64 {
		prev, sum := prefix, 0.0
		for _, b := range []byte(text) {
			sum += pairLogprob(prev, int32(b)+10)
			prev = int32(b) + 10
		}
		return sum
	}
	for _, tc := range []struct {
		name      string
		bos, eos  *string
		maxLength int
		prefix    int32
	}{
		{"lm-eval default 2048, one window", &bos, &eos, 0, 1},
		{"windows of 8 after BOS", &bos, &eos, 10, 1},
		{"windows of 7, the last of 1 token", &bos, &eos, 9, 1},
		{"no BOS: EOS", nil, &eos, 10, 2},
		{"BOS id 0 passes to EOS as Python's or", &zero, &eos, 10, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeVLLM{bos: tc.bos, eos: tc.eos}
			srv := httptest.NewServer(f)
			defer srv.Close()
			c, err := New(Options{BaseURL: srv.URL + "/v1", MaxLength: tc.maxLength})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.LoglikelihoodRolling(context.Background(), nil); err != nil {
				t.Fatalf("probe: %v", err)
			}
			res, err := c.LoglikelihoodRolling(context.Background(), []string{text})
			if err != nil {
				t.Fatal(err)
			}
			if got, w := res[0].LogProb, want(tc.prefix); math.Abs(got-w) > 1e-9 {
				t.Errorf("logprob %v, want %v", got, w)
			}
			maxLength := tc.maxLength
			if maxLength == 0 {
				maxLength = 2048
			}
			// lm-eval's order of addition: each window's sum, then the
			// windows', so the float64 is Python's to the bit.
			total := 0.0
			for wi, p := range f.prompts {
				// window wi predicts the next max_length-2 tokens, the
				// last one what remains
				k := min(len(text)-wi*(maxLength-2), maxLength-2)
				w := 0.0
				for i := len(p) - k; i < len(p); i++ {
					w += pairLogprob(p[i-1], p[i])
				}
				total += w
			}
			if res[0].LogProb != total {
				t.Errorf("logprob %v, not lm-eval's per-window sum %v", res[0].LogProb, total)
			}
			wantWindows := (len(text) + maxLength - 3) / (maxLength - 2)
			if res[0].Tokens != len(text) || res[0].Windows != wantWindows || len(f.prompts) != wantWindows {
				t.Errorf("%d tokens in %d windows (%d prompts), want %d in %d", res[0].Tokens, res[0].Windows, len(f.prompts), len(text), wantWindows)
			}
			if len(f.prompts) > 0 && f.prompts[0][0] != tc.prefix {
				t.Errorf("first window starts with %d, want the prefix token %d", f.prompts[0][0], tc.prefix)
			}
			for i, p := range f.prompts {
				// the prompt and the one generated token fit max_length
				if len(p)+1 > maxLength {
					t.Errorf("window %d: prompt of %d tokens for max_length %d", i, len(p), maxLength)
				}
			}
		})
	}
}

func TestLoglikelihoodRollingNotOffered(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.LoglikelihoodRolling(context.Background(), []string{"a"})
	if !errors.Is(err, runtime.ErrNotSupported) {
		t.Fatalf("err = %v, want ErrNotSupported", err)
	}
	for _, want := range []string{RollingPath, "/tokenizer_info"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	f := &fakeVLLM{}
	srv2 := httptest.NewServer(f)
	defer srv2.Close()
	c2, _ := New(Options{BaseURL: srv2.URL + "/v1"})
	if _, err := c2.LoglikelihoodRolling(context.Background(), nil); !errors.Is(err, runtime.ErrNotSupported) {
		t.Errorf("no BOS or EOS: err = %v, want ErrNotSupported", err)
	}
}
