package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pocketeval/pocketeval/runtime/mnnconv"
)

// ModelsConvertOptions are the options of `pocketeval models convert`.
type ModelsConvertOptions struct {
	*ModelsOptions
	GGUF    string // the input file
	Out     string // --out, the package directory
	Weights string // --weights: fp32, int8 or int4
	Block   int    // --quant-block
	Tool    string // --tool (default $POCKETEVAL_MNNCONVERT, then mnnconvert on PATH)
	Threads int    // --threads, config.json's thread_num
	Embed   string // --embeddings: bf16 or fp32
	Quant   string // --quant: asym or sym
}

// NewCmdModelsConvert converts a GGUF decoder into an MNN LLM package.
func NewCmdModelsConvert(f *Factory, shared *ModelsOptions, runF func(*ModelsConvertOptions) error) *cobra.Command {
	opts := &ModelsConvertOptions{ModelsOptions: shared}
	cmd := &cobra.Command{
		Use:   "convert GGUF --out DIR",
		Short: "Convert a GGUF model (llama, qwen2, qwen3) into an MNN LLM package",
		Long: `Convert reads a GGUF decoder of the llama, qwen2 or qwen3 architecture
(F32, F16, BF16, Q8_0 or Q4_0 tensors, dequantized to float32) and writes an
MNN LLM package: llm.mnn and llm.mnn.weight built with MNN's Express API by
the mnnconvert tool (tools/mnnconvert, built against an MNN prefix), the
embeddings as bfloat16, tokenizer.txt with every id of the file's vocabulary,
llm_config.json with the file's chat template, and config.json.
--weights int8 or int4 quantizes the linear layers as MNN's llmexport does
(--quant asym: a minimum and a scale per --quant-block inputs; sym: a scale).
See docs/mnn-convert.md.`,
		Args:    cobra.ExactArgs(1),
		Example: "  $ pocketeval models convert stories260K.gguf --out stories-mnn --weights fp32",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.GGUF = args[0]
			if runF != nil {
				return runF(opts)
			}
			return modelsConvertRun(cmd, opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Out, "out", "o", "", "package directory to write (required)")
	cmd.Flags().StringVar(&opts.Weights, "weights", "fp32", "weight precision: fp32, int8 or int4")
	cmd.Flags().IntVar(&opts.Block, "quant-block", 64, "inputs per quantization scale (0: one per row)")
	cmd.Flags().StringVar(&opts.Quant, "quant", "asym", "int8/int4 rounding: asym (a minimum and a scale a block, llmexport's default) or sym (a scale alone, llmexport --sym)")
	cmd.Flags().StringVar(&opts.Tool, "tool", os.Getenv("POCKETEVAL_MNNCONVERT"), "the mnnconvert executable (default $POCKETEVAL_MNNCONVERT, then mnnconvert on PATH)")
	cmd.Flags().IntVar(&opts.Threads, "threads", 1, "thread_num written to config.json")
	cmd.Flags().StringVar(&opts.Embed, "embeddings", "bf16", "embeddings: bf16 (MNN's embeddings_bf16.bin, rounded) or fp32 (exact: three bfloat16 parts a value, summed in the graph; 3x the size)")
	return cmd
}

func modelsConvertRun(cmd *cobra.Command, opts *ModelsConvertOptions) error {
	if opts.Out == "" {
		return FlagErrorf("--out is required")
	}
	bits, ok := map[string]int{"fp32": 0, "int8": 8, "int4": 4}[opts.Weights]
	if !ok {
		return FlagErrorf("--weights %q: want fp32, int8 or int4", opts.Weights)
	}
	parts, ok := map[string]int{"bf16": 1, "fp32": 3}[opts.Embed]
	if !ok {
		return FlagErrorf("--embeddings %q: want bf16 or fp32", opts.Embed)
	}
	if opts.Quant != "asym" && opts.Quant != "sym" {
		return FlagErrorf("--quant %q: want asym or sym", opts.Quant)
	}
	if opts.Block < 0 {
		return FlagErrorf("--quant-block %d: want 0 or more", opts.Block)
	}
	tool := opts.Tool
	if tool == "" {
		p, err := exec.LookPath("mnnconvert")
		if err != nil {
			return &ExitCodeError{Code: ExitUsage, Err: errors.New("mnnconvert not found: build tools/mnnconvert (docs/mnn-convert.md) and pass --tool or set POCKETEVAL_MNNCONVERT")}
		}
		tool = p
	} else if _, err := exec.LookPath(tool); err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: fmt.Errorf("--tool: %w (build tools/mnnconvert: docs/mnn-convert.md)", err)}
	}
	m, err := mnnconv.Open(opts.GGUF)
	if err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	if _, err := m.ReadVocab(); err != nil {
		return &ExitCodeError{Code: ExitUsage, Err: err}
	}
	res, err := mnnconv.Convert(cmd.Context(), m, mnnconv.Options{Out: opts.Out, Bits: bits, Block: opts.Block, Tool: tool, Threads: opts.Threads, EmbedParts: parts, Asym: bits > 0 && opts.Quant == "asym"})
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.IO, convertJSON(res, opts))
	}
	w := opts.IO.Out
	types := res.Model.TensorTypes()
	var tl []string
	for t, n := range types {
		tl = append(tl, fmt.Sprintf("%s×%d", t, n))
	}
	sort.Strings(tl)
	fmt.Fprintf(w, "converted %s (%s, vocab %d, hidden %d, %d layers, %d/%d heads of %d, ffn %d, tensors %s) to %s with %s weights\n",
		opts.GGUF, m.Arch, m.Vocab, m.Hidden, m.Layers, m.Heads, m.KVHeads, m.HeadDim, m.FFN, strings.Join(tl, " "), opts.Out, opts.Weights)
	for _, n := range res.Notes {
		fmt.Fprintf(opts.IO.ErrOut, "note: %s\n", n)
	}
	return nil
}

