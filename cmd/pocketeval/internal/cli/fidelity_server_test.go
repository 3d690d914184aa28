package cli

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// fidelity compare --server: a loopback server shaped like llama-server
// (/completion with n_probs) that runs stories260K through llama.cpp is
// compared with a llama.cpp reference of the same file: top-1 agreement is
// complete and the KL lower bound is at the reference file's rounding.
func TestFidelityCompareServer(t *testing.T) {
	needLlama(t)
	model := sharedtest.Dir(t, "models/gguf/stories260K.gguf")
	text := filepath.Join(sharedtest.Datasets(t), "bbh", "cot-prompts", "date_understanding.txt")
	ref := filepath.Join(t.TempDir(), "ref.logits")
	if code, out, errOut := runReal(t, "fidelity", "reference", "--runtime", "llamacpp", "--model", model, "--text", text, "--ctx", "128", "--chunks", "2", "-o", ref); code != 0 {
		t.Fatalf("reference: %d\n%s%s", code, out, errOut)
	}
	rt, err := llamacpp.Open(context.Background(), llamacpp.Options{Model: model, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt []int32 `json:"prompt"`
			NProbs int     `json:"n_probs"`
		}
		if r.URL.Path != "/completion" || json.NewDecoder(r.Body).Decode(&req) != nil || req.NProbs < 1 || len(req.Prompt) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		var lp []float64
		err := rt.Logits(r.Context(), req.Prompt, len(req.Prompt)-1, func(_ int, l []float32) error {
			mx := float64(l[0])
			for _, v := range l {
				mx = math.Max(mx, float64(v))
			}
			var s float64
			for _, v := range l {
				s += math.Exp(float64(v) - mx)
			}
			for _, v := range l {
				lp = append(lp, float64(v)-mx-math.Log(s))
			}
			return nil
		})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		ids := make([]int, len(lp))
		for i := range ids {
			ids[i] = i
		}
		sort.SliceStable(ids, func(a, b int) bool { return lp[ids[a]] > lp[ids[b]] })
		var top []map[string]any
		for _, id := range ids[:req.NProbs] {
			top = append(top, map[string]any{"id": id, "logprob": lp[id]})
		}
		json.NewEncoder(w).Encode(map[string]any{"completion_probabilities": []any{map[string]any{"top_logprobs": top}}})
	}))
	defer srv.Close()
	code, out, errOut := runReal(t, "fidelity", "compare", "--ref", ref, "--server", srv.URL+"/v1", "--server-top-k", "10", "--json")
	if code != 0 {
		t.Fatalf("compare --server: %d\n%s%s", code, out, errOut)
	}
	var doc struct {
		Candidate struct{ Name string }
		Report    struct {
			Positions int
			KLMean    struct{ Value float64 } `json:"kl_mean"`
			Top1      struct{ Value float64 } `json:"top1_agreement"`
			TopK      *struct {
				Bound bool `json:"kl_is_lower_bound"`
			} `json:"candidate_top_k"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Candidate.Name != "llama-server" || doc.Report.Positions != 2*63 || doc.Report.Top1.Value != 1 ||
		math.Abs(doc.Report.KLMean.Value) > 1e-4 || doc.Report.TopK == nil || !doc.Report.TopK.Bound {
		t.Fatalf("compare --server: %s", out)
	}
	if code, _, errOut := runReal(t, "fidelity", "compare", "--ref", ref, "--server", srv.URL, "--server-api", "vllm"); code != ExitUsage || !strings.Contains(errOut, "needs --model") {
		t.Fatalf("vllm without --model: exit %d, %s", code, errOut)
	}
}
