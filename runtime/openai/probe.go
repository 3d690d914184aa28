package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/pocketeval/pocketeval/runtime"
)

// serverInfo is what GET /models said.
type serverInfo struct {
	Models  []string
	Runtime *runtime.Info // pocketeval serve only
}

// ModelsResponse is the body of GET /models. `pocketeval serve` adds a
// "pocketeval" object to its model entry describing the runtime it serves.
type ModelsResponse struct {
	Object string        `json:"object"`
	Data   []ModelObject `json:"data"`
}

// ModelObject is one entry of ModelsResponse.
type ModelObject struct {
	ID         string        `json:"id"`
	Object     string        `json:"object"`
	Created    int64         `json:"created"`
	OwnedBy    string        `json:"owned_by"`
	Pocketeval *runtime.Info `json:"pocketeval,omitempty"`
}

// Probe checks that the server answers before a run starts, with the same
// retries as a generation: GET {BaseURL}/models. Unreachable servers and
// rejected keys (401, 403) are errors; a server without /models (404 and
// the like) is accepted. What the server reports is recorded for Describe.
func (c *Client) Probe(ctx context.Context) error {
	info, err := retry(ctx, c, "openai: GET /models", func(ctx context.Context) (*serverInfo, error) {
		hresp, err := c.do(ctx, http.MethodGet, "/models", nil, false)
		if err != nil {
			var ae *APIError
			if errors.As(err, &ae) && !ae.Temporary() && ae.StatusCode != http.StatusUnauthorized && ae.StatusCode != http.StatusForbidden {
				return nil, nil // no /models: nothing to record
			}
			return nil, err
		}
		defer hresp.Body.Close()
		data, err := io.ReadAll(io.LimitReader(hresp.Body, maxBody))
		if err != nil {
			return nil, readError(err)
		}
		var m ModelsResponse
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, nil // not the usual shape; not worth failing a run
		}
		si := &serverInfo{Models: []string{}}
		for _, d := range m.Data {
			si.Models = append(si.Models, d.ID)
			if d.Pocketeval != nil && si.Runtime == nil {
				si.Runtime = d.Pocketeval
			}
		}
		return si, nil
	})
	if err != nil {
		return fmt.Errorf("probe %s: %w", redactURL(c.base), err)
	}
	if info != nil {
		c.server.Store(info)
	}
	return nil
}
