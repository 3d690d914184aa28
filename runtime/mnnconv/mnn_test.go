//go:build mnn

package mnnconv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
	"github.com/pocketeval/pocketeval/runtime/mnn"
)

// mnnTool is the mnnconvert executable (scripts/ci-mnn-convert.sh builds
// it and sets POCKETEVAL_MNNCONVERT).
func mnnTool(t *testing.T) string {
	t.Helper()
	p := os.Getenv("POCKETEVAL_MNNCONVERT")
	if p == "" {
		t.Skip("POCKETEVAL_MNNCONVERT is not set (build tools/mnnconvert; scripts/ci-mnn-convert.sh does)")
	}
	return p
}

// The converted packages compute on MNN what the reference forward pass
// computes from the GGUF file: llama (interleaved rotary pairs, GQA,
// untied output), qwen2 (biases, F16 and Q8_0 tensors), qwen3 (q/k norms,
// tied output, BF16 tensors), at float32 and at MNN's 8- and 4-bit
// weights (against the reference with the same rounding).
func TestConvertedMatchesReference(t *testing.T) {
	tool := mnnTool(t)
	dir := t.TempDir()
	paths := []string{sharedModel(t, "stories260K.gguf")}
	for _, s := range synths {
		paths = append(paths, s.write(t, dir))
	}
	for _, p := range paths {
		for _, q := range []struct {
			bits int
			asym bool
		}{{0, false}, {8, false}, {4, false}, {8, true}, {4, true}} {
			bits := q.bits
			name := filepath.Base(p) + map[int]string{0: "/fp32", 8: "/int8", 4: "/int4"}[bits] + map[bool]string{true: "-asym"}[q.asym]
			t.Run(name, func(t *testing.T) {
				m, err := Open(p)
				if err != nil {
					t.Fatal(err)
				}
				out := filepath.Join(dir, strings.ReplaceAll(name, "/", "-"))
				if _, err := Convert(context.Background(), m, Options{Out: out, Bits: bits, Block: 32, Asym: q.asym, Tool: tool, EmbedParts: 3}); err != nil {
					t.Fatal(err)
				}
				ref, err := NewReference(m)
				if err != nil {
					t.Fatal(err)
				}
				if bits > 0 {
					ref.Quantize(bits, 32, q.asym)
				}
				toks := testTokens(m.Vocab, 48)
				want, err := ref.Logits(toks)
				if err != nil {
					t.Fatal(err)
				}
				// memory "normal": MNN's "low" also quantizes the
				// activations of quantized layers to 8 bits.
				rt, err := mnn.Open(context.Background(), out, mnn.Options{Threads: 1, Precision: "high", Memory: "normal"})
				if err != nil {
					t.Fatal(err)
				}
				defer rt.Close()
				t32 := make([]int32, len(toks))
				for i, x := range toks {
					t32[i] = int32(x)
				}
				var got [][]float32
				if err := rt.Logits(context.Background(), t32, 0, func(pos int, l []float32) error {
					got = append(got, append([]float32(nil), l...))
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				checkClose(t, "mnn "+name, got, want, 2e-3, 1)
			})
		}
	}
}

// The converted packages' vocabularies are llama.cpp's: the same hash over
// every id's bytes (what fidelity compare requires) and the same ids for
// ASCII text, SentencePiece (stories260K, the synthetic llama) and
// byte-level BPE (the synthetic qwen2 and qwen3) alike. (llama.cpp runs in a
// child process: MNN was seen to crash in a process that had loaded and
// closed llama.cpp's libraries.)
func TestConvertedVocabularyMatchesLlamaCpp(t *testing.T) {
	tool := mnnTool(t)
	if _, err := llamacpp.LibDir(""); err != nil {
		t.Skipf("llama.cpp libraries not installed (run scripts/setup-llamacpp.sh): %v", err)
	}
	dir := t.TempDir()
	paths := []string{sharedModel(t, "stories260K.gguf")}
	for _, s := range synths {
		paths = append(paths, s.write(t, dir))
	}
	texts := []string{"Hello world", "Once upon a time, there was a little dog.", " two  spaces\nand a line", "x=1+2; y = 3*4?"}
	type seen struct {
		Vocab runtime.VocabInfo
		IDs   []string
	}
	want := map[string]seen{}
	for _, p := range paths {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLlamaVocabHelper$")
		tj, _ := json.Marshal(texts)
		cmd.Env = append(os.Environ(), "MNNCONV_LLAMA_VOCAB="+p, "MNNCONV_TEXTS="+string(tj))
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("llama.cpp on %s: %v\n%s", p, err, out)
		}
		i := bytes.Index(out, []byte("VOCAB "))
		if i < 0 {
			t.Fatalf("llama.cpp on %s: no answer\n%s", p, out)
		}
		line, _, _ := bytes.Cut(out[i+6:], []byte("\n"))
		var s seen
		if err := json.Unmarshal(line, &s); err != nil {
			t.Fatal(err)
		}
		want[p] = s
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			m, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, filepath.Base(p)+"-vocab")
			if _, err := Convert(context.Background(), m, Options{Out: out, Tool: tool}); err != nil {
				t.Fatal(err)
			}
			rm, err := mnn.Open(context.Background(), out, mnn.Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer rm.Close()
			vm, vl := rm.Vocab(), want[p].Vocab
			if vm.Size != vl.Size || vm.SHA256 != vl.SHA256 || vm.AddBOS != vl.AddBOS || (vl.AddBOS && vm.BOS != vl.BOS) || vm.EOS != vl.EOS {
				t.Errorf("vocabulary: mnn %+v, llama.cpp %+v", vm, vl)
			}
			for i, text := range texts {
				ids, err := rm.Tokenize(text, true)
				if err != nil {
					t.Fatal(err)
				}
				if got := fmt.Sprint(ids); got != want[p].IDs[i] {
					t.Errorf("%q: mnn %v, llama.cpp %v", text, got, want[p].IDs[i])
				}
			}
		})
	}
}

// TestLlamaVocabHelper is TestConvertedVocabularyMatchesLlamaCpp's child:
// llama.cpp's vocabulary and token ids for one file.
func TestLlamaVocabHelper(t *testing.T) {
	p := os.Getenv("MNNCONV_LLAMA_VOCAB")
	if p == "" {
		t.Skip("run by TestConvertedVocabularyMatchesLlamaCpp")
	}
	rl, err := llamacpp.Open(context.Background(), llamacpp.Options{Model: p, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	s := struct {
		Vocab runtime.VocabInfo
		IDs   []string
	}{Vocab: rl.Vocab()}
	var texts []string
	if err := json.Unmarshal([]byte(os.Getenv("MNNCONV_TEXTS")), &texts); err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		ids, err := rl.Tokenize(text, true)
		if err != nil {
			t.Fatal(err)
		}
		s.IDs = append(s.IDs, fmt.Sprint(ids))
	}
	b, _ := json.Marshal(s)
	fmt.Printf("VOCAB %s\n", b)
}
