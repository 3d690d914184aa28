package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"github.com/pocketeval/pocketeval/runtime"
)

// validationError is a bad request parameter; param names it the way
// OpenAI does ("messages[1].role").
type validationError struct {
	param string
	msg   string
}

func (e *validationError) Error() string { return e.param + ": " + e.msg }

func invalid(param, format string, args ...any) *validationError {
	return &validationError{param: param, msg: fmt.Sprintf(format, args...)}
}

// sampling are the parameters shared by chat and completions.
type sampling struct {
	Model            string             `json:"model"`
	MaxTokens        *int               `json:"max_tokens"`
	Temperature      *float64           `json:"temperature"`
	TopP             *float64           `json:"top_p"`
	Seed             *int64             `json:"seed"`
	Stop             json.RawMessage    `json:"stop"`
	Stream           bool               `json:"stream"`
	StreamOptions    *streamOptions     `json:"stream_options"`
	N                *int               `json:"n"`
	FrequencyPenalty *float64           `json:"frequency_penalty"`
	PresencePenalty  *float64           `json:"presence_penalty"`
	LogitBias        map[string]float64 `json:"logit_bias"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// gen validates the sampling parameters and converts them. A missing
// temperature means 1.0, as in OpenAI's API (the runtime's zero value
// would mean greedy).
func (s *sampling) gen() (runtime.GenConfig, *validationError) {
	g := runtime.GenConfig{Temperature: 1}
	if s.MaxTokens != nil {
		if *s.MaxTokens < 1 {
			return g, invalid("max_tokens", "must be at least 1, got %d", *s.MaxTokens)
		}
		g.MaxTokens = *s.MaxTokens
	}
	if s.Temperature != nil {
		t := *s.Temperature
		if math.IsNaN(t) || t < 0 || t > 2 {
			return g, invalid("temperature", "must be between 0 and 2, got %v", t)
		}
		g.Temperature = t
	}
	if s.TopP != nil {
		p := *s.TopP
		if math.IsNaN(p) || p <= 0 || p > 1 {
			return g, invalid("top_p", "must be in (0, 1], got %v", p)
		}
		if p < 1 {
			g.TopP = p
		}
	}
	if s.Seed != nil {
		g.Seed = *s.Seed
	}
	stop, err := parseStop(s.Stop)
	if err != nil {
		return g, err
	}
	g.Stop = stop
	if s.N != nil && *s.N != 1 {
		return g, invalid("n", "only n=1 is supported, got %d", *s.N)
	}
	if s.FrequencyPenalty != nil && *s.FrequencyPenalty != 0 {
		return g, invalid("frequency_penalty", "not supported by this server (must be 0)")
	}
	if s.PresencePenalty != nil && *s.PresencePenalty != 0 {
		return g, invalid("presence_penalty", "not supported by this server (must be 0)")
	}
	if len(s.LogitBias) > 0 {
		return g, invalid("logit_bias", "not supported by this server")
	}
	if s.StreamOptions != nil && !s.Stream {
		return g, invalid("stream_options", "only allowed when stream is true")
	}
	return g, nil
}

func parseStop(raw json.RawMessage) ([]string, *validationError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one == "" {
			return nil, invalid("stop", "must not be empty")
		}
		return []string{one}, nil
	}
	var many []string
	if err := json.Unmarshal(raw, &many); err != nil {
		return nil, invalid("stop", "must be a string or an array of strings")
	}
	for i, s := range many {
		if s == "" {
			return nil, invalid(fmt.Sprintf("stop[%d]", i), "must not be empty")
		}
	}
	return many, nil
}

type chatRequest struct {
	sampling
	Messages            []chatMessage   `json:"messages"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Logprobs            *bool           `json:"logprobs"`
	Tools               json.RawMessage `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	// Functions and FunctionCall are OpenAI's deprecated forms of tools
	// and tool_choice.
	Functions      json.RawMessage `json:"functions"`
	FunctionCall   json.RawMessage `json:"function_call"`
	ResponseFormat *struct {
		Type string `json:"type"`
	} `json:"response_format"`
	// ChatTemplateKwargs are extra chat template variables, as
	// llama-server, vLLM and SGLang take them (enable_thinking).
	ChatTemplateKwargs json.RawMessage `json:"chat_template_kwargs"`
}

type chatMessage struct {
	Role             string          `json:"role"`
	Content          json.RawMessage `json:"content"`
	ToolCalls        json.RawMessage `json:"tool_calls"`
	ToolCallID       string          `json:"tool_call_id"`
	Name             string          `json:"name"`
	ReasoningContent string          `json:"reasoning_content"`
	FunctionCall     json.RawMessage `json:"function_call"`
}

// wireToolCall is an OpenAI tool call.
type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// toolCalls reads an assistant message's tool_calls: arguments are a JSON
// string (OpenAI) or an object.
func toolCalls(raw json.RawMessage, param string) ([]runtime.ToolCall, *validationError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var calls []wireToolCall
	if err := json.Unmarshal(raw, &calls); err != nil {
		return nil, invalid(param, "must be an array of {id, type, function: {name, arguments}}")
	}
	out := make([]runtime.ToolCall, len(calls))
	for i, c := range calls {
		if c.Function.Name == "" {
			return nil, invalid(fmt.Sprintf("%s[%d].function.name", param, i), "is required")
		}
		if c.ID == "" {
			return nil, invalid(fmt.Sprintf("%s[%d].id", param, i), "is required")
		}
		if c.Type != "" && c.Type != "function" {
			return nil, invalid(fmt.Sprintf("%s[%d].type", param, i), "must be \"function\"")
		}
		out[i] = runtime.ToolCall{ID: c.ID, Name: c.Function.Name, Arguments: argumentsText(c.Function.Arguments)}
	}
	return out, nil
}

// chatCall is a validated chat request: what the runtime gets and how
// the answer is written.
type chatCall struct {
	req          runtime.Request
	stream       bool
	includeUsage bool
	tools        toolRequest
	seeded       bool // the client gave a seed
}

func (c *chatRequest) toRequest() (cc chatCall, verr *validationError) {
	if c.MaxCompletionTokens != nil {
		if c.MaxTokens != nil && *c.MaxTokens != *c.MaxCompletionTokens {
			return cc, invalid("max_completion_tokens", "conflicts with max_tokens")
		}
		c.MaxTokens = c.MaxCompletionTokens
	}
	g, verr := c.gen()
	if verr != nil {
		return cc, verr
	}
	if len(c.Messages) == 0 {
		return cc, invalid("messages", "must be a non-empty array")
	}
	if c.Logprobs != nil && *c.Logprobs {
		return cc, invalid("logprobs", "per-token logprobs are not available from this server")
	}
	tr, verr := parseToolRequest(c.Tools, c.ToolChoice, c.Functions, c.FunctionCall)
	if verr != nil {
		return cc, verr
	}
	if c.ResponseFormat != nil && c.ResponseFormat.Type != "" && c.ResponseFormat.Type != "text" {
		return cc, invalid("response_format", "only type \"text\" is supported")
	}
	msgs := make([]runtime.Message, len(c.Messages))
	for i, m := range c.Messages {
		role := m.Role
		switch role {
		case "system", "user", "assistant", "tool", "function":
		case "developer":
			role = "system" // OpenAI's newer name for system
		case "":
			return cc, invalid(fmt.Sprintf("messages[%d].role", i), "is required")
		default:
			return cc, invalid(fmt.Sprintf("messages[%d].role", i), "must be system, user, assistant or tool, got %q", m.Role)
		}
		calls, verr := toolCalls(m.ToolCalls, fmt.Sprintf("messages[%d].tool_calls", i))
		if verr != nil {
			return cc, verr
		}
		var text string
		hasCall := len(calls) > 0 || !isNull(m.FunctionCall)
		if c := bytes.TrimSpace(m.Content); role != "assistant" || !hasCall || len(c) > 0 && string(c) != "null" {
			if text, verr = messageText(m.Content, fmt.Sprintf("messages[%d].content", i)); verr != nil {
				return cc, verr
			}
		}
		msgs[i] = runtime.Message{Role: role, Content: text, ToolCalls: calls, ToolCallID: m.ToolCallID, Name: m.Name, ReasoningContent: m.ReasoningContent}
		if verr := legacyMessage(i, &m, &msgs[i], msgs[:i]); verr != nil {
			return cc, verr
		}
	}
	if verr := checkToolMessages(msgs); verr != nil {
		return cc, verr
	}
	kwargs, verr := templateKwargs(c.ChatTemplateKwargs)
	if verr != nil {
		return cc, verr
	}
	cc.req = runtime.Request{Messages: msgs, Gen: g, TemplateKwargs: kwargs, Tools: tr.tools, ToolChoice: tr.choice}
	cc.stream, cc.includeUsage, cc.tools, cc.seeded = c.Stream, c.StreamOptions != nil && c.StreamOptions.IncludeUsage, tr, c.Seed != nil
	return cc, nil
}

// templateKwargs reads chat_template_kwargs: null, or an object whose
// members become template variables as they are (llama-server passes every
// member on), except that enable_thinking must be a boolean, as
// llama-server requires. Nil when absent or empty.
func templateKwargs(raw json.RawMessage) (map[string]any, *validationError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var kw map[string]any
	if err := json.Unmarshal(raw, &kw); err != nil || kw == nil {
		return nil, invalid("chat_template_kwargs", "must be an object")
	}
	if v, ok := kw["enable_thinking"]; ok {
		if _, isBool := v.(bool); !isBool {
			return nil, invalid("chat_template_kwargs.enable_thinking", "must be a boolean, got %s", jsonType(v))
		}
	}
	if len(kw) == 0 {
		return nil, nil
	}
	return kw, nil
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "a boolean"
}

// messageText accepts a string or an array of text parts.
func messageText(raw json.RawMessage, param string) (string, *validationError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", invalid(param, "is required")
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", invalid(param, "must be a string or an array of text parts")
	}
	var b bytes.Buffer
	for i, p := range parts {
		if p.Type != "text" || p.Text == nil {
			return "", invalid(fmt.Sprintf("%s[%d]", param, i), "only text parts are supported, got type %q", p.Type)
		}
		b.WriteString(*p.Text)
	}
	return b.String(), nil
}

type completionRequest struct {
	sampling
	Prompt   json.RawMessage `json:"prompt"`
	Echo     bool            `json:"echo"`
	Logprobs *int            `json:"logprobs"`
	Suffix   *string         `json:"suffix"`
	BestOf   *int            `json:"best_of"`
}

func (c *completionRequest) toRequest() (runtime.Request, *validationError) {
	g, verr := c.gen()
	if verr != nil {
		return runtime.Request{}, verr
	}
	if c.Suffix != nil && *c.Suffix != "" {
		return runtime.Request{}, invalid("suffix", "not supported by this server")
	}
	if c.BestOf != nil && *c.BestOf != 1 {
		return runtime.Request{}, invalid("best_of", "only best_of=1 is supported")
	}
	if c.Logprobs != nil && (*c.Logprobs < 0 || *c.Logprobs > 5) {
		return runtime.Request{}, invalid("logprobs", "must be between 0 and 5")
	}
	raw := bytes.TrimSpace(c.Prompt)
	if len(raw) == 0 || string(raw) == "null" {
		return runtime.Request{}, invalid("prompt", "is required")
	}
	var prompt string
	if json.Unmarshal(raw, &prompt) != nil {
		var many []string
		if err := json.Unmarshal(raw, &many); err != nil {
			return runtime.Request{}, invalid("prompt", "must be a string (token arrays are not supported)")
		}
		if len(many) != 1 {
			return runtime.Request{}, invalid("prompt", "batched prompts are not supported: send one prompt per request, got %d", len(many))
		}
		prompt = many[0]
	}
	if prompt == "" {
		return runtime.Request{}, invalid("prompt", "must not be empty")
	}
	return runtime.Request{Prompt: prompt, Gen: g}, nil
}
