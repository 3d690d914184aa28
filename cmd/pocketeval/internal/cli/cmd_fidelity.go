package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/pocketeval/pocketeval/internal/regfile"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/pocketeval/pocketeval/fidelity"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// fidelityCommands is `pocketeval fidelity` and its subcommands.
func fidelityCommands(f *Factory) []*cobra.Command {
	cmd := &cobra.Command{
		Use:   "fidelity",
		Short: "Compare a quantized model with its reference precision, token by token and answer by answer",
		Long: `fidelity measures how far a candidate (a quantization, another package or
runtime of the same model) is from its reference:

  reference  evaluates a text (or a run's prompts) with the reference model
             once and saves its next-token log-probabilities (with sha256)
  compare    evaluates the same tokens with the candidate: KL divergence
             (mean, median, p99), top-1 and top-p set agreement, both
             perplexities and their ratio, with 95% intervals — the numbers
             llama-perplexity --kl-divergence prints
  flips      pairs the per-sample scores of a reference run and a candidate
             run: right→wrong and wrong→right per task, paired tests, where
             the greedy texts part
  gate       checks a policy of thresholds relative to the reference
             (max_kl_mean, min_top1_agreement, max_ppl_increase_pct,
             min_relative_score), one JUnit test case per key
  quantize   writes a GGUF copy in another type through libllama's own
             llama_model_quantize (as llama-quantize does)

docs/quantization.md is the release workflow.`,
	}
	cmd.AddCommand(newCmdFidelityReference(f), newCmdFidelityCompare(f), newCmdFidelityFlips(f), newCmdFidelityQuantize(f), newCmdFidelityGate(f))
	return []*cobra.Command{cmd}
}

// fidelityRuntime opens the runtime the options select and checks it
// exposes logits.
func fidelityRuntime(ctx context.Context, o RuntimeOptions) (runtime.Logitser, runtime.Info, func(), error) {
	rt, err := OpenRuntime(ctx, o)
	if err != nil {
		return nil, runtime.Info{}, nil, err
	}
	lg, ok := rt.(runtime.Logitser)
	if !ok {
		rt.Close()
		return nil, runtime.Info{}, nil, &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("--runtime %s does not expose logits (%w); use llamacpp or mnn", o.Name, runtime.ErrNotSupported)}
	}
	var info runtime.Info
	if d, ok := rt.(runtime.Describer); ok {
		info = d.Describe()
	}
	return lg, info, func() { rt.Close() }, nil
}

// hideSpeculative hides the speculative-decoding flags from a fidelity
// command's help: logits are computed one forward pass at a time, so a
// draft model or its settings change nothing there.
func hideSpeculative(fl *pflag.FlagSet) {
	for _, name := range []string{"speculative", "speculative-verify", "draft-model", "draft-max", "draft-min", "draft-p-min"} {
		if f := fl.Lookup(name); f != nil {
			f.Hidden = true
		}
	}
}

func fidelityProgress(io *IOStreams, what string) (fidelity.Progress, func()) {
	p := newProgress(io)
	started := false
	return func(done, total int) {
			if !started {
				p.Start(total, 0)
				started = true
			}
			p.Done(what)
		}, func() {
			if started {
				p.Finish()
			}
		}
}

type fidelityRefOptions struct {
	IO      *IOStreams
	Runtime RuntimeOptions
	Text    string // --text
	Prompts string // --prompts (a run directory)
	Ctx     int    // --ctx
	Chunks  int    // --chunks
	Out     string // -o
	JSON    bool
}

