package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/cmd/pocketeval/internal/drivers"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// chatTemplateOptions reads --chat-template and --thinking: the override
// template's source and manifest label ("" when the model's own is used)
// and the thinking mode.
func (o RuntimeOptions) chatTemplateOptions() (src, label string, thinking chattemplate.Thinking, err error) {
	thinking, err = chattemplate.ParseThinking(o.Thinking)
	if err != nil {
		return "", "", "", &FlagError{err: fmt.Errorf("--thinking: %w", err)}
	}
	if o.ChatTemplateFile == "" {
		return "", "", thinking, nil
	}
	b, err := os.ReadFile(o.ChatTemplateFile)
	if err != nil {
		return "", "", "", fmt.Errorf("--chat-template: %w", err)
	}
	if _, err := chattemplate.ParseFile(o.ChatTemplateFile, string(b)); err != nil {
		return "", "", "", fmt.Errorf("--chat-template %s: %w", o.ChatTemplateFile, err)
	}
	if !strings.Contains(string(b), "messages") {
		return "", "", "", fmt.Errorf("--chat-template %s: the template never reads messages, so it cannot render a conversation (a Jinja chat template is expected, not a template name)", o.ChatTemplateFile)
	}
	return string(b), "file:" + o.ChatTemplateFile, thinking, nil
}

// checkTemplateFlags checks --thinking and refuses --chat-template for a
// runtime that does not render chat templates itself
// (drivers.Caps.ChatTemplates), and --thinking on|off for one that neither
// renders them nor can ask its server for the mode
// (drivers.Caps.ServerThinking); an unknown or not yet chosen runtime is
// checked when it is opened.
func checkTemplateFlags(o RuntimeOptions) error {
	thinking, err := chattemplate.ParseThinking(o.Thinking)
	if err != nil {
		return &FlagError{err: fmt.Errorf("--thinking: %w", err)}
	}
	d, err := drivers.Lookup(o.list(), o.Name)
	if err != nil || d.Caps.ChatTemplates {
		return nil
	}
	if o.ChatTemplateFile != "" {
		return FlagErrorf("--chat-template: --runtime %s does not render chat templates (a server applies its own)", o.Name)
	}
	if thinking != chattemplate.ThinkingModelDefault && !d.Caps.ServerThinking {
		return FlagErrorf("--thinking %s: --runtime %s does not render chat templates", o.Thinking, o.Name)
	}
	return nil
}

// pinnedTemplateDate returns the date a run in dir rendered its chat
// template with, so that resuming it renders date-dependent templates
// (Llama 3.x) the same; zero when there is none.
func pinnedTemplateDate(dir string) (time.Time, error) {
	m, err := results.ReadManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, nil
	}
	if err != nil || m.Config.ChatTemplate == nil || m.Config.ChatTemplate.Date == "" {
		return time.Time{}, nil // a damaged manifest is reported by the runner
	}
	t, err := time.Parse(time.RFC3339, m.Config.ChatTemplate.Date)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: chat_template.date: %w", dir, err)
	}
	return t, nil
}