type convertReport struct {
	Input       string   `json:"input"`
	Out         string   `json:"out"`
	Weights     string   `json:"weights"`
	Embeddings  string   `json:"embeddings"`
	Quant       string   `json:"quant,omitempty"`
	Arch        string   `json:"arch"`
	Vocab       int      `json:"vocab"`
	Hidden      int      `json:"hidden"`
	Layers      int      `json:"layers"`
	Heads       int      `json:"heads"`
	KVHeads     int      `json:"kv_heads"`
	HeadDim     int      `json:"head_dim"`
	FFN         int      `json:"ffn"`
	Eps         float64  `json:"rms_eps"`
	Theta       float64  `json:"rope_theta"`
	Interleaved bool     `json:"rope_interleaved"`
	QKNorm      bool     `json:"qk_norm"`
	Tied        bool     `json:"tied_output"`
	Template    bool     `json:"chat_template"`
	Files       []string `json:"files"`
	Notes       []string `json:"notes"`
}

func convertJSON(res *mnnconv.Result, opts *ModelsConvertOptions) convertReport {
	m := res.Model
	notes := res.Notes
	if notes == nil {
		notes = []string{}
	}
	return convertReport{Input: opts.GGUF, Out: opts.Out, Weights: opts.Weights, Embeddings: opts.Embed, Quant: quantName(opts), Arch: m.Arch, Vocab: m.Vocab,
		Hidden: m.Hidden, Layers: m.Layers, Heads: m.Heads, KVHeads: m.KVHeads, HeadDim: m.HeadDim, FFN: m.FFN,
		Eps: m.Eps, Theta: m.Theta, Interleaved: m.Interleaved, QKNorm: m.QKNorm, Tied: m.Tied,
		Template: res.Vocab.Template != "", Files: res.Files, Notes: notes}
}

// quantName is --quant when the weights are quantized.
func quantName(o *ModelsConvertOptions) string {
	if o.Weights == "fp32" {
		return ""
	}
	return o.Quant
}
