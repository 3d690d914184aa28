package models

import (
	"fmt"
	"strings"
)

// Chat is how a model is prompted in chat mode, and the generation
// settings its authors recommend, each with where it was published.
type Chat struct {
	// Template says where the chat template comes from:
	// "gguf:tokenizer.chat_template", "llm_config.json:jinja.chat_template",
	// or "none" (the runtime's ChatML fallback).
	Template string `json:"template"`
	// ReferenceTemplate names the template of chattemplate's conformance
	// set (runtime/chattemplate/testdata/templates.json, with its provenance) that
	// the model's authors published; "" when the set has none. The
	// runtimes still read the template from the model files (Template).
	ReferenceTemplate string `json:"reference_template,omitempty"`
	// Thinking is what the template does when --thinking is model-default:
	// "on" (it reasons first), "off", "none" (no reasoning mode) or
	// "unknown" (not published).
	Thinking string `json:"thinking"`
	// ThinkingSwitch is the template variable that turns reasoning on or
	// off ("enable_thinking"); empty when there is none.
	ThinkingSwitch string `json:"thinking_switch,omitempty"`
	// Stop lists the end-of-turn tokens; the runtimes stop at the
	// vocabulary's end-of-generation tokens already, so this documents them.
	Stop []string `json:"stop,omitempty"`
	// Generation holds the recommended sampling settings, per mode.
	Generation []Generation `json:"generation,omitempty"`
	// Note says anything else worth knowing (what is not published).
	Note string `json:"note,omitempty"`
}

// Generation is one recommended sampling setting. Nil fields are not
// specified by the source.
type Generation struct {
	// Mode is "thinking", "non-thinking" or "default".
	Mode            string   `json:"mode"`
	Temperature     *float64 `json:"temperature,omitempty"`
	TopP            *float64 `json:"top_p,omitempty"`
	TopK            *int     `json:"top_k,omitempty"`
	MinP            *float64 `json:"min_p,omitempty"`
	PresencePenalty *float64 `json:"presence_penalty,omitempty"`
	// Source is where the setting is published (a model card or config).
	Source string `json:"source"`
}

var thinkingValues = map[string]bool{"on": true, "off": true, "none": true, "unknown": true}

// check reports the first invalid field of c, for the registry loader.
func (c *Chat) check() error {
	switch {
	case c.Template == "":
		return fmt.Errorf("field \"chat.template\": missing")
	case !thinkingValues[c.Thinking]:
		return fmt.Errorf("field \"chat.thinking\": %q is not on, off, none or unknown", c.Thinking)
	}
	for i, g := range c.Generation {
		if g.Mode == "" || g.Source == "" {
			return fmt.Errorf("field \"chat.generation[%d]\": mode and source are required", i)
		}
	}
	return nil
}

// String formats a setting as "temperature=0.6 top_p=0.95 ...".
func (g Generation) String() string {
	var parts []string
	f := func(name string, v *float64) {
		if v != nil {
			parts = append(parts, fmt.Sprintf("%s=%g", name, *v))
		}
	}
	f("temperature", g.Temperature)
	f("top_p", g.TopP)
	if g.TopK != nil {
		parts = append(parts, fmt.Sprintf("top_k=%d", *g.TopK))
	}
	f("min_p", g.MinP)
	f("presence_penalty", g.PresencePenalty)
	return strings.Join(parts, " ")
}
