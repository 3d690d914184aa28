package leaderboard

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/results"
)

// Quant is a model's weight format ("Q4_1", "F16", "int4") and where it
// was read.
type Quant struct {
	Name string
	// From is "gguf general.file_type", "gguf tensor types" or "file
	// name"; "" when Name is unknown.
	From string
}

// QuantOf returns the quantisation of a run's model: from the GGUF file's
// header when the file is still at the manifest's path (general.file_type,
// else the type holding most weights), else from a quantisation tag in the
// model's file or directory name (Q4_K_M, q8_0, int4, bf16…). Runtimes
// without a model file (replay, openai) have none.
//
// The file is read as it is now: QuantOf does not re-hash it against the
// manifest's sha256 (that would read every model whole).
func QuantOf(m *results.Manifest) Quant {
	p := m.Config.Model.Path
	switch m.Config.Runtime {
	case "replay", "openai", "":
		return Quant{}
	}
	if strings.EqualFold(filepath.Ext(p), ".gguf") {
		if q, ok := ggufQuant(p); ok {
			return q
		}
	}
	for _, name := range []string{filepath.Base(p), filepath.Base(filepath.Dir(p))} {
		if tag := quantTag.FindString(name); tag != "" {
			return Quant{Name: normaliseTag(tag), From: "file name"}
		}
	}
	return Quant{}
}

// quantTag finds a quantisation tag in a file name, delimited by
// separators or the ends.
var quantTag = regexp.MustCompile(`(?i)(?:^|[-_.])(?:i?q[1-8]_[0-9k](?:_[a-z0-9]+)?|tq[12]_0|bf16|fp16|fp32|f16|f32|int[248]|w[248]a(?:8|16))(?:$|[-_.])`)

func normaliseTag(t string) string {
	t = strings.Trim(t, "-_.")
	switch l := strings.ToLower(t); {
	case strings.HasPrefix(l, "int"), strings.HasPrefix(l, "w"):
		return l
	case l == "fp16":
		return "F16"
	case l == "fp32":
		return "F32"
	}
	return strings.ToUpper(t)
}

func ggufQuant(path string) (Quant, bool) {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return Quant{}, false
	}
	h, err := gguf.ReadFile(path)
	if err != nil {
		return Quant{}, false
	}
	if v, ok := h.Get("general.file_type"); ok {
		if n, ok := asUint(v); ok {
			if name, ok := llamaFtypes[n]; ok {
				return Quant{Name: name, From: "gguf general.file_type"}, true
			}
			return Quant{Name: fmt.Sprintf("ftype %d", n), From: "gguf general.file_type"}, true
		}
	}
	// No file type: the type of most weights in matrices (ftypes name
	// the type of every tensor but the 1-D ones).
	elems := map[gguf.TensorType]uint64{}
	var best gguf.TensorType
	for _, t := range h.Tensors {
		if len(t.Shape) < 2 {
			continue
		}
		n := uint64(1)
		for _, d := range t.Shape {
			n *= d
		}
		elems[t.Type] += n
		if elems[t.Type] > elems[best] {
			best = t.Type
		}
	}
	if len(elems) == 0 {
		return Quant{}, false
	}
	name, ok := ggmlTypes[uint32(best)]
	if !ok {
		name = fmt.Sprintf("ggml_type %d", best)
	}
	return Quant{Name: name, From: "gguf tensor types"}, true
}

func asUint(v any) (uint32, bool) {
	switch x := v.(type) {
	case uint32:
		return x, true
	case int32:
		return uint32(x), x >= 0
	case uint64:
		return uint32(x), x < 1<<32
	case int64:
		return uint32(x), x >= 0 && x < 1<<32
	case uint16:
		return uint32(x), true
	case uint8:
		return uint32(x), true
	}
	return 0, false
}

// llamaFtypes names enum llama_ftype (llama.h), as llama-quantize's type
// arguments spell them.
var llamaFtypes = map[uint32]string{
	0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1",
	10: "Q2_K", 11: "Q3_K_S", 12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M",
	16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K", 19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S",
	22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL", 26: "IQ3_S", 27: "IQ3_M",
	28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0",
	37: "TQ2_0", 38: "MXFP4_MOE", 39: "NVFP4", 40: "Q1_0", 41: "Q2_0",
}

// ggmlTypes names enum ggml_type (ggml.h).
var ggmlTypes = map[uint32]string{
	0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 6: "Q5_0", 7: "Q5_1", 8: "Q8_0", 9: "Q8_1",
	10: "Q2_K", 11: "Q3_K", 12: "Q4_K", 13: "Q5_K", 14: "Q6_K", 15: "Q8_K",
	16: "IQ2_XXS", 17: "IQ2_XS", 18: "IQ3_XXS", 19: "IQ1_S", 20: "IQ4_NL", 21: "IQ3_S",
	22: "IQ2_S", 23: "IQ4_XS", 24: "I8", 25: "I16", 26: "I32", 27: "I64", 28: "F64",
	29: "IQ1_M", 30: "BF16", 34: "TQ1_0", 35: "TQ2_0", 39: "MXFP4", 40: "NVFP4",
	41: "Q1_0", 42: "Q2_0",
}
