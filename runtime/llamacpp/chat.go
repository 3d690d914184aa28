//go:build !nollamacpp

package llamacpp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hybridgroup/yzma/pkg/llama"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// chat is the chat template chat requests are rendered with, decided once
// at Open.
type chat struct {
	tmpl     *chattemplate.Template
	source   string
	bos, eos string
	// addBOS: tokenization adds the vocabulary's BOS (fallback template
	// only; a model's own template decides its special tokens itself).
	addBOS   bool
	now      time.Time
	thinking chattemplate.Thinking
	sum      string // the template text's sha256
	err      error  // non-nil when chat requests cannot be rendered
}

// setChat decides which template chat requests use: Options.ChatTemplate,
// else the model's tokenizer.chat_template, else ChatML. A model template
// the Jinja engine cannot parse makes chat requests fail (raw prompts still
// work); an unparsable override fails Open.
func (r *Runtime) setChat() error {
	c := &r.chat
	c.thinking = r.opts.Thinking
	c.now = r.opts.TemplateNow
	if c.now.IsZero() {
		c.now = time.Now()
	}
	if r.bos != llama.TokenNull {
		c.bos = llama.VocabGetText(r.vocab, r.bos)
	}
	if eos := llama.VocabEOS(r.vocab); eos != llama.TokenNull {
		c.eos = llama.VocabGetText(r.vocab, eos)
	}
	src := r.opts.ChatTemplate
	switch {
	case src != "":
		c.source = r.opts.ChatTemplateSource
		if c.source == "" {
			c.source = "option"
		}
	default:
		if src = llama.ModelChatTemplate(r.model, ""); src != "" {
			c.source = "gguf:tokenizer.chat_template"
		} else {
			src, c.source, c.addBOS = chattemplate.ChatML, "fallback:chatml (the model has no chat template)", r.addBOS
		}
	}
	t, err := chattemplate.ParseFile(c.source, src)
	if err != nil {
		if r.opts.ChatTemplate != "" {
			return fmt.Errorf("chat template (%s): %w", c.source, err)
		}
		c.err = fmt.Errorf("the model's chat template: %w", err)
		c.sum = chattemplate.SHA256(src)
		return nil
	}
	c.tmpl, c.sum = t, t.SHA256()
	return nil
}

// ChatTemplate reports the template chat requests are rendered with.
func (r *Runtime) ChatTemplate() runtime.ChatTemplateInfo {
	c := &r.chat
	info := runtime.ChatTemplateInfo{Source: c.source, SHA256: c.sum, Thinking: c.thinking.String(), BOS: c.bos, EOS: c.eos, AddsBOS: c.addBOS}
	if c.tmpl == nil {
		info.ThinkingApplied = "unknown (the template does not parse)"
		return info
	}
	info.ThinkingApplied = c.tmpl.ThinkingApplied(c.thinking)
	if c.tmpl.UsesDate() {
		info.Date = c.now.Format(time.RFC3339)
	}
	return info
}

// renderChat applies the chat template with the generation prompt; kwargs
// (a request's TemplateKwargs) are set over the runtime's own variables.
// ctx stops the render (a server's request whose client went away).
func (r *Runtime) renderChat(ctx context.Context, msgs []runtime.Message, kwargs map[string]any, tools json.RawMessage) (string, error) {
	c := &r.chat
	if c.err != nil {
		return "", c.err
	}
	for i, m := range msgs {
		if strings.IndexByte(m.Role, 0) >= 0 || strings.IndexByte(m.Content, 0) >= 0 {
			return "", fmt.Errorf("apply chat template: message %d contains a NUL byte", i)
		}
	}
	out, err := c.tmpl.ChatContext(ctx, msgs, chattemplate.ChatOptions{
		AddGenerationPrompt: true, BOS: c.bos, EOS: c.eos, Thinking: c.thinking, Now: c.now, Extra: kwargs, Tools: tools,
	})
	if err != nil {
		return "", fmt.Errorf("apply chat template (%s): %w", c.source, err)
	}
	return out, nil
}

// promptTokens renders and tokenises a request, returning the tokens fed
// to the model and, for chat requests, the rendered text. Special-token
// text (<|im_start|>) is parsed into special tokens. A chat prompt gets no
// special tokens beyond what its template rendered, as transformers'
// apply_chat_template(tokenize=True) does; only the ChatML fallback gets
// the vocabulary's BOS, as llama-server adds it. A raw prompt gets BOS when
// the vocabulary asks for one and the text does not already start with it.
func (r *Runtime) promptTokens(ctx context.Context, req runtime.Request) ([]llama.Token, string, error) {
	text, rendered := req.Prompt, ""
	addBOS := true
	if req.IsChat() {
		var err error
		if text, err = r.renderChat(ctx, req.Messages, req.TemplateKwargs, req.Tools); err != nil {
			return nil, "", err
		}
		rendered, addBOS = text, r.chat.addBOS
	}
	toks, err := r.tokenize(text, addBOS)
	if err != nil {
		return nil, "", err
	}
	if r.onPrompt != nil {
		r.onPrompt(toks)
	}
	if len(toks) == 0 {
		return nil, "", errors.New("empty prompt (and the model has no BOS token to start from)")
	}
	if len(toks) >= r.nCtx {
		return nil, "", &runtime.ContextExceededError{PromptTokens: len(toks), ContextSize: r.nCtx,
			Err: fmt.Errorf("%w: %d prompt tokens, the context holds %d and needs room for one generated token", ErrPromptTooLong, len(toks), r.nCtx)}
	}
	return toks, rendered, nil
}
