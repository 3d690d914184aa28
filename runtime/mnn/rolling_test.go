package mnn

import (
	"strings"
	"testing"
)

func TestMaxAllTokensOption(t *testing.T) {
	for _, bad := range []any{"64", 0, -1, 1.5} {
		if _, err := (Options{Config: map[string]any{"max_all_tokens": bad}}).withDefaults(); err == nil || !strings.Contains(err.Error(), "max_all_tokens") {
			t.Errorf("max_all_tokens %v: %v", bad, err)
		}
	}
	for _, c := range []struct {
		cfg  map[string]any
		pkg  int
		want int
	}{{nil, 0, defaultMaxAllTokens}, {nil, 512, 512}, {map[string]any{"max_all_tokens": float64(64)}, 512, 64}, {map[string]any{"max_all_tokens": 32}, 0, 32}} {
		r := &Runtime{opts: Options{Config: c.cfg}, pkg: Package{MaxAllTokens: c.pkg}}
		if n, err := r.MaxLength(); err != nil || n != c.want {
			t.Errorf("config %v package %d: %d, %v; want %d", c.cfg, c.pkg, n, err, c.want)
		}
	}
}
