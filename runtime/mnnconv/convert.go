package mnnconv

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// Options control a conversion.
type Options struct {
	// Out is the package directory (created; existing package files in it
	// are replaced).
	Out string
	// Bits is the weight precision of the linear layers: 0 (float32 in
	// llm.mnn), 8 or 4 (MNN's symmetric block quantization in
	// llm.mnn.weight).
	Bits int
	// Asym quantizes with a minimum and a scale a block (llmexport's
	// default) rather than a scale alone (--sym).
	Asym bool
	// Block is the quantization block (inputs per scale); 0 means one
	// block per row. MNN's llmexport uses 64 for 4 bits.
	Block int
	// Tool is the mnnconvert executable (tools/mnnconvert).
	Tool string
	// Threads is config.json's thread_num (default 1).
	Threads int
	// EmbedParts is how many bfloat16 parts each embedding row holds: 1 is
	// MNN's usual embeddings_bf16.bin (the float32 values rounded); 3 makes
	// the embeddings exact (their float32 sum, taken by the graph, is the
	// float32 value) at three times the size. MNN's engine reads no float32
	// embedding file.
	EmbedParts int
}

// Result says what a conversion wrote.
type Result struct {
	Model *Model
	Vocab *Vocab
	Notes []string
	Files []string
}

// Convert writes an MNN LLM package from the GGUF model m.
func Convert(ctx context.Context, m *Model, o Options) (*Result, error) {
	if o.Bits != 0 && o.Bits != 4 && o.Bits != 8 {
		return nil, fmt.Errorf("weight bits %d: want 0 (float32), 8 or 4", o.Bits)
	}
	if o.Threads <= 0 {
		o.Threads = 1
	}
	if o.EmbedParts == 0 {
		o.EmbedParts = 1
	}
	if o.EmbedParts < 1 || o.EmbedParts > 3 {
		return nil, fmt.Errorf("embedding parts %d: want 1, 2 or 3", o.EmbedParts)
	}
	v, err := m.ReadVocab()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "mnnconvert-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	spec := filepath.Join(tmp, "spec.txt")
	weights := filepath.Join(tmp, "weights.f32")
	if err := m.writeWeights(spec, weights, o); err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, o.Tool, spec, weights, o.Out)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", o.Tool, err, bytes.TrimSpace(out.Bytes()))
	}
	res := &Result{Model: m, Vocab: v, Files: []string{"llm.mnn", "llm.mnn.weight"}}
	if err := m.writeEmbeddings(filepath.Join(o.Out, "embeddings_bf16.bin"), o.EmbedParts); err != nil {
		return nil, err
	}
	var tok bytes.Buffer
	notes, err := v.WriteTokenizer(&tok)
	if err != nil {
		return nil, fmt.Errorf("%s: tokenizer: %w", m.Path, err)
	}
	res.Notes = append(res.Notes, notes...)
	if err := os.WriteFile(filepath.Join(o.Out, "tokenizer.txt"), tok.Bytes(), 0o644); err != nil {
		return nil, err
	}
	llmCfg := map[string]any{
		"model_type": m.Arch, "hidden_size": m.Hidden * o.EmbedParts, "layer_nums": m.Layers,
		"attention_mask": "float", "attention_type": "full", "is_mrope": false,
	}
	tmpl := v.Template
	if tmpl == "" {
		// What llama-server (and pocketeval's llamacpp runtime) falls back
		// to, so both engines render a chat the same way.
		tmpl = chattemplate.ChatML
		res.Notes = append(res.Notes, "the file has no chat template (tokenizer.chat_template): wrote ChatML, llama.cpp's fallback")
	}
	j := map[string]any{"chat_template": tmpl}
	if v.BOS >= 0 {
		j["bos"] = v.Tokens[v.BOS]
	}
	if v.EOS >= 0 {
		j["eos"] = v.Tokens[v.EOS]
	}
	llmCfg["jinja"] = j
	cfg := map[string]any{
		"llm_model": "llm.mnn", "llm_weight": "llm.mnn.weight", "tokenizer_file": "tokenizer.txt",
		"embedding_file": "embeddings_bf16.bin",
		"backend_type":   "cpu", "thread_num": o.Threads, "precision": "high", "memory": "low",
		"sampler_type": "greedy", "max_new_tokens": 256,
	}
	for name, val := range map[string]any{"llm_config.json": llmCfg, "config.json": cfg} {
		b, err := json.MarshalIndent(val, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(o.Out, name), append(b, '\n'), 0o644); err != nil {
			return nil, err
		}
	}
	res.Files = append(res.Files, "embeddings_bf16.bin", "tokenizer.txt", "llm_config.json", "config.json")
	return res, nil
}

