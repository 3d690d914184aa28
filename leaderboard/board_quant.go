package leaderboard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/internal/lazyre"
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
var quantTag = lazyre.New(`(?i)(?:^|[-_.])(?:i?q[1-8]_[0-9k](?:_[a-z0-9]+)?|tq[12]_0|bf16|fp16|fp32|f16|f32|int[248]|w[248]a(?:8|16))(?:$|[-_.])`)

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

// QuantRelative ties a quantised row to its family's reference: the run of
// the same model (the name without its quantisation tag, on the same
// runtime) in the widest weight format on the board.
type QuantRelative struct {
	// Reference is the reference row's Label and Quant its format.
	Reference string
	Quant     string
	// Pct is 100·Mean/reference Mean (MLPerf Client's "% of native"),
	// nil unless both suite averages are defined and the reference's is
	// positive.
	Pct *float64
}

// quantBits is a weight format's bits per weight as its name spells it
// (F32 32, BF16 16, Q4_K_M 4, int8 8, w4a16 4); 0 when unknown.
func quantBits(name string) int {
	l := strings.ToLower(name)
	switch {
	case l == "f32":
		return 32
	case l == "f16" || l == "bf16":
		return 16
	}
	for _, p := range []string{"int", "iq", "tq", "q", "w"} {
		if strings.HasPrefix(l, p) {
			l = l[len(p):]
			break
		}
	}
	if l != "" && l[0] >= '1' && l[0] <= '8' {
		return int(l[0] - '0')
	}
	return 0
}

// quantFamily is the key runs of one model in different weight formats
// share: the runtime and the model's name without its quantisation tag
// and extension; "" when the row has no known format.
func quantFamily(r *BoardRow) string {
	if r.Reference || r.Quant.Name == "" || quantBits(r.Quant.Name) == 0 {
		return ""
	}
	name := r.Name
	if r.Run != nil {
		name = filepath.Base(r.Run.Manifest.Config.Model.Path)
		if strings.EqualFold(name, "config.json") {
			name = filepath.Base(filepath.Dir(r.Run.Manifest.Config.Model.Path))
		}
	}
	name = strings.TrimSuffix(name, filepath.Ext(name))
	stem := quantTag.ReplaceAllString(name, "-")
	return r.Runtime + "\x00" + strings.ToLower(strings.Trim(stem, "-_."))
}

// relateQuants sets QuantOf on every row of a family of two or more whose
// format is narrower than the family's widest (the reference; rows of the
// same width as it are not related to it). Rows are scanned in board
// order, so among equally wide runs the first is the reference.
func relateQuants(rows []BoardRow) {
	ref := map[string]int{}
	fam := make([]string, len(rows))
	for i := range rows {
		k := quantFamily(&rows[i])
		fam[i] = k
		if k == "" {
			continue
		}
		j, ok := ref[k]
		if !ok || quantBits(rows[i].Quant.Name) > quantBits(rows[j].Quant.Name) {
			ref[k] = i
		}
	}
	for i := range rows {
		if fam[i] == "" {
			continue
		}
		j := ref[fam[i]]
		r, p := &rows[i], &rows[j]
		if quantBits(r.Quant.Name) >= quantBits(p.Quant.Name) {
			continue
		}
		rel := &QuantRelative{Reference: p.Label, Quant: p.Quant.Name}
		if r.Mean != nil && p.Mean != nil && *p.Mean > 0 {
			pct := 100 * *r.Mean / *p.Mean
			rel.Pct = &pct
		}
		r.QuantOf = rel
	}
}

// String is "98.1% of F32" (or "of F32" without a relative score).
func (q *QuantRelative) String() string {
	if q.Pct == nil {
		return fmt.Sprintf("of %s", q.Quant)
	}
	return fmt.Sprintf("%.1f%% of %s", *q.Pct, q.Quant)
}
