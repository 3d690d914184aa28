package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/pocketeval/pocketeval/internal/texttab"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/datasets"
	"github.com/pocketeval/pocketeval/evals"
)

// datasetCommands returns datasets, models and merge.
func datasetCommands(f *Factory) []*cobra.Command {
	return []*cobra.Command{NewCmdDatasets(f), NewCmdModels(f), NewCmdMerge(f, nil), NewCmdVerify(f, nil)}
}

// DatasetsOptions are the flags every `pocketeval datasets` subcommand
// shares (persistent flags of the group).
type DatasetsOptions struct {
	IO *IOStreams
	// Tasks lists the known tasks (to say which need a file).
	Tasks   func() []evals.Task
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
	shared := &DatasetsOptions{IO: f.IO, Tasks: f.Tasks}
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
	reg := datasetRegistry()
	if opts.JSON {
		return writeJSON(opts.IO, struct {
			Datasets []datasets.Dataset `json:"datasets"`
		}{reg})
	}
	tw := texttab.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
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
			opts.Datasets = withTaskFiles(opts.Datasets, args, f.Tasks())
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
	doc := newFilesJSON(opts.dir(), opts.Datasets, sts, opts.Tasks())
	if opts.JSON {
		if err := writeJSON(opts.IO, doc); err != nil {
			return err
		}
	} else {
		tw := texttab.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
		for _, f := range doc.Files {
			if f.Status != string(datasets.OK) {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Status, f.Path, f.Why)
			}
		}
		tw.Flush()
		fmt.Fprintf(opts.IO.Out, "%s in %s\n", doc.counts(), opts.dir())
	}
	if datasets.Failed(sts) {
		return &ExitCodeError{Code: ExitError, Err: fmt.Errorf("verification failed: %s; %s", doc.counts(), fetchHint(opts.dir()))}
	}
	return nil
}

// fetchHint says how to get missing or wrong files into dir.
func fetchHint(dir string) string {
	return fmt.Sprintf("`pocketeval datasets download NAME --data-dir %s` fetches them (needs network, or --mirror URL), or point --data-dir/$POCKETEVAL_DATA at a directory that has them", dir)
}

// filesJSON is the --json document of `datasets verify` and `datasets
// download`: every file with its status and, when it is not ok, why.
type filesJSON struct {
	DataDir  string     `json:"data_dir"`
	Files    []fileJSON `json:"files"`
	OK       int        `json:"ok"`
	Missing  int        `json:"missing"`
	Optional int        `json:"optional_missing"`
	Mismatch int        `json:"mismatched"`
	Unpinned int        `json:"unpinned"`
}

type fileJSON struct {
	Dataset  string `json:"dataset"`
	Path     string `json:"path"`
	Status   string `json:"status"`
	Optional bool   `json:"optional"`
	// Why explains a status other than ok: who needs a missing file, what
	// an optional one is for, what a mismatch means.
	Why    string `json:"why,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	Got    string `json:"got_sha256,omitempty"`
}

func newFilesJSON(dir string, ds []datasets.Dataset, sts []datasets.FileStatus, tasks []evals.Task) filesJSON {
	notes := map[string]datasets.File{}
	for _, d := range ds {
		for _, f := range d.Files {
			notes[f.Path] = f
		}
	}
	// users names the tasks that read a file (or a directory above it).
	users := func(path string) string {
		var out []string
		for _, t := range tasks {
			info := t.Info()
			for _, df := range info.DatasetFiles {
				if path == df || strings.HasPrefix(path, df+"/") {
					out = append(out, info.Name)
					break
				}
			}
		}
		if len(out) == 0 {
			return "the dataset's tasks (licence or shared file)"
		}
		return "task " + strings.Join(out, ", ")
	}
	doc := filesJSON{DataDir: dir, Files: []fileJSON{}}
	for _, st := range sts {
		f := fileJSON{Dataset: st.Dataset, Path: st.Path, Status: string(st.Status), Optional: st.Optional, SHA256: st.Want, Got: st.Got}
		switch {
		case st.Status == datasets.OK:
			doc.OK++
		case st.Status == datasets.Missing && st.Optional:
			doc.Optional++
			note := notes[st.Path].Note
			if t := notes[st.Path].FewShotFor; t != "" {
				note += ": only " + t + " --num-fewshot N > 0 reads it"
			}
			f.Why = "optional, not downloaded: " + note + " (datasets download --optional fetches it)"
		case st.Status == datasets.Missing:
			doc.Missing++
			f.Why = "not downloaded; needed by " + users(st.Path)
		case st.Status == datasets.Mismatch:
			doc.Mismatch++
			f.Why = "the file differs from the pinned official bytes (a different version or a corrupt copy)"
		case st.Status == datasets.Unpinned:
			doc.Unpinned++
			f.Why = "present, but no checksum is pinned for it yet (a download pins it)"
		}
		doc.Files = append(doc.Files, f)
	}
	return doc
}

// counts summarises the files' statuses in one line.
func (d filesJSON) counts() string {
	return fmt.Sprintf("%d files ok, %d missing, %d optional not downloaded, %d mismatched, %d unpinned", d.OK, d.Missing, d.Optional, d.Mismatch, d.Unpinned)
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
			opts.Datasets = withTaskFiles(opts.Datasets, args, f.Tasks())
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
		return fmt.Errorf("%w\nnothing partial was kept; %s", err, downloadHint(err, opts))
	}
	if opts.JSON {
		return writeJSON(opts.IO, newFilesJSON(opts.dir(), opts.Datasets, sts, opts.Tasks()))
	}
	fmt.Fprintf(opts.IO.Out, "%d files verified in %s\n", len(sts), opts.dir())
	return nil
}

// downloadHint says what to do about a download that failed.
func downloadHint(err error, opts *DatasetsDownloadOptions) string {
	var dns *net.DNSError
	var op *net.OpError
	if errors.As(err, &dns) || errors.As(err, &op) {
		return fmt.Sprintf("the official source is unreachable from here (no network?): copy the files into %s by other means and check them with `pocketeval datasets verify`, or fetch from an internal mirror with --mirror URL", opts.dir())
	}
	return "run the same command again to retry (finished files are kept)"
}

// withTaskFiles makes the files of the tasks named in args required in ds:
// `datasets download mgsm_de` fetches mgsm_de.tsv, which the dataset lists
// as optional because other runs do not need it.
func withTaskFiles(ds []datasets.Dataset, args []string, tasks []evals.Task) []datasets.Dataset {
	need := map[string]bool{}
	for _, t := range tasks {
		info := t.Info()
		for _, a := range args {
			if a == info.Name {
				for _, f := range info.DatasetFiles {
					need[f] = true
				}
			}
		}
	}
	out := make([]datasets.Dataset, len(ds))
	for i, d := range ds {
		d.Files = append([]datasets.File(nil), d.Files...)
		for j := range d.Files {
			if need[d.Files[j].Path] {
				d.Files[j].Optional = false
			}
		}
		out[i] = d
	}
	return out
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
