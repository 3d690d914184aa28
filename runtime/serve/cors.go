package serve

import (
	"net/http"
	"strings"
)

// cors adds the CORS headers for a request from an allowed browser
// origin (Options.CORSOrigins) and reports whether it did.
func (h *Handler) cors(w http.ResponseWriter, r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || len(h.opts.CORSOrigins) == 0 {
		return false
	}
	allowed := ""
	for _, o := range h.opts.CORSOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			allowed = o
			break
		}
	}
	if allowed == "" {
		return false
	}
	hd := w.Header()
	if allowed == "*" {
		hd.Set("Access-Control-Allow-Origin", "*")
	} else {
		hd.Set("Access-Control-Allow-Origin", origin)
		hd.Add("Vary", "Origin")
	}
	hd.Set("Access-Control-Expose-Headers", "Retry-After")
	return true
}

// preflight answers a CORS preflight (OPTIONS): the methods, and the
// headers the browser asks to send (the OpenAI SDK sends its own
// x-stainless-* headers besides Authorization and Content-Type). Without
// an allowed origin it is 204 with no CORS headers, which browsers treat
// as a refusal.
func (h *Handler) preflight(w http.ResponseWriter, r *http.Request) {
	if w.Header().Get("Access-Control-Allow-Origin") != "" {
		hd := w.Header()
		hd.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
			hd.Set("Access-Control-Allow-Headers", req)
		} else {
			hd.Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
		}
		hd.Set("Access-Control-Max-Age", "600")
	}
	w.WriteHeader(http.StatusNoContent)
}