// writeWeights writes the tool's spec and the float32 weights: matrices as
// [out][in], Q and K rows de-interleaved for interleaved-rotary files, the
// output matrix (token_embd when tied).
func (m *Model) writeWeights(specPath, weightsPath string, o Options) error {
	wf, err := os.Create(weightsPath)
	if err != nil {
		return err
	}
	defer wf.Close()
	bw := bufio.NewWriterSize(wf, 1<<20)
	var spec bytes.Buffer
	for _, kv := range []struct {
		k string
		v string
	}{
		{"vocab", strconv.Itoa(m.Vocab)}, {"hidden", strconv.Itoa(m.Hidden)}, {"layers", strconv.Itoa(m.Layers)},
		{"heads", strconv.Itoa(m.Heads)}, {"kv_heads", strconv.Itoa(m.KVHeads)}, {"head_dim", strconv.Itoa(m.HeadDim)},
		{"ffn", strconv.Itoa(m.FFN)}, {"eps", strconv.FormatFloat(m.Eps, 'g', -1, 64)},
		{"theta", strconv.FormatFloat(m.Theta, 'g', -1, 64)}, {"bits", strconv.Itoa(o.Bits)},
		{"block", strconv.Itoa(o.Block)}, {"embed_parts", strconv.Itoa(max(o.EmbedParts, 1))},
		{"asym", map[bool]string{true: "1", false: "0"}[o.Asym]}, {"qk_norm", map[bool]string{true: "1", false: "0"}[m.QKNorm]},
	} {
		fmt.Fprintf(&spec, "%s %s\n", kv.k, kv.v)
	}
	var off int64
	put := func(name, src string, rows, cols int, fix func([]float32) []float32) error {
		data, ok, err := m.Tensor(src)
		if err != nil {
			return err
		}
		if !ok {
			return nil // optional (biases)
		}
		if len(data) != rows*cols {
			return fmt.Errorf("%s: tensor %s has %d values, want %d×%d", m.Path, src, len(data), rows, cols)
		}
		if fix != nil {
			data = fix(data)
		}
		if err := writeFloats(bw, data); err != nil {
			return err
		}
		fmt.Fprintf(&spec, "tensor %s %d %d %d\n", name, rows, cols, off)
		off += int64(len(data))
		return nil
	}
	H, D := m.Hidden, m.HeadDim
	qfix := func(heads int) func([]float32) []float32 {
		if !m.Interleaved {
			return nil
		}
		return func(w []float32) []float32 { return deinterleave(w, heads, D, len(w)/(heads*D)) }
	}
	for l := range m.Layers {
		g := fmt.Sprintf("blk.%d.", l)
		steps := []struct {
			name       string
			rows, cols int
			fix        func([]float32) []float32
		}{
			{"attn_norm", 1, H, nil},
			{"attn_q", m.Heads * D, H, qfix(m.Heads)},
			{"attn_k", m.KVHeads * D, H, qfix(m.KVHeads)},
			{"attn_v", m.KVHeads * D, H, nil},
			{"attn_q.bias", 1, m.Heads * D, qfix(m.Heads)},
			{"attn_k.bias", 1, m.KVHeads * D, qfix(m.KVHeads)},
			{"attn_v.bias", 1, m.KVHeads * D, nil},
			{"attn_output", H, m.Heads * D, nil},
			{"ffn_norm", 1, H, nil},
			{"ffn_gate", m.FFN, H, nil},
			{"ffn_up", m.FFN, H, nil},
			{"ffn_down", H, m.FFN, nil},
		}
		if m.QKNorm {
			steps = append(steps, struct {
				name       string
				rows, cols int
				fix        func([]float32) []float32
			}{"attn_q_norm", 1, D, nil}, struct {
				name       string
				rows, cols int
				fix        func([]float32) []float32
			}{"attn_k_norm", 1, D, nil})
		}
		for _, s := range steps {
			src := g + s.name
			if !bytes.HasSuffix([]byte(s.name), []byte(".bias")) {
				src += ".weight"
			}
			if err := put(g+s.name, src, s.rows, s.cols, s.fix); err != nil {
				return err
			}
		}
	}
	if err := put("output_norm", "output_norm.weight", 1, H, nil); err != nil {
		return err
	}
	outSrc := "output.weight"
	if m.Tied {
		outSrc = "token_embd.weight"
	}
	if err := put("output", outSrc, m.Vocab, H, nil); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := wf.Close(); err != nil {
		return err
	}
	return os.WriteFile(specPath, spec.Bytes(), 0o644)
}

// writeEmbeddings writes token_embd as [vocab][parts·hidden] bfloat16
// (what MNN's engine reads; it has no float32 form): part 0 is each value
// rounded to the nearest even, each further part the rounded remainder.
func (m *Model) writeEmbeddings(path string, parts int) error {
	data, _, err := m.Tensor("token_embd.weight")
	if err != nil {
		return err
	}
	H := m.Hidden
	buf := make([]byte, 0, 2*len(data)*parts)
	rest := make([]float32, H)
	for r := 0; r < len(data)/H; r++ {
		copy(rest, data[r*H:(r+1)*H])
		for range parts {
			for i, x := range rest {
				b := gguf.BF16Bits(x)
				buf = binary.LittleEndian.AppendUint16(buf, b)
				rest[i] = x - math.Float32frombits(uint32(b)<<16)
			}
		}
	}
	return os.WriteFile(path, buf, 0o644)
}
