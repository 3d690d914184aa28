//go:build !nollamacpp

package llamacpp

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/openai"
	"github.com/pocketeval/pocketeval/runtime/serve"
)

// Rolling log-likelihoods through `pocketeval serve` and the openai
// runtime equal the in-process ones bit for bit: the server runs the same
// computation, and JSON carries a float64 exactly.
func TestLoglikelihoodRollingServed(t *testing.T) {
	rt := open(t, stories, Options{ContextSize: 64})
	texts := []string{
		"Once upon a time there was a cat.",
		strings.Repeat("The little dog ran to the park and played with a ball. ", 2*rt.nCtx/19),
		"",
	}
	want, err := rt.LoglikelihoodRolling(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if want[1].Windows < 2 {
		t.Fatalf("long text in %d windows", want[1].Windows)
	}
	srv := httptest.NewServer(serve.New(rt, serve.Options{}))
	defer srv.Close()
	c, err := openai.New(openai.Options{BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.LoglikelihoodRolling(context.Background(), nil); err != nil {
		t.Fatalf("probe: %v", err)
	}
	got, err := c.LoglikelihoodRolling(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("text %d: served %+v, in process %+v", i, got[i], want[i])
		}
	}

	// A server without the extension: not supported, named.
	plain := httptest.NewServer(serve.New(runtime.Runtime(generateOnly{rt}), serve.Options{}))
	defer plain.Close()
	c2, _ := openai.New(openai.Options{BaseURL: plain.URL + "/v1"})
	if _, err := c2.LoglikelihoodRolling(context.Background(), nil); !errors.Is(err, runtime.ErrNotSupported) || !strings.Contains(err.Error(), openai.RollingPath) {
		t.Errorf("a runtime without rolling log-likelihoods: %v", err)
	}
}

// generateOnly hides every method but the runtime's own.
type generateOnly struct{ runtime.Runtime }
