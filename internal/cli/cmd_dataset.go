package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/datasets"
	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/models"
	"github.com/pocketeval/pocketeval/results"
)

// datasetCommands returns datasets, models and merge.
func datasetCommands(f *Factory) []*cobra.Command {
	return []*cobra.Command{NewCmdDatasets(f), NewCmdModels(f), NewCmdMerge(f)}
}

// NewCmdDatasets manages benchmark data.
func NewCmdDatasets(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "datasets",
		Short: "List, download and verify benchmark datasets",
		Long: `Datasets come from their official homes (or byte-identical verified copies),
pinned by sha256. The data directory is --data-dir, else $POCKETEVAL_DATA, else
$XDG_CACHE_HOME/pocketeval/datasets. pocketeval run never downloads data itself.`,
	}
	var dataDir string
	var asJSON bool
	cmd.PersistentFlags().StringVar(&dataDir, "data-dir", "", "data directory (default $POCKETEVAL_DATA or the cache)")
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "machine-readable output")
	dir := func() string {
		if dataDir != "" {
			return dataDir
		}
		return datasets.DefaultDir()
	}
	list := &cobra.Command{
		Use:     "list",
		Short:   "List the known datasets",
		Example: "  $ pocketeval datasets list\n  $ pocketeval datasets list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			reg := datasets.Registry()
			if asJSON {
				return writeJSON(f, reg)
			}
			tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "DATASET\tTASKS\tFILES\tLICENSE")
			for _, d := range reg {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", d.Name, strings.Join(d.Tasks, ","), len(d.Files), truncate(d.License, 60))
			}
			return tw.Flush()
		},
	}
	verify := &cobra.Command{
		Use:     "verify [DATASET|TASK...]",
		Short:   "Check every file of the datasets against its sha256",
		Example: "  $ pocketeval datasets verify --data-dir ../shared/datasets\n  $ pocketeval datasets verify gsm8k mmlu",
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, err := datasets.Lookup(args)
			if err != nil {
				return &FlagError{err: err}
			}
			sts, err := datasets.Verify(dir(), ds)
			if err != nil {
				return err
			}
			if asJSON {
				if err := writeJSON(f, sts); err != nil {
					return err
				}
			} else {
				counts := map[datasets.Status]int{}
				for _, s := range sts {
					counts[s.Status]++
					if s.Status != datasets.OK && !(s.Optional && s.Status == datasets.Missing) {
						fmt.Fprintf(f.IO.Out, "%s\t%s\n", s.Status, s.Path)
					}
				}
				fmt.Fprintf(f.IO.Out, "%d files ok, %d missing, %d mismatched, %d unpinned in %s\n",
					counts[datasets.OK], counts[datasets.Missing], counts[datasets.Mismatch], counts[datasets.Unpinned], dir())
			}
			if datasets.Failed(sts) {
				return &ExitCodeError{Code: ExitError, Err: errors.New("verification failed; `pocketeval datasets download` fetches missing or wrong files")}
			}
			return nil
		},
	}
	var mirror string
	var optional, force bool
	download := &cobra.Command{
		Use:   "download [DATASET|TASK...]",
		Short: "Download datasets from their official homes, verified by sha256",
		Example: `  $ pocketeval datasets download gsm8k ifeval
  $ pocketeval datasets download --optional gsm8k     # also the few-shot train split
  $ pocketeval datasets download --mirror http://mirror.internal/pocketeval-data`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ds, err := datasets.Lookup(args)
			if err != nil {
				return &FlagError{err: err}
			}
			o := datasets.FetchOptions{Mirror: mirror, Optional: optional, Force: force, Progress: byteProgress(f)}
			sts, err := datasets.Download(cmd.Context(), dir(), ds, o)
			if err != nil {
				return err
			}
			if asJSON {
				return writeJSON(f, sts)
			}
			fmt.Fprintf(f.IO.Out, "%d files verified in %s\n", len(sts), dir())
			return nil
		},
	}
	download.Flags().StringVar(&mirror, "mirror", "", "base URL of a mirror laid out like the data directory")
	download.Flags().BoolVar(&optional, "optional", false, "also fetch optional files (few-shot pools)")
	download.Flags().BoolVar(&force, "force", false, "download again even if files verify")
	cmd.AddCommand(list, verify, download)
	return cmd
}

