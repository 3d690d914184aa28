package mnn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
	"github.com/pocketeval/pocketeval/runtime/toolcall"
)

// chatConfig is what renders chat requests for a package, read once from
// its config.json, llm_config.json and context.json.
type chatConfig struct {
	once sync.Once
	err  error

	tmpl     *chattemplate.Template // nil: no Jinja template
	legacy   *legacyTemplates       // older packages: prompt_template & co.
	source   string
	bos, eos string
	extra    map[string]any // jinja.context and context.json
	thinking chattemplate.Thinking
	now      time.Time
}

// legacyTemplates are the printf-style templates of packages exported
// before MNN used Jinja; %s stands for the content.
type legacyTemplates struct {
	prompt, system, user, assistant string
}

// llmJSON holds the chat keys of config.json and llm_config.json.
type llmJSON struct {
	Jinja *struct {
		ChatTemplate string         `json:"chat_template"`
		BOS          string         `json:"bos"`
		EOS          string         `json:"eos"`
		Context      map[string]any `json:"context"`
	} `json:"jinja"`
	PromptTemplate          *string `json:"prompt_template"`
	SystemPromptTemplate    *string `json:"system_prompt_template"`
	UserPromptTemplate      *string `json:"user_prompt_template"`
	AssistantPromptTemplate *string `json:"assistant_prompt_template"`
}

// chat loads the package's chat configuration on first use: jinja.* from
// llm_config.json (overriding config.json, as MNN merges them), extra
// template variables from jinja.context and context.json, else the older
// prompt_template keys, else none (MNN then concatenates the contents).
// Options.ChatTemplate overrides the package's template.
func (r *Runtime) chat() (*chatConfig, error) {
	c := &r.chatCfg
	c.once.Do(func() { c.err = c.load(r.pkg, r.opts) })
	return c, c.err
}

func (c *chatConfig) load(pkg Package, o Options) error {
	c.thinking, c.now = o.Thinking, o.TemplateNow
	if c.now.IsZero() {
		c.now = time.Now()
	}
	c.extra = map[string]any{}
	var merged llmJSON
	for _, name := range []string{pkg.Config, filepath.Join(pkg.Dir, "llm_config.json")} {
		data, err := os.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read chat template: %w", err)
		}
		var j llmJSON
		if err := json.Unmarshal(data, &j); err != nil {
			return fmt.Errorf("read chat template: %s: %w", name, err)
		}
		if j.Jinja != nil {
			merged.Jinja = j.Jinja
		}
		for _, p := range []struct{ dst, src **string }{
			{&merged.PromptTemplate, &j.PromptTemplate}, {&merged.SystemPromptTemplate, &j.SystemPromptTemplate},
			{&merged.UserPromptTemplate, &j.UserPromptTemplate}, {&merged.AssistantPromptTemplate, &j.AssistantPromptTemplate},
		} {
			if *p.src != nil {
				*p.dst = *p.src
			}
		}
	}
	if merged.Jinja != nil {
		c.bos, c.eos = merged.Jinja.BOS, merged.Jinja.EOS
		for k, v := range merged.Jinja.Context {
			c.extra[k] = v
		}
	}
	ctxFile := filepath.Join(pkg.Dir, "context.json")
	if data, err := os.ReadFile(ctxFile); err == nil {
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("read chat template: %s: %w", ctxFile, err)
		}
		for k, v := range m {
			c.extra[k] = v
		}
	}
	src := ""
	switch {
	case o.ChatTemplate != "":
		src, c.source = o.ChatTemplate, o.ChatTemplateSource
		if c.source == "" {
			c.source = "option"
		}
	case merged.Jinja != nil && merged.Jinja.ChatTemplate != "":
		src, c.source = merged.Jinja.ChatTemplate, "llm_config.json:jinja.chat_template"
	case merged.PromptTemplate != nil || merged.UserPromptTemplate != nil:
		// MNN's defaults for the keys a package leaves out (llmconfig.hpp).
		l := &legacyTemplates{
			prompt:    "<|im_start|>user\n%s<|im_end|>\n<|im_start|>assistant\n",
			system:    "<|im_start|>system\n%s<|im_end|>\n",
			user:      "<|im_start|>user\n%s<|im_end|>\n",
			assistant: "<|im_start|>assistant\n%s<|im_end|>\n",
		}
		for _, p := range []struct {
			dst *string
			src *string
		}{{&l.prompt, merged.PromptTemplate}, {&l.system, merged.SystemPromptTemplate}, {&l.user, merged.UserPromptTemplate}, {&l.assistant, merged.AssistantPromptTemplate}} {
			if p.src != nil {
				*p.dst = *p.src
			}
		}
		c.legacy, c.source = l, "llm_config.json:prompt_template"
		return nil
	default:
		c.source = "none: message contents concatenated, as MNN does without a template"
		return nil
	}
	t, err := chattemplate.ParseFile(c.source, src)
	if err != nil {
		return fmt.Errorf("chat template (%s): %w", c.source, err)
	}
	c.tmpl = t
	return nil
}

// errNoToolTemplate is returned for a request with tools when the package
// has no Jinja chat template to render them with.
var errNoToolTemplate = errors.New("the request offers tools, but the package has no Jinja chat template (llm_config.json jinja.chat_template) to render them with")

