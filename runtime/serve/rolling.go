package serve

import (
	"net/http"

	"github.com/pocketeval/pocketeval/runtime"
)

// loglikelihoodRolling answers POST /v1/loglikelihood_rolling, the
// pocketeval extension for lm-eval's loglikelihood_rolling: body
// {"model", "texts": [...]}, answer {"object": "loglikelihood_rolling",
// "model", "results": [{"logprob", "tokens", "windows"}]}, each text
// scored whole by the runtime's own RollingLoglikelihooder (its windows
// of its own context size). An empty list asks whether the runtime can.
func (h *Handler) loglikelihoodRolling(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Model string   `json:"model"`
		Texts []string `json:"texts"`
	}
	if !h.decode(w, r, &body) {
		return
	}
	rl, ok := h.rt.(runtime.RollingLoglikelihooder)
	if !ok {
		writeError(w, http.StatusNotImplemented, "invalid_request_error", "", "this runtime cannot compute rolling log-likelihoods")
		return
	}
	if body.Texts == nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "texts", "is required (an array of strings; empty asks whether rolling log-likelihoods are available)")
		return
	}
	res := []runtime.RollingResult{}
	if len(body.Texts) > 0 {
		if !h.acquire(w, r) {
			return
		}
		var err error
		res, err = rl.LoglikelihoodRolling(r.Context(), body.Texts)
		h.release()
		if err != nil {
			h.writeRuntimeError(w, r, err, "texts")
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "loglikelihood_rolling", "model": h.model, "results": res})
}
