package cli

import (
	"context"
	"fmt"
	"github.com/pocketeval/pocketeval/internal/texttab"
	"os"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/models"
)

// ModelsOptions are the flags every `pocketeval models` subcommand shares
// (persistent flags of the group).
type ModelsOptions struct {
	IO   *IOStreams
	File string // --models-file (default $POCKETEVAL_MODELS)
	JSON bool   // --json
}

// NewCmdModels groups the model commands: list, download.
func NewCmdModels(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "models",
		Short: "List and download models by name",
		Long: `Models by name resolve to files in their official repositories (Hugging Face,
ModelScope) at a revision, cached in $POCKETEVAL_MODEL_CACHE (default
$XDG_CACHE_HOME/pocketeval/models) and verified by sha256 (pinned on first
download when not known in advance). --models-file or $POCKETEVAL_MODELS adds or
overrides entries; $POCKETEVAL_HF_ENDPOINT points at a mirror.
"pocketeval run --model NAME" downloads on first use.`,
	}
	shared := &ModelsOptions{IO: f.IO}
	cmd.PersistentFlags().StringVar(&shared.File, "models-file", os.Getenv("POCKETEVAL_MODELS"), "JSON file adding or overriding registry entries")
	cmd.PersistentFlags().BoolVar(&shared.JSON, "json", false, "machine-readable output")
	cmd.AddCommand(NewCmdModelsList(f, shared, nil), NewCmdModelsDownload(f, shared, nil), NewCmdModelsShow(f, shared, nil), NewCmdModelsConvert(f, shared, nil))
	return cmd
}

// ModelsListOptions are the options of `pocketeval models list`.
type ModelsListOptions struct {
	*ModelsOptions
}

// NewCmdModelsList lists the known models.
func NewCmdModelsList(f *Factory, shared *ModelsOptions, runF func(*ModelsListOptions) error) *cobra.Command {
	opts := &ModelsListOptions{ModelsOptions: shared}
	return &cobra.Command{
		Use: "list", Short: "List the known models", Args: cobra.NoArgs,
		Example: "  $ pocketeval models list",
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return modelsListRun(opts)
		},
	}
}

func modelsListRun(opts *ModelsListOptions) error {
	reg, err := models.Load(opts.File)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	if opts.JSON {
		list := make([]modelJSON, 0, len(reg))
		for _, n := range reg.Names() {
			list = append(list, modelJSON{Name: n, Model: reg[n]})
		}
		return writeJSON(opts.IO, struct {
			Models []modelJSON `json:"models"`
		}{list})
	}
	tw := texttab.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRUNTIME\tSOURCE\tDESCRIPTION")
	for _, n := range reg.Names() {
		m := reg[n]
		fmt.Fprintf(tw, "%s\t%s\t%s:%s@%s\t%s\n", n, m.Runtime, m.Hub, m.Repo, m.Revision, m.Description)
	}
	return tw.Flush()
}

// modelJSON is a registry entry in --json output: the entry with its name.
type modelJSON struct {
	Name string `json:"name"`
	*models.Model
}

// ModelsDownloadOptions are the options of `pocketeval models download`.
type ModelsDownloadOptions struct {
	*ModelsOptions
	Names []string // the models to fetch
	// Progress reports download progress (a bar on a terminal).
	Progress func(path string, done, total int64)
}

// NewCmdModelsDownload fetches models into the cache.
func NewCmdModelsDownload(f *Factory, shared *ModelsOptions, runF func(*ModelsDownloadOptions) error) *cobra.Command {
	opts := &ModelsDownloadOptions{ModelsOptions: shared, Progress: byteProgress(f.IO)}
	return &cobra.Command{
		Use: "download NAME...", Short: "Download models into the cache", Args: cobra.MinimumNArgs(1),
		Example: "  $ pocketeval models download qwen3-0.6b-gguf",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			if runF != nil {
				return runF(opts)
			}
			return modelsDownloadRun(cmd.Context(), opts)
		},
	}
}

func modelsDownloadRun(ctx context.Context, opts *ModelsDownloadOptions) error {
	reg, err := models.Load(opts.File)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	type fetchedModel struct {
		Name string `json:"name"`
		Path string `json:"path"`
	}
	var fetched []fetchedModel
	for _, n := range opts.Names {
		m, ok := reg[n]
		if !ok {
			return FlagErrorf("unknown model %q (see `pocketeval models list`)", n)
		}
		p, err := models.Fetch(ctx, m, models.FetchOptions{Progress: opts.Progress})
		if err != nil {
			return err
		}
		fetched = append(fetched, fetchedModel{Name: n, Path: p})
		if !opts.JSON {
			fmt.Fprintf(opts.IO.Out, "%s\t%s\n", n, p)
		}
	}
	if opts.JSON {
		return writeJSON(opts.IO, struct {
			Models []fetchedModel `json:"models"`
		}{fetched})
	}
	return nil
}

// resolveModel turns --model NAME into a cached path when NAME is not a
// file but a registry entry, downloading it on first use; the entry also
// names the runtime when --runtime is not given. It applies only to
// runtimes whose model is a local file (drivers.Caps.LocalModel).
func resolveModel(ctx context.Context, io *IOStreams, o *RuntimeOptions) error {
	if o.Model == "" || (o.Name != "" && !o.Caps().LocalModel) {
		return nil
	}
	if _, err := os.Stat(o.Model); err == nil {
		return nil
	}
	reg, err := models.Load(os.Getenv("POCKETEVAL_MODELS"))
	if err != nil {
		return err
	}
	m, ok := reg[o.Model]
	if !ok {
		return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("model %q: no such file, and not a known model name (see `pocketeval models list`)", o.Model)}
	}
	if o.Name == "" {
		o.Name = m.Runtime
	} else if o.Name != m.Runtime {
		return FlagErrorf("model %s is for --runtime %s, not %s", m.Name, m.Runtime, o.Name)
	}
	p, err := models.Fetch(ctx, m, models.FetchOptions{Progress: byteProgress(io)})
	if err != nil {
		return err
	}
	o.Model = p
	return nil
}
