package fidelity

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// toyModel is a deterministic next-token distribution over a small
// vocabulary, a function of the prefix; shift perturbs it (a candidate).
type toyModel struct {
	vocab int
	shift float64
}

func (m toyModel) logits(prefix []int32) []float32 {
	out := make([]float32, m.vocab)
	var h uint64 = 1469598103934665603
	for _, t := range prefix {
		h = (h ^ uint64(t)) * 1099511628211
	}
	for i := range out {
		x := (h ^ uint64(i)*0x9e3779b97f4a7c15) * 0xbf58476d1ce4e5b9
		out[i] = float32(4*float64(x>>40)/float64(1<<24)) - 2
		if i%5 == 0 {
			out[i] += float32(m.shift)
		}
	}
	return out
}

func (m toyModel) Vocab() runtime.VocabInfo {
	return runtime.VocabInfo{Size: m.vocab, BOS: -1, EOS: -1, SHA256: "toy"}
}

func (m toyModel) Tokenize(string, bool) ([]int32, error) { return nil, nil }

func (m toyModel) Logits(_ context.Context, tokens []int32, from int, fn func(int, []float32) error) error {
	for pos := from; pos < len(tokens); pos++ {
		if err := fn(pos, m.logits(tokens[:pos+1])); err != nil {
			return err
		}
	}
	return nil
}

func logprobs(l []float32) []float64 {
	lse, _, _, _ := logSumExp(l)
	out := make([]float64, len(l))
	for i, v := range l {
		out[i] = float64(v - lse)
	}
	return out
}

func topIDs(lp []float64, k int) []int {
	ids := make([]int, len(lp))
	for i := range ids {
		ids[i] = i
	}
	sort.SliceStable(ids, func(a, b int) bool { return lp[ids[a]] > lp[ids[b]] })
	return ids[:k]
}

// fakeLlamaServer answers /completion as llama-server does with n_probs.
func fakeLlamaServer(t *testing.T, m toyModel) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt []int32 `json:"prompt"`
			NProbs int     `json:"n_probs"`
		}
		if r.URL.Path != "/completion" || json.NewDecoder(r.Body).Decode(&req) != nil || req.NProbs < 1 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		lp := logprobs(m.logits(req.Prompt))
		var top []map[string]any
		for _, id := range topIDs(lp, req.NProbs) {
			top = append(top, map[string]any{"id": id, "token": "t" + strconv.Itoa(id), "logprob": lp[id]})
		}
		json.NewEncoder(w).Encode(map[string]any{"content": "x", "completion_probabilities": []any{
			map[string]any{"id": top[0]["id"], "logprob": top[0]["logprob"], "top_logprobs": top}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// fakeVLLM answers /v1/completions with prompt_logprobs as vLLM does: per
// prompt position (the first null) the top k and the actual token.
func fakeVLLM(t *testing.T, m toyModel) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt []int32 `json:"prompt"`
			K      int     `json:"prompt_logprobs"`
		}
		if r.URL.Path != "/v1/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || req.K < 1 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		pl := []any{nil}
		for i := 1; i < len(req.Prompt); i++ {
			lp := logprobs(m.logits(req.Prompt[:i]))
			e := map[string]any{}
			ids := topIDs(lp, len(lp))
			rank := map[int]int{}
			for r, id := range ids {
				rank[id] = r + 1
			}
			for _, id := range append(ids[:req.K:req.K], int(req.Prompt[i])) {
				e[strconv.Itoa(id)] = map[string]any{"logprob": lp[id], "rank": rank[id], "decoded_token": "t"}
			}
			pl = append(pl, e)
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"text": "x", "prompt_logprobs": pl}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A server candidate through llama-server's n_probs and vLLM's
// prompt_logprobs: the same model reads KL ≈ 0 and full top-1 agreement;
// a perturbed one reads a KL no larger than the true one (computed from
// its full logits), and the same top-1 agreement.
func TestCompareTopKServers(t *testing.T) {
	ref := toyModel{vocab: 50}
	path := filepath.Join(t.TempDir(), "ref.logits")
	var seqs []Sequence
	for s := range 3 {
		toks := make([]int32, 24)
		for i := range toks {
			toks[i] = int32((i*7 + s*13) % ref.vocab)
		}
		seqs = append(seqs, Sequence{Tokens: toks, From: 4})
	}
	if _, _, err := WriteReference(context.Background(), ref, runtime.Info{Name: "toy"}, Source{Kind: "text"}, seqs, path, nil); err != nil {
		t.Fatal(err)
	}
	open := func() *Reference {
		r, err := OpenReference(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	for _, cand := range []toyModel{ref, {vocab: 50, shift: 0.7}} {
		full, _, err := Compare(context.Background(), cand, open(), Options{TopP: -1})
		if err != nil {
			t.Fatal(err)
		}
		for name, src := range map[string]TopKSource{
			"llama-server": &LlamaServer{BaseURL: fakeLlamaServer(t, cand).URL, K: 10},
			"vllm":         &VLLM{BaseURL: fakeVLLM(t, cand).URL + "/v1", Model: "toy", K: 10},
		} {
			got, cost, err := CompareTopK(context.Background(), src, open(), Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			t.Logf("shift %.1f %s: KL bound %.4g (true %.4g), top-1 %.3f (true %.3f), PPL %.4f (true %.4f), estimated %d of %d",
				cand.shift, name, got.KLMean.Value, full.KLMean.Value, got.Top1.Value, full.Top1.Value,
				got.PPLCand.Value, full.PPLCand.Value, got.CandidateTopK.EstimatedNextTokens, cost.Positions)
			if got.Positions != full.Positions || got.Top1.Value != full.Top1.Value {
				t.Errorf("%s: %d positions, top-1 %v; full logits: %d, %v", name, got.Positions, got.Top1.Value, full.Positions, full.Top1.Value)
			}
			if got.KLMean.Value > full.KLMean.Value+1e-6 || got.KLMax > full.KLMax+1e-6 {
				t.Errorf("%s: KL %v (max %v) is above the true %v (max %v): not a lower bound", name, got.KLMean.Value, got.KLMax, full.KLMean.Value, full.KLMax)
			}
			if cand.shift == 0 && math.Abs(got.KLMean.Value) > 1e-4 {
				t.Errorf("%s: the reference itself reads KL %v", name, got.KLMean.Value)
			}
			if name == "vllm" && (got.CandidateTopK.EstimatedNextTokens != 0 || math.Abs(got.PPLCand.Value-full.PPLCand.Value) > 1e-3*full.PPLCand.Value) {
				t.Errorf("vllm: perplexity %v, full logits %v (%d estimated)", got.PPLCand.Value, full.PPLCand.Value, got.CandidateTopK.EstimatedNextTokens)
			}
		}
	}
}
