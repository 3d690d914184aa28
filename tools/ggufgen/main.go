// Command ggufgen writes a random-weight qwen3-architecture GGUF model that
// llama.cpp loads, for speed and memory measurements on a real shape.
//
//	go run ./tools/ggufgen -shape pocket-0.3b -type q4_0 -o /opt/models/pocket-0.3b-q4_0.gguf
//
// -vocab FILE cuts a real byte-level BPE tokenizer from a GGUF file (e.g.
// llama.cpp's models/ggml-vocab-qwen2.gguf, which holds Qwen's tokenizer)
// to the shape's vocabulary size, as MNN-Pocket-0.3B cut Qwen3's; without
// it the tokenizer is synthetic (byte pairs; see internal/randmodel). The
// dimension flags override the named shape.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/internal/randmodel"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "ggufgen:", err)
		os.Exit(1)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("ggufgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var names []string
	for n := range randmodel.Shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	shapeName := fs.String("shape", "pocket-0.3b", "named shape: "+strings.Join(names, ", "))
	typeName := fs.String("type", "q4_0", "matrix type: f32, f16, q8_0 or q4_0")
	vocabFile := fs.String("vocab", "", "cut the tokenizer from this byte-level BPE GGUF (default: synthetic)")
	seed := fs.Uint64("seed", 1, "random seed")
	out := fs.String("o", "", "output file (required)")
	name := fs.String("name", "", "general.name (default: the shape and type)")
	layers := fs.Int("layers", 0, "override: number of layers")
	hidden := fs.Int("hidden", 0, "override: hidden size")
	ffn := fs.Int("ffn", 0, "override: feed-forward size")
	heads := fs.Int("heads", 0, "override: query heads")
	kvHeads := fs.Int("kv-heads", 0, "override: key/value heads")
	headDim := fs.Int("head-dim", 0, "override: head dimension")
	vocabSize := fs.Int("vocab-size", 0, "override: vocabulary size")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if *out == "" {
		return fmt.Errorf("-o is required")
	}
	shape, ok := randmodel.Shapes[*shapeName]
	if !ok {
		return fmt.Errorf("-shape %q: want one of %s", *shapeName, strings.Join(names, ", "))
	}
	for _, o := range []struct {
		v   int
		dst *int
	}{{*layers, &shape.Layers}, {*hidden, &shape.Hidden}, {*ffn, &shape.FFN}, {*heads, &shape.Heads},
		{*kvHeads, &shape.KVHeads}, {*headDim, &shape.HeadDim}, {*vocabSize, &shape.Vocab}} {
		if o.v != 0 {
			*o.dst = o.v
		}
	}
	typ, err := gguf.ParseTensorType(*typeName)
	if err != nil {
		return fmt.Errorf("-type: %w", err)
	}
	var vocab *randmodel.Vocab
	if *vocabFile != "" {
		h, err := gguf.ReadFile(*vocabFile)
		if err != nil {
			return err
		}
		if vocab, err = randmodel.CutVocab(h, shape.Vocab); err != nil {
			return fmt.Errorf("-vocab %s: %w", *vocabFile, err)
		}
	} else if vocab, err = randmodel.SyntheticBPE(shape.Vocab); err != nil {
		return err
	}
	if *name == "" {
		*name = fmt.Sprintf("random %s %s", *shapeName, typ)
	}
	tmp, err := os.CreateTemp(filepath.Dir(*out), ".ggufgen-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := randmodel.Write(tmp, shape, randmodel.Options{Name: *name, Type: typ, Vocab: vocab, Seed: *seed}); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil { // CreateTemp makes it 0600
		return err
	}
	if err := os.Rename(tmp.Name(), *out); err != nil {
		return err
	}
	st, err := os.Stat(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "wrote %s: %s, %d parameters, %s, %d tokens, %.1f MB\n", *out, *shapeName, shape.Params(), typ, shape.Vocab, float64(st.Size())/1e6)
	return nil
}