// NewCmdModels manages named models.
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
	var file string
	var asJSON bool
	cmd.PersistentFlags().StringVar(&file, "models-file", os.Getenv("POCKETEVAL_MODELS"), "JSON file adding or overriding registry entries")
	cmd.PersistentFlags().BoolVar(&asJSON, "json", false, "machine-readable output")
	list := &cobra.Command{
		Use: "list", Short: "List the known models", Args: cobra.NoArgs,
		Example: "  $ pocketeval models list",
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := models.Load(file)
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			if asJSON {
				return writeJSON(f, reg)
			}
			tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tRUNTIME\tSOURCE\tDESCRIPTION")
			for _, n := range reg.Names() {
				m := reg[n]
				fmt.Fprintf(tw, "%s\t%s\t%s:%s@%s\t%s\n", n, m.Runtime, m.Hub, m.Repo, m.Revision, m.Description)
			}
			return tw.Flush()
		},
	}
	download := &cobra.Command{
		Use: "download NAME...", Short: "Download models into the cache", Args: cobra.MinimumNArgs(1),
		Example: "  $ pocketeval models download qwen3-0.6b-gguf",
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := models.Load(file)
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			for _, n := range args {
				m, ok := reg[n]
				if !ok {
					return FlagErrorf("unknown model %q (see `pocketeval models list`)", n)
				}
				p, err := models.Fetch(cmd.Context(), m, models.FetchOptions{Progress: byteProgress(f)})
				if err != nil {
					return err
				}
				fmt.Fprintf(f.IO.Out, "%s\t%s\n", n, p)
			}
			return nil
		},
	}
	cmd.AddCommand(list, download, newCmdModelsShow(f, &file, &asJSON))
	return cmd
}

// resolveModel turns --model NAME into a cached path when NAME is not a
// file but a registry entry, downloading it on first use.
func resolveModel(cmd *cobra.Command, f *Factory, o *RuntimeOptions) error {
	if o.Model == "" || o.Name == "openai" || o.Name == "replay" {
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
	p, err := models.Fetch(cmd.Context(), m, models.FetchOptions{Progress: byteProgress(f)})
	if err != nil {
		return err
	}
	o.Model = p
	return nil
}

// NewCmdMerge combines shard runs.
func NewCmdMerge(f *Factory) *cobra.Command {
	var out, dataDir string
	var taskFiles []string
	cmd := &cobra.Command{
		Use:   "merge DIR... --out D",
		Short: "Combine the result directories of a sharded run",
		Long: `Merge combines the result directories written by "run --shard i/N" on several
machines. It checks that they come from the same configuration, that every shard
is present once and complete, and that every sample appears exactly once, then
writes the same samples and summary an unsharded run would have written.`,
		Example: `  $ pocketeval merge shard0 shard1 shard2 --out merged`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return FlagErrorf("--out is required")
			}
			if dataDir == "" {
				dataDir = DefaultDataDir()
			}
			bi := ReadBuildInfo()
			tasks := f.Tasks()
			if len(taskFiles) > 0 {
				files, err := registry.Lookup(nil, taskFiles)
				if err != nil {
					return &FlagError{err: err}
				}
				tasks = append(files, tasks...)
			}
			sum, err := runner.Merge(cmd.Context(), runner.MergeOptions{
				Dirs: args, Out: out, DataDir: dataDir, Command: f.Args, Now: f.Now,
				Build: results.BuildInfo{Version: bi.Version, Revision: bi.Revision, Modified: bi.Modified, GoVersion: bi.GoVersion},
				Lookup: func(name string) (evals.Task, error) {
					ts, err := registry.Lookup(tasks, []string{name})
					if err != nil {
						return nil, err
					}
					return ts[0], nil
				},
			})
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			PrintSummary(f.IO.Out, sum)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "merged result directory")
	cmd.Flags().StringVar(&dataDir, "data-dir", os.Getenv("POCKETEVAL_DATA"), "dataset directory")
	cmd.Flags().StringSliceVar(&taskFiles, "tasks", nil, "the task files or directories the shards ran, when they ran task files")
	return cmd
}

func writeJSON(f *Factory, v any) error {
	enc := json.NewEncoder(f.IO.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// byteProgress returns a download progress callback: a bar on a terminal,
// otherwise a line per file.
func byteProgress(f *Factory) func(path string, done, total int64) {
	var mu sync.Mutex
	bars := map[string]*progressbar.ProgressBar{}
	announced := map[string]bool{}
	return func(path string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		if !f.IO.StderrTTY {
			if !announced[path] {
				announced[path] = true
				fmt.Fprintf(f.IO.ErrOut, "downloading %s\n", path)
			}
			return
		}
		b, ok := bars[path]
		if !ok {
			b = progressbar.NewOptions64(total, progressbar.OptionSetWriter(f.IO.ErrOut),
				progressbar.OptionSetDescription(path), progressbar.OptionShowBytes(true),
				progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
			bars[path] = b
		}
		b.Set64(done)
	}
}