func newCmdFidelityReference(f *Factory) *cobra.Command {
	o := &fidelityRefOptions{IO: f.IO, Runtime: RuntimeOptions{Machine: f.Machine, Drivers: f.runtimes()}}
	cmd := &cobra.Command{
		Use:   "reference --runtime R --model M (--text FILE | --prompts RUN) -o REF",
		Short: "Save a reference model's next-token log-probabilities over a text or a run's prompts",
		Long: `reference evaluates a text with the reference model as llama-perplexity does
(tokenized once with BOS, cut into chunks of --ctx tokens, BOS first in each,
the second half of each chunk scored), or the prompts a finished run sent
(--prompts RUN: every selected sample's rendered prompt, scored from its first
token), and writes the log-probabilities at every scored position, 16 bits per
vocabulary entry (2·n_vocab+8 bytes a position), to REF and its sha256 to
REF.sha256. compare reads them back for each candidate.`,
		Example: `  $ pocketeval fidelity reference --runtime llamacpp --model stories260K.gguf \
      --text ../shared/datasets/bbh/cot-prompts/date_understanding.txt --ctx 128 -o ref.logits
  $ pocketeval fidelity reference --runtime llamacpp --model ref.gguf --prompts runs/ref -o prompts.logits`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (o.Text == "") == (o.Prompts == "") {
				return FlagErrorf("give exactly one of --text and --prompts")
			}
			if o.Out == "" {
				return FlagErrorf("-o REF is required")
			}
			if o.Ctx < 4 {
				return FlagErrorf("--ctx must be >= 4, got %d", o.Ctx)
			}
			if o.Chunks < 0 {
				return FlagErrorf("--chunks must be >= 0, got %d", o.Chunks)
			}
			if o.Runtime.Model == "" {
				return FlagErrorf("--model is required")
			}
			o.Runtime.Workers = 1
			if err := o.Runtime.Validate(); err != nil {
				return err
			}
			return fidelityReference(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Text, "text", "", "a UTF-8 text file to evaluate")
	fl.StringVar(&o.Prompts, "prompts", "", "a finished run directory whose prompts to evaluate")
	fl.IntVar(&o.Ctx, "ctx", 512, "chunk length in tokens (llama-perplexity's -c); the longest prompt kept with --prompts")
	fl.IntVar(&o.Chunks, "chunks", 0, "evaluate at most this many chunks (0: all; llama-perplexity's --chunks)")
	fl.StringVarP(&o.Out, "output", "o", "", "reference logits file to write")
	fl.BoolVar(&o.JSON, "json", false, "machine-readable output")
	o.Runtime.AddFlags(fl)
	hideSpeculative(fl)
	return cmd
}

// fidelityRefJSON is `fidelity reference --json` (docs/json.md).
type fidelityRefJSON struct {
	Path   string          `json:"path"`
	SHA256 string          `json:"sha256"`
	Header fidelity.Header `json:"header"`
	Cost   fidelity.Cost   `json:"cost"`
}

func fidelityReference(ctx context.Context, o *fidelityRefOptions) error {
	var text string
	src := fidelity.Source{NCtx: o.Ctx, Chunks: o.Chunks}
	var prompts []string
	if o.Text != "" {
		b, err := regfile.ReadFile(o.Text, regfile.MaxData)
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("--text: %w", err)}
		}
		text = string(b)
		sum := sha256.Sum256(b)
		src.Kind, src.Path, src.SHA256 = "text", o.Text, hex.EncodeToString(sum[:])
	} else {
		var err error
		prompts, src.SHA256, err = runPrompts(o.Prompts)
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("--prompts: %w", err)}
		}
		src.Kind, src.Path = "prompts", o.Prompts
	}
	rt, info, closeRT, err := fidelityRuntime(ctx, o.Runtime)
	if err != nil {
		return err
	}
	defer closeRT()
	var seqs []fidelity.Sequence
	if text != "" {
		seqs, err = fidelity.CorpusSequences(rt, text, o.Ctx, o.Chunks)
	} else {
		var skipped int
		seqs, skipped, err = fidelity.PromptSequences(rt, prompts, o.Ctx)
		if skipped > 0 {
			fmt.Fprintf(o.IO.ErrOut, "warning: %d prompts of fewer than two tokens skipped\n", skipped)
		}
	}
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	prog, done := fidelityProgress(o.IO, "reference")
	h, cost, err := fidelity.WriteReference(ctx, rt, info, src, seqs, o.Out, prog)
	done()
	if err != nil {
		return err
	}
	sum, err := os.ReadFile(fidelity.SumPath(o.Out))
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO, fidelityRefJSON{Path: o.Out, SHA256: string(sum[:64]), Header: *h, Cost: cost})
	}
	fmt.Fprintf(o.IO.Out, "wrote %s: %d sequences, %d positions, %d bytes (%d per position), sha256 %s\n",
		o.Out, h.Sequences, h.Positions, cost.Bytes, h.BytesPerPosition, sum[:64])
	fmt.Fprintf(o.IO.Out, "reference: %d tokens in %.2f s (%.0f tokens/s)\n", cost.Tokens, cost.Seconds, cost.TokensPerSec)
	return nil
}