// render renders a conversation with the generation prompt; kwargs (a
// request's TemplateKwargs) are set over the package's context and
// --thinking, and tools (an OpenAI tools array) are given to the template
// as tools, as transformers' apply_chat_template(tools=...) does.
// Printf-style templates and plain concatenation have no variables and
// ignore kwargs; they cannot render tools.
func (c *chatConfig) render(ctx context.Context, msgs []runtime.Message, kwargs map[string]any, tools json.RawMessage) (string, error) {
	if c.tmpl == nil && toolcall.HasTools(runtime.Request{Tools: tools}) {
		return "", errNoToolTemplate
	}
	switch {
	case c.tmpl != nil:
		extra := c.extra
		_, ctxThinking := extra["enable_thinking"]
		if (ctxThinking && c.thinking != chattemplate.ThinkingModelDefault) || len(kwargs) > 0 {
			extra = make(map[string]any, len(c.extra)+len(kwargs))
			for k, v := range c.extra {
				// --thinking on|off overrides the package's context.
				if k != "enable_thinking" || c.thinking == chattemplate.ThinkingModelDefault {
					extra[k] = v
				}
			}
			for k, v := range kwargs {
				extra[k] = v
			}
		}
		return c.tmpl.ChatContext(ctx, msgs, chattemplate.ChatOptions{
			AddGenerationPrompt: true, BOS: c.bos, EOS: c.eos, Thinking: c.thinking, Now: c.now, Extra: extra, Tools: tools,
		})
	case c.legacy != nil:
		return c.legacy.render(msgs), nil
	}
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(m.Content)
	}
	return b.String(), nil
}

// render applies the printf-style templates: a single user message uses
// prompt_template; otherwise each message its role's template, then the
// assistant template up to its %s as the generation prompt.
func (l *legacyTemplates) render(msgs []runtime.Message) string {
	fill := func(tmpl, content string) string { return strings.Replace(tmpl, "%s", content, 1) }
	if len(msgs) == 1 && msgs[0].Role == "user" {
		return fill(l.prompt, msgs[0].Content)
	}
	var b strings.Builder
	for _, m := range msgs {
		switch m.Role {
		case "system":
			b.WriteString(fill(l.system, m.Content))
		case "assistant":
			b.WriteString(fill(l.assistant, m.Content))
		default:
			b.WriteString(fill(l.user, m.Content))
		}
	}
	open, _, _ := strings.Cut(l.assistant, "%s")
	b.WriteString(open)
	return b.String()
}

// ChatTemplate reports the template chat requests are rendered with.
func (r *Runtime) ChatTemplate() runtime.ChatTemplateInfo {
	c, err := r.chat()
	info := runtime.ChatTemplateInfo{Source: c.source, Thinking: c.thinking.String(), BOS: c.bos, EOS: c.eos}
	switch {
	case err != nil:
		info.Source, info.ThinkingApplied = "error: "+err.Error(), "unknown"
	case c.tmpl != nil:
		info.SHA256 = c.tmpl.SHA256()
		info.ThinkingApplied = c.tmpl.ThinkingApplied(c.thinking)
		if v, ok := c.extra["enable_thinking"]; ok && c.thinking == chattemplate.ThinkingModelDefault {
			info.ThinkingApplied = fmt.Sprintf("enable_thinking=%v (the package's context)", v)
		}
		if c.tmpl.UsesDate() {
			info.Date = c.now.Format(time.RFC3339)
		}
	default:
		// printf-style templates and plain concatenation have no switch.
		info.ThinkingApplied = chattemplate.ThinkingApplied(false, c.thinking)
		if l := c.legacy; l != nil {
			info.SHA256 = chattemplate.SHA256(strings.Join([]string{l.prompt, l.system, l.user, l.assistant}, "\x00"))
		}
	}
	return info
}

// chatTokens renders a chat request and tokenizes it. MNN's tokenizer
// prepends its prefix (BOS) tokens to every text; when the template
// already rendered the BOS text, that text is left out of the tokenized
// string so the prompt does not start with two BOS tokens.
func (r *Runtime) chatTokens(ctx context.Context, e engine, req runtime.Request) ([]int, string, error) {
	c, err := r.chat()
	if err != nil {
		return nil, "", err
	}
	text, err := c.render(ctx, req.Messages, req.TemplateKwargs, req.Tools)
	if err != nil {
		return nil, "", fmt.Errorf("apply chat template (%s): %w", c.source, err)
	}
	body := text
	if c.bos != "" && strings.HasPrefix(text, c.bos) {
		prefix, err := e.Tokenize("")
		if err != nil {
			return nil, "", fmt.Errorf("tokenize prompt: %w", err)
		}
		if len(prefix) > 0 {
			body = text[len(c.bos):]
		}
	}
	ids, err := e.Tokenize(body)
	if err != nil {
		return nil, "", fmt.Errorf("tokenize prompt: %w", err)
	}
	return ids, text, nil
}

// parseToolCalls finds the function calls in resp's text for a request
// that offered tools, in the format the package's template writes
// (runtime/toolcall, as the llama.cpp runtime does): resp.Text becomes the
// content outside the calls and resp.ToolCalls the calls.
func (r *Runtime) parseToolCalls(req runtime.Request, resp *runtime.Response) {
	if c, err := r.chat(); err == nil && c.tmpl != nil {
		toolcall.Apply(c.tmpl.Source(), req, resp)
	}
}
