package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/models"
)

// ModelsShowOptions are the options of `pocketeval models show`.
type ModelsShowOptions struct {
	*ModelsOptions
	Name string // the model to show
}

// NewCmdModelsShow prints one registry entry: where its files come from
// and its chat defaults (template source, thinking, stop tokens,
// recommended generation settings with their sources).
func NewCmdModelsShow(f *Factory, shared *ModelsOptions, runF func(*ModelsShowOptions) error) *cobra.Command {
	opts := &ModelsShowOptions{ModelsOptions: shared}
	return &cobra.Command{
		Use: "show NAME", Short: "Show a model's files and chat defaults", Args: cobra.ExactArgs(1),
		Example: "  $ pocketeval models show qwen3-0.6b-gguf",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			if runF != nil {
				return runF(opts)
			}
			return modelsShowRun(opts)
		},
	}
}

func modelsShowRun(opts *ModelsShowOptions) error {
	reg, err := models.Load(opts.File)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	m, ok := reg[opts.Name]
	if !ok {
		return FlagErrorf("unknown model %q (see `pocketeval models list`)", opts.Name)
	}
	if opts.JSON {
		return writeJSON(opts.IO, modelJSON{Name: opts.Name, Model: m})
	}
	printModel(opts.IO.Out, m)
	return nil
}

func printModel(w io.Writer, m *models.Model) {
	fmt.Fprintf(w, "name:         %s\n", m.Name)
	fmt.Fprintf(w, "description:  %s\n", m.Description)
	fmt.Fprintf(w, "runtime:      %s\n", m.Runtime)
	fmt.Fprintf(w, "source:       %s:%s@%s\n", m.Hub, m.Repo, m.Revision)
	fmt.Fprintf(w, "entry:        %s\n", m.Entry)
	for _, fl := range m.Files {
		sum := fl.SHA256
		if sum == "" {
			sum = "(pinned on first download)"
		}
		fmt.Fprintf(w, "file:         %s %s\n", fl.Name, sum)
	}
	if m.Note != "" {
		fmt.Fprintf(w, "note:         %s\n", m.Note)
	}
	c := m.Chat
	if c == nil {
		fmt.Fprintln(w, "chat:         (no defaults recorded)")
		return
	}
	fmt.Fprintf(w, "template:     %s\n", c.Template)
	if c.ReferenceTemplate != "" {
		fmt.Fprintf(w, "reference:    %s (runtime/chattemplate/testdata/templates.json: the authors' template, with provenance)\n", c.ReferenceTemplate)
	}
	th := c.Thinking
	if c.ThinkingSwitch != "" {
		th += " (switch: " + c.ThinkingSwitch + "; --thinking on|off sets it)"
	}
	fmt.Fprintf(w, "thinking:     %s\n", th)
	if len(c.Stop) > 0 {
		fmt.Fprintf(w, "stop:         %s\n", strings.Join(c.Stop, " "))
	}
	if len(c.Generation) == 0 {
		fmt.Fprintln(w, "generation:   none published")
	}
	for _, g := range c.Generation {
		fmt.Fprintf(w, "generation:   %s: %s (%s)\n", g.Mode, g, g.Source)
	}
	if c.Note != "" {
		fmt.Fprintf(w, "chat note:    %s\n", c.Note)
	}
}