// runPrompts returns the prompts a finished run sent, task by task in run
// order and sample by sample in index order, and the sha256 of them all.
func runPrompts(dir string) ([]string, string, error) {
	run, err := fidelity.LoadRun(dir)
	if err != nil {
		return nil, "", err
	}
	h := sha256.New()
	var out []string
	for _, task := range run.Summary.Order {
		recs, _, err := results.ReadTaskSamples(dir, task)
		if err != nil {
			return nil, "", err
		}
		for i := range recs {
			r := &recs[i]
			if !run.Manifest.Config.Selects(task, r) || r.Repeat > 0 {
				continue
			}
			p := r.Prompt
			switch {
			case r.RenderedPrompt != "":
				p = r.RenderedPrompt
			case len(r.Loglik) > 0:
				p = r.Loglik[0].Context
			}
			if p == "" {
				continue // a chat request whose rendering the runtime did not report
			}
			out = append(out, p)
			h.Write([]byte(p))
			h.Write([]byte{0})
		}
	}
	if len(out) == 0 {
		return nil, "", fmt.Errorf("run %s holds no raw or rendered prompt", dir)
	}
	return out, hex.EncodeToString(h.Sum(nil)), nil
}

type fidelityCompareOptions struct {
	IO      *IOStreams
	Runtime RuntimeOptions
	Ref     string
	TopP    float64
	JSON    bool
	// Server is a server candidate known by its top-k log-probabilities
	// (--server, --server-api, --server-top-k).
	Server    string
	ServerAPI string
	ServerK   int
}

