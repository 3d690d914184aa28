package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/datasets"
)

// datasetCommands returns datasets, models and merge.
func datasetCommands(f *Factory) []*cobra.Command {
	return []*cobra.Command{NewCmdDatasets(f), NewCmdModels(f), NewCmdMerge(f, nil)}
}

// DatasetsOptions are the flags every `pocketeval datasets` subcommand
// shares (persistent flags of the group).
type DatasetsOptions struct {
	IO      *IOStreams
	DataDir string // --data-dir ("" = datasets.DefaultDir())
	JSON    bool   // --json
}

func (o *DatasetsOptions) dir() string {
	if o.DataDir != "" {
		return o.DataDir
	}
	return datasets.DefaultDir()
}

// NewCmdDatasets groups the dataset commands: list, verify, download.
func NewCmdDatasets(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "datasets",
		Short: "List, download and verify benchmark datasets",
		Long: `Datasets come from their official homes (or byte-identical verified copies),
pinned by sha256. The data directory is --data-dir, else $POCKETEVAL_DATA, else
$XDG_CACHE_HOME/pocketeval/datasets. pocketeval run never downloads data itself.`,
	}
	shared := &DatasetsOptions{IO: f.IO}
	cmd.PersistentFlags().StringVar(&shared.DataDir, "data-dir", "", "data directory (default $POCKETEVAL_DATA or the cache)")
	cmd.PersistentFlags().BoolVar(&shared.JSON, "json", false, "machine-readable output")
	cmd.AddCommand(
		NewCmdDatasetsList(f, shared, nil),
		NewCmdDatasetsVerify(f, shared, nil),
		NewCmdDatasetsDownload(f, shared, nil),
	)
	return cmd
}

// DatasetsListOptions are the options of `pocketeval datasets list`.
type DatasetsListOptions struct {
	*DatasetsOptions
}

// NewCmdDatasetsList lists the known datasets.
func NewCmdDatasetsList(f *Factory, shared *DatasetsOptions, runF func(*DatasetsListOptions) error) *cobra.Command {
	opts := &DatasetsListOptions{DatasetsOptions: shared}
	return &cobra.Command{
		Use:     "list",
		Short:   "List the known datasets",
		Example: "  $ pocketeval datasets list\n  $ pocketeval datasets list --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return datasetsListRun(opts)
		},
	}
}

func datasetsListRun(opts *DatasetsListOptions) error {
	reg := datasets.Registry()
	if opts.JSON {
		return writeJSON(opts.IO, reg)
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "DATASET\tTASKS\tFILES\tLICENSE")
	for _, d := range reg {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", d.Name, strings.Join(d.Tasks, ","), len(d.Files), truncate(d.License, 60))
	}
	return tw.Flush()
}

// DatasetsVerifyOptions are the options of `pocketeval datasets verify`.
type DatasetsVerifyOptions struct {
	*DatasetsOptions
	Datasets []datasets.Dataset // the arguments, resolved
}

// NewCmdDatasetsVerify checks data files against their sha256.
func NewCmdDatasetsVerify(f *Factory, shared *DatasetsOptions, runF func(*DatasetsVerifyOptions) error) *cobra.Command {
	opts := &DatasetsVerifyOptions{DatasetsOptions: shared}
	return &cobra.Command{
		Use:     "verify [DATASET|TASK...]",
		Short:   "Check every file of the datasets against its sha256",
		Example: "  $ pocketeval datasets verify --data-dir ../shared/datasets\n  $ pocketeval datasets verify gsm8k mmlu",
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.Datasets, err = lookupDatasets(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return datasetsVerifyRun(opts)
		},
	}
}

func datasetsVerifyRun(opts *DatasetsVerifyOptions) error {
	sts, err := datasets.Verify(opts.dir(), opts.Datasets)
	if err != nil {
		return err
	}
	if opts.JSON {
		if err := writeJSON(opts.IO, sts); err != nil {
			return err
		}
	} else {
		counts := map[datasets.Status]int{}
		for _, s := range sts {
			counts[s.Status]++
			if s.Status != datasets.OK && !(s.Optional && s.Status == datasets.Missing) {
				fmt.Fprintf(opts.IO.Out, "%s\t%s\n", s.Status, s.Path)
			}
		}
		fmt.Fprintf(opts.IO.Out, "%d files ok, %d missing, %d mismatched, %d unpinned in %s\n",
			counts[datasets.OK], counts[datasets.Missing], counts[datasets.Mismatch], counts[datasets.Unpinned], opts.dir())
	}
	if datasets.Failed(sts) {
		return &ExitCodeError{Code: ExitError, Err: errors.New("verification failed; `pocketeval datasets download` fetches missing or wrong files")}
	}
	return nil
}

// DatasetsDownloadOptions are the options of `pocketeval datasets download`.
type DatasetsDownloadOptions struct {
	*DatasetsOptions
	Datasets []datasets.Dataset // the arguments, resolved
	Mirror   string             // --mirror
	Optional bool               // --optional
	Force    bool               // --force
	// Progress reports download progress (a bar on a terminal).
	Progress func(path string, done, total int64)
}

// NewCmdDatasetsDownload fetches datasets from their official homes.
func NewCmdDatasetsDownload(f *Factory, shared *DatasetsOptions, runF func(*DatasetsDownloadOptions) error) *cobra.Command {
	opts := &DatasetsDownloadOptions{DatasetsOptions: shared, Progress: byteProgress(f.IO)}
	cmd := &cobra.Command{
		Use:   "download [DATASET|TASK...]",
		Short: "Download datasets from their official homes, verified by sha256",
		Example: `  $ pocketeval datasets download gsm8k ifeval
  $ pocketeval datasets download --optional gsm8k     # also the few-shot train split
  $ pocketeval datasets download --mirror http://mirror.internal/pocketeval-data`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if opts.Datasets, err = lookupDatasets(args); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return datasetsDownloadRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Mirror, "mirror", "", "base URL of a mirror laid out like the data directory")
	cmd.Flags().BoolVar(&opts.Optional, "optional", false, "also fetch optional files (few-shot pools)")
	cmd.Flags().BoolVar(&opts.Force, "force", false, "download again even if files verify")
	return cmd
}

func datasetsDownloadRun(ctx context.Context, opts *DatasetsDownloadOptions) error {
	o := datasets.FetchOptions{Mirror: opts.Mirror, Optional: opts.Optional, Force: opts.Force, Progress: opts.Progress}
	sts, err := datasets.Download(ctx, opts.dir(), opts.Datasets, o)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO, sts)
	}
	fmt.Fprintf(opts.IO.Out, "%d files verified in %s\n", len(sts), opts.dir())
	return nil
}

// lookupDatasets resolves dataset or task names (none: all datasets); an
// unknown name is a usage error.
func lookupDatasets(names []string) ([]datasets.Dataset, error) {
	ds, err := datasets.Lookup(names)
	if err != nil {
		return nil, &FlagError{err: err}
	}
	return ds, nil
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
