package cli

import (
	"context"
	"os"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/openai"
)

// openOpenAI opens an OpenAI-compatible server as a runtime and probes it
// (GET /models). The API key is read from the environment variable named by
// --api-key-env (default OPENAI_API_KEY); an unset variable means no key,
// which local servers accept.
func openOpenAI(ctx context.Context, o RuntimeOptions) (runtime.Runtime, error) {
	if o.BaseURL == "" {
		return nil, FlagErrorf("--base-url is required for --runtime openai (e.g. http://127.0.0.1:8080/v1)")
	}
	if o.Endpoint != openai.EndpointChat && o.Endpoint != openai.EndpointCompletions {
		return nil, FlagErrorf("--endpoint %q: must be %s or %s", o.Endpoint, openai.EndpointChat, openai.EndpointCompletions)
	}
	if o.MaxRetries < 0 {
		return nil, FlagErrorf("--max-retries %d: must not be negative", o.MaxRetries)
	}
	if o.RequestTimeout <= 0 {
		return nil, FlagErrorf("--request-timeout %v: must be positive", o.RequestTimeout)
	}
	var key string
	if o.APIKeyEnv != "" {
		key = os.Getenv(o.APIKeyEnv)
	}
	c, err := openai.New(openai.Options{
		BaseURL:        o.BaseURL,
		Model:          o.Model,
		APIKey:         key,
		Endpoint:       o.Endpoint,
		RequestTimeout: o.RequestTimeout,
		MaxRetries:     o.MaxRetries,
	})
	if err != nil {
		return nil, err
	}
	// Fail now, not on every sample, when the server is unreachable or
	// rejects the key; and learn what it serves for the manifest.
	if err := c.Probe(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
