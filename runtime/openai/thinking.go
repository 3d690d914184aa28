package openai

import (
	"maps"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// templateKwargs are the chat_template_kwargs of a chat request: the
// request's own TemplateKwargs, and enable_thinking per Options.Thinking
// unless the request set it. Nil (no field at all) when there are none.
func (c *Client) templateKwargs(req runtime.Request) map[string]any {
	th := c.opts.Thinking
	if len(req.TemplateKwargs) == 0 && th == chattemplate.ThinkingModelDefault {
		return nil
	}
	kw := maps.Clone(req.TemplateKwargs)
	if kw == nil {
		kw = map[string]any{}
	}
	if _, set := kw["enable_thinking"]; !set && th != chattemplate.ThinkingModelDefault {
		kw["enable_thinking"] = th == chattemplate.ThinkingOn
	}
	return kw
}

// ForwardsTemplateKwargs reports that a request's TemplateKwargs reach the
// server (as chat_template_kwargs), so `pocketeval serve` in front of this
// runtime accepts them; only with the chat endpoint.
func (c *Client) ForwardsTemplateKwargs() bool { return c.opts.Endpoint == EndpointChat }

// Runtime returns the client as the runtime a run uses. With
// Options.Thinking on or off it also implements runtime.ChatTemplater, so
// the run manifest records, as config.chat_template, that the mode was
// requested of the server and that pocketeval cannot verify it was
// applied (resuming with another mode is then refused); with
// model-default it is c itself and the manifest has no chat_template, as
// before the option existed.
func (c *Client) Runtime() runtime.Runtime {
	if c.opts.Thinking == chattemplate.ThinkingModelDefault {
		return c
	}
	return serverThinking{c}
}

// serverThinking is a Client that asks its server for a reasoning mode.
type serverThinking struct{ *Client }

var _ runtime.ChatTemplater = serverThinking{}

// ServerTemplateSource is the chat_template source recorded for a server's
// own template, which pocketeval neither sees nor hashes.
const ServerTemplateSource = "server: the server's own template (not visible to pocketeval, so no sha256)"

// ChatTemplate reports the thinking request for the run manifest.
func (s serverThinking) ChatTemplate() runtime.ChatTemplateInfo {
	th := s.opts.Thinking
	return runtime.ChatTemplateInfo{
		Source:   ServerTemplateSource,
		Thinking: th.String(),
		ThinkingApplied: chattemplate.ThinkingApplied(true, th) + ` requested of the server in every chat request's chat_template_kwargs;` +
			` not verifiable by pocketeval: a server whose template has no such switch, or that renders without Jinja` +
			` (llama-server --no-jinja), ignores it`,
	}
}

// EnforcesToolChoice reports that a request's tool_choice ("required", a
// named function) reaches the server, which enforces it or refuses the
// request, so `pocketeval serve` in front of this runtime accepts it;
// only with the chat endpoint.
func (c *Client) EnforcesToolChoice() bool { return c.opts.Endpoint == EndpointChat }