func newCmdFidelityCompare(f *Factory) *cobra.Command {
	o := &fidelityCompareOptions{IO: f.IO, Runtime: RuntimeOptions{Machine: f.Machine, Drivers: f.runtimes()}}
	cmd := &cobra.Command{
		Use:   "compare --ref REF --runtime R --model CANDIDATE",
		Short: "Compare a candidate's next-token distributions with a saved reference",
		Long: `compare evaluates the reference file's tokens with the candidate and reports,
over every saved position, the KL divergence KL(reference ‖ candidate) (mean with
its 95% interval, median, p99 with an order-statistic interval, p99.9, max),
top-1 agreement (llama-perplexity's "Same top p"), the rate at which both
top-p nucleus sets are the same tokens (--top-p), both perplexities, their
ratio and difference, and the probability change of the actual next token, as
llama-perplexity --kl-divergence does. The candidate must share the
reference's vocabulary (checked by hash). The reference file's sha256 is
checked first.

Exit status: 0 when compared, 2 when the reference or the flags are unusable.`,
		Example: `  $ pocketeval fidelity compare --ref ref.logits --runtime llamacpp --model stories260K-Q4_0.gguf
  $ pocketeval fidelity compare --ref ref.logits --runtime llamacpp --model q8.gguf --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Ref == "" {
				return FlagErrorf("--ref REF is required")
			}
			if o.Server != "" {
				if o.ServerK < 1 {
					return FlagErrorf("--server-top-k must be at least 1, got %d", o.ServerK)
				}
				switch o.ServerAPI {
				case "llama-server":
				case "vllm":
					if o.Runtime.Model == "" {
						return FlagErrorf("--server-api vllm needs --model, the served model's name")
					}
				default:
					return FlagErrorf("--server-api %q: want llama-server or vllm", o.ServerAPI)
				}
				return fidelityCompareServer(cmd.Context(), o)
			}
			if o.Runtime.Model == "" {
				return FlagErrorf("--model is required")
			}
			if o.TopP < 0 || o.TopP > 1 {
				return FlagErrorf("--top-p must be in [0,1] (0: not measured), got %v", o.TopP)
			}
			if o.TopP == 0 {
				o.TopP = -1
			}
			o.Runtime.Workers = 1
			if err := o.Runtime.Validate(); err != nil {
				return err
			}
			return fidelityCompare(cmd.Context(), o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Ref, "ref", "", "reference logits file (from fidelity reference)")
	fl.Float64Var(&o.TopP, "top-p", fidelity.DefaultTopP, "nucleus mass of the same-top-p rate (0: not measured, which is faster on large vocabularies)")
	fl.BoolVar(&o.JSON, "json", false, "machine-readable output")
	fl.StringVar(&o.Server, "server", "", "compare a server known by its top-k log-probabilities instead of a runtime: llama-server's root URL (n_probs) or vLLM's /v1 URL (prompt_logprobs); KL is then a lower bound")
	fl.StringVar(&o.ServerAPI, "server-api", "llama-server", "how --server returns log-probabilities: llama-server or vllm")
	fl.IntVar(&o.ServerK, "server-top-k", 20, "log-probabilities asked of --server per position")
	o.Runtime.AddFlags(fl)
	hideSpeculative(fl)
	return cmd
}

// fidelityCompareServer compares a server candidate known by its top-k
// log-probabilities (fidelity.CompareTopK).
func fidelityCompareServer(ctx context.Context, o *fidelityCompareOptions) error {
	ref, err := fidelity.OpenReference(o.Ref)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	defer ref.Close()
	var src fidelity.TopKSource = &fidelity.LlamaServer{BaseURL: strings.TrimSuffix(strings.TrimSuffix(o.Server, "/"), "/v1"), K: o.ServerK}
	if o.ServerAPI == "vllm" {
		src = &fidelity.VLLM{BaseURL: o.Server, Model: o.Runtime.Model, K: o.ServerK}
	}
	prog, done := fidelityProgress(o.IO, "compare")
	rep, cost, err := fidelity.CompareTopK(ctx, src, ref, fidelity.Options{Progress: prog})
	done()
	if err != nil {
		return err
	}
	info := runtime.Info{Name: o.ServerAPI, Model: src.Describe()}
	if o.JSON {
		return writeJSON(o.IO, fidelityCompareJSON{Ref: o.Ref, RefSHA256: ref.SHA256, RefModel: ref.Header.Model, Candidate: info, Report: *rep, Cost: cost})
	}
	writeTokenReport(o.IO.Out, ref, info, rep, cost)
	fmt.Fprintf(o.IO.Out, "\nthe candidate is known by its top %d log-probabilities a position: KL is a lower bound (its unknown mass spread like the reference's), the same-top-p rate is not measured, and PPL(candidate) is estimated at %d positions whose next token was outside the top %d; the vocabulary is not checked by hash\n",
		o.ServerK, rep.CandidateTopK.EstimatedNextTokens, o.ServerK)
	return nil
}

// fidelityCompareJSON is `fidelity compare --json` (docs/json.md).
type fidelityCompareJSON struct {
	Ref       string               `json:"ref"`
	RefSHA256 string               `json:"ref_sha256"`
	RefModel  runtime.Info         `json:"ref_model"`
	Candidate runtime.Info         `json:"candidate"`
	Report    fidelity.TokenReport `json:"report"`
	Cost      fidelity.Cost        `json:"cost"`
}

func fidelityCompare(ctx context.Context, o *fidelityCompareOptions) error {
	ref, info, rep, cost, err := tokenCompare(ctx, o.IO, o.Runtime, o.Ref, o.TopP)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO, fidelityCompareJSON{Ref: o.Ref, RefSHA256: ref.SHA256, RefModel: ref.Header.Model, Candidate: info, Report: *rep, Cost: cost})
	}
	writeTokenReport(o.IO.Out, ref, info, rep, cost)
	return nil
}

// tokenCompare checks and opens the reference file, opens the candidate's
// runtime and compares them; the reference is closed on return (its
// header and checksum stay readable).
func tokenCompare(ctx context.Context, io *IOStreams, rto RuntimeOptions, path string, topP float64) (*fidelity.Reference, runtime.Info, *fidelity.TokenReport, fidelity.Cost, error) {
	fail := func(err error) (*fidelity.Reference, runtime.Info, *fidelity.TokenReport, fidelity.Cost, error) {
		return nil, runtime.Info{}, nil, fidelity.Cost{}, err
	}
	ref, err := fidelity.OpenReference(path)
	if err != nil {
		return fail(&ExitCodeError{Code: ExitUsage, Err: err})
	}
	defer ref.Close()
	rt, info, closeRT, err := fidelityRuntime(ctx, rto)
	if err != nil {
		return fail(err)
	}
	defer closeRT()
	prog, done := fidelityProgress(io, "compare")
	rep, cost, err := fidelity.Compare(ctx, rt, ref, fidelity.Options{TopP: topP, Progress: prog})
	done()
	if errors.Is(err, fidelity.ErrVocabMismatch) {
		return fail(&ExitCodeError{Code: ExitUsage, Err: err})
	}
	if err != nil {
		return fail(err)
	}
	return ref, info, rep, cost, nil
}

func writeTokenReport(w io.Writer, ref *fidelity.Reference, cand runtime.Info, r *fidelity.TokenReport, c fidelity.Cost) {
	fmt.Fprintf(w, "reference  %s (%s, sha256 %.12s)\ncandidate  %s\n", filepath.Base(ref.Header.Model.Model), ref.Path, ref.SHA256, filepath.Base(cand.Model))
	fmt.Fprintf(w, "%d positions in %d sequences of %s %s\n\n", r.Positions, r.Sequences, ref.Header.Source.Kind, ref.Header.Source.Path)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	iv := func(name string, x fidelity.Interval, format string) {
		fmt.Fprintf(tw, "%s\t"+format+"\t["+format+", "+format+"]\t\n", name, x.Value, x.Lo, x.Hi)
	}
	fmt.Fprintf(tw, "METRIC\tVALUE\t95%% CI\t\n")
	iv("KL divergence mean", r.KLMean, "%.6f")
	fmt.Fprintf(tw, "KL divergence median\t%.6f\t\t\n", r.KLMedian)
	iv("KL divergence p99", r.KLP99, "%.6f")
	fmt.Fprintf(tw, "KL divergence p99.9 / max\t%.6f / %.6f\t\t\n", r.KLP999, r.KLMax)
	iv("top-1 agreement %", pctInterval(r.Top1), "%.3f")
	iv(fmt.Sprintf("same top-p set %% (p=%g)", r.TopP), pctInterval(r.SameTopP), "%.3f")
	iv("PPL(reference)", r.PPLRef, "%.4f")
	iv("PPL(candidate)", r.PPLCand, "%.4f")
	iv("PPL ratio", r.PPLRatio, "%.6f")
	iv("Δ PPL", r.PPLDiff, "%.4f")
	iv("Δ PPL %", r.PPLIncreasePct, "%.3f")
	fmt.Fprintf(tw, "Cor(ln PPL(cand), ln PPL(ref)) %%\t%.2f\t\t\n", 100*r.CorLnPPL)
	iv("RMS Δp %", pctInterval(r.DeltaPRMS), "%.3f")
	tw.Flush()
	fmt.Fprintf(w, "\ncost: %d tokens in %.2f s (%.0f tokens/s); reference file %d bytes, %d per position\n", c.Tokens, c.Seconds, c.TokensPerSec, c.Bytes, c.BytesPerPosition)
}

func pctInterval(x fidelity.Interval) fidelity.Interval {
	return fidelity.Interval{Value: 100 * x.Value, Stderr: 100 * x.Stderr, Lo: 100 * x.Lo, Hi: 100 * x.Hi}
}

type fidelityFlipsOptions struct {
	IO        *IOStreams
	Ref, Cand string
	Tasks     []string
	Resamples int
	Seed      uint64
	Show      int
	JSON      bool
}

func newCmdFidelityFlips(f *Factory) *cobra.Command {
	o := &fidelityFlipsOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "flips REFERENCE_RUN CANDIDATE_RUN",
		Short: "Per-sample answer flips between a reference run and a candidate run",
		Long: `flips pairs the samples of two finished runs by id and repeat, task by task
on each task's primary metric, and reports the samples whose score fell
(right→wrong) or rose (wrong→right), the paired test of the difference
(exact McNemar for pass/fail metrics, paired bootstrap otherwise), the
candidate's score relative to the reference's, and for each flipped sample
where the two responses first differ.

Exit status: 0 when compared, 2 when the runs cannot be read or share no task.`,
		Example: `  $ pocketeval fidelity flips runs/f32 runs/q4_0
  $ pocketeval fidelity flips runs/f32 runs/q4_0 --tasks gsm8k --json`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Ref, o.Cand = args[0], args[1]
			return fidelityFlips(o)
		},
	}
	fl := cmd.Flags()
	fl.StringSliceVar(&o.Tasks, "tasks", nil, "compare only these tasks")
	fl.IntVar(&o.Resamples, "resamples", 10000, "paired-bootstrap resamples")
	fl.Uint64Var(&o.Seed, "seed", 1, "bootstrap seed")
	fl.IntVar(&o.Show, "show", 5, "flipped samples listed per task in the table")
	fl.BoolVar(&o.JSON, "json", false, "machine-readable output (every flipped sample)")
	acceptDataDir(fl, "fidelity flips")
	return cmd
}

// fidelityFlipsJSON is `fidelity flips --json` (docs/json.md).
type fidelityFlipsJSON struct {
	Ref   string               `json:"ref"`
	Cand  string               `json:"cand"`
	Tasks []fidelity.TaskFlips `json:"tasks"`
}

func fidelityFlips(o *fidelityFlipsOptions) error {
	a, err := fidelity.LoadRun(o.Ref)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	b, err := fidelity.LoadRun(o.Cand)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	tasks, err := fidelity.Flips(a, b, fidelity.FlipsOptions{Tasks: o.Tasks, Resamples: o.Resamples, Seed: o.Seed})
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	if o.JSON {
		return writeJSON(o.IO, fidelityFlipsJSON{Ref: o.Ref, Cand: o.Cand, Tasks: tasks})
	}
	tw := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "TASK\tMETRIC\tN\tREF\tCAND\tRELATIVE\tRIGHT→WRONG\tWRONG→RIGHT\tp\tTEST\t\n")
	for _, t := range tasks {
		rel := "-"
		if t.RefScore != 0 {
			rel = fmt.Sprintf("%.1f%%", 100*t.RelativeScore)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.2f\t%.2f\t%s\t%d\t%d\t%s\t%s\t\n", t.Task, t.Metric, t.Paired.N, 100*t.RefScore, 100*t.CandScore,
			rel, t.RightToWrong, t.WrongToRight, fmtPValue(t.Paired.P), t.Paired.Test)
	}
	tw.Flush()
	for _, t := range tasks {
		for i, fl := range t.Flipped {
			if i == o.Show {
				fmt.Fprintf(o.IO.Out, "  … %d more (--json lists all)\n", len(t.Flipped)-i)
				break
			}
			fmt.Fprintf(o.IO.Out, "%s %s: %g → %g", t.Task, fl.ID, fl.Ref, fl.Cand)
			if fl.Part != nil {
				fmt.Fprintf(o.IO.Out, "; texts part at byte %d: %q vs %q", fl.Part.Byte, fl.Part.Ref, fl.Part.Cand)
			}
			fmt.Fprintln(o.IO.Out)
		}
	}
	return nil
}

type fidelityQuantizeOptions struct {
	IO      *IOStreams
	Model   string
	Type    string
	Out     string
	Threads int
	LibDir  string
}

func newCmdFidelityQuantize(f *Factory) *cobra.Command {
	o := &fidelityQuantizeOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "quantize --model IN.gguf --type TYPE -o OUT.gguf",
		Short: "Write a GGUF copy of a model in another type with libllama's llama_model_quantize",
		Long: fmt.Sprintf(`quantize converts a GGUF model through the llama.cpp library pocketeval
runs (llama_model_quantize with its default parameters, as llama-quantize
without options). Types: %v.`, llamacpp.QuantTypes()),
		Example: `  $ pocketeval fidelity quantize --model stories260K.gguf --type Q4_0 -o stories260K-Q4_0.gguf`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Model == "" || o.Type == "" || o.Out == "" {
				return FlagErrorf("--model, --type and -o are required")
			}
			if err := llamacpp.Quantize(o.LibDir, o.Model, o.Out, o.Type, o.Threads); err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			fi, err := os.Stat(o.Out)
			if err != nil {
				return err
			}
			fmt.Fprintf(o.IO.Out, "wrote %s (%s, %d bytes)\n", o.Out, o.Type, fi.Size())
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Model, "model", "", "GGUF model to convert")
	fl.StringVar(&o.Type, "type", "", "target type, e.g. Q8_0, Q4_0, Q4_1")
	fl.StringVarP(&o.Out, "output", "o", "", "GGUF file to write")
	fl.IntVar(&o.Threads, "threads", 1, "threads")
	fl.StringVar(&o.LibDir, "llama-lib", "", "llama.cpp library directory (default: $POCKETEVAL_LLAMA_LIB or the setup location)")
	return cmd
}

type fidelityGateOptions struct {
	IO      *IOStreams
	Runtime RuntimeOptions
	Policy  string
	Ref     string // --ref: reference logits (token keys)
	RefRun  string // --ref-run, --cand-run: finished runs (answer keys)
	CandRun string
	JUnit   string
	JSON    bool
}

func newCmdFidelityGate(f *Factory) *cobra.Command {
	o := &fidelityGateOptions{IO: f.IO, Runtime: RuntimeOptions{Machine: f.Machine, Drivers: f.runtimes()}}
	cmd := &cobra.Command{
		Use:   "gate --policy P [--ref REF --runtime R --model CANDIDATE] [--ref-run A --cand-run B]",
		Short: "Gate a candidate against its reference precision under a fidelity policy",
		Long: `gate checks a candidate against its reference under a policy whose thresholds
are relative to the reference (docs/quantization.md):

  max_kl_mean, max_kl_p99     KL(reference ‖ candidate) in nats (needs --ref and the candidate)
  min_top1_agreement          percent of positions with the same most likely token
  max_ppl_increase_pct        the candidate's perplexity above the reference's, percent
  min_relative_score          every task's score as a percent of the reference's (needs the runs)
  tasks: {T: {min_relative_score: x}}   one task's own bound
  suite_min_relative_score    the mean of the tasks' scores, percent of the reference's

Each key is its own JUnit test case (--junit FILE).

Exit status: 0 when every key passes, 1 when one fails, 2 when the policy,
the reference or the runs are unusable.`,
		Example: `  $ pocketeval fidelity gate --policy quant.yaml --ref ref.logits --runtime llamacpp --model q4.gguf --junit gate.xml
  $ pocketeval fidelity gate --policy quant.yaml --ref-run runs/f32 --cand-run runs/q4`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Policy == "" {
				return FlagErrorf("--policy is required")
			}
			p, err := fidelity.ReadPolicy(o.Policy)
			if err != nil {
				return &ExitCodeError{Code: ExitUsage, Err: err}
			}
			if p.NeedsTokens() && (o.Ref == "" || o.Runtime.Model == "") {
				return FlagErrorf("the policy sets token-level keys: give --ref and the candidate's --runtime and --model")
			}
			if p.NeedsAnswers() && (o.RefRun == "" || o.CandRun == "") {
				return FlagErrorf("the policy sets answer-level keys: give --ref-run and --cand-run")
			}
			if p.NeedsTokens() {
				o.Runtime.Workers = 1
				if err := o.Runtime.Validate(); err != nil {
					return err
				}
			}
			return fidelityGate(cmd.Context(), o, p)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Policy, "policy", "", "fidelity policy file (YAML)")
	fl.StringVar(&o.Ref, "ref", "", "reference logits file (for the token-level keys)")
	fl.StringVar(&o.RefRun, "ref-run", "", "the reference's finished run (for the answer-level keys)")
	fl.StringVar(&o.CandRun, "cand-run", "", "the candidate's finished run")
	fl.StringVar(&o.JUnit, "junit", "", "write JUnit XML here (one test case per policy key)")
	fl.BoolVar(&o.JSON, "json", false, "machine-readable output")
	o.Runtime.AddFlags(fl)
	hideSpeculative(fl)
	return cmd
}

// fidelityGateJSON is `fidelity gate --json` (docs/json.md).
type fidelityGateJSON struct {
	Pass  bool            `json:"pass"`
	Cases []fidelity.Case `json:"cases"`
}

func fidelityGate(ctx context.Context, o *fidelityGateOptions, p *fidelity.Policy) error {
	var cases []fidelity.Case
	if p.NeedsAnswers() {
		a, err := fidelity.LoadRun(o.RefRun)
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: err}
		}
		b, err := fidelity.LoadRun(o.CandRun)
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: err}
		}
		tasks, err := fidelity.Flips(a, b, fidelity.FlipsOptions{Resamples: 10000, Seed: 1})
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: err}
		}
		cases = append(cases, p.CheckAnswers(tasks)...)
	}
	if p.NeedsTokens() {
		_, _, rep, _, err := tokenCompare(ctx, o.IO, o.Runtime, o.Ref, 0)
		if err != nil {
			return err
		}
		cases = append(p.CheckTokens(rep), cases...)
	}
	p.Sort(cases)
	pass := true
	for _, c := range cases {
		pass = pass && c.Pass
	}
	if o.JUnit != "" {
		x, err := fidelity.JUnit(cases)
		if err != nil {
			return err
		}
		if err := results.WriteFileAtomic(o.JUnit, x); err != nil {
			return err
		}
	}
	if o.JSON {
		if err := writeJSON(o.IO, fidelityGateJSON{Pass: pass, Cases: cases}); err != nil {
			return err
		}
	} else {
		for _, c := range cases {
			verdict := "PASS"
			if !c.Pass {
				verdict = "FAIL"
			}
			fmt.Fprintf(o.IO.Out, "%s  %s: %s\n", verdict, c.Name, c.Detail)
		}
	}
	if !pass {
		return &ExitCodeError{Code: ExitError}
	}
	return nil
}
