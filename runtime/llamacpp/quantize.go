//go:build !nollamacpp

package llamacpp

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hybridgroup/yzma/pkg/llama"
)

// quantTypes are the llama_ftype values Quantize accepts, by the names
// llama-quantize uses.
var quantTypes = map[string]llama.Ftype{
	"F32":  llama.FtypeAllF32,
	"F16":  llama.FtypeMostlyF16,
	"Q8_0": llama.FtypeMostlyQ8_0,
	"Q5_0": llama.FtypeMostlyQ5_0,
	"Q5_1": llama.FtypeMostlyQ5_1,
	"Q4_0": llama.FtypeMostlyQ4_0,
	"Q4_1": llama.FtypeMostlyQ4_1,
}

// QuantTypes lists the type names Quantize accepts, sorted.
func QuantTypes() []string {
	names := make([]string, 0, len(quantTypes))
	for n := range quantTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Quantize writes a copy of the GGUF model in to out with its weights in
// type typ ("Q8_0", "Q4_0", ...), through libllama's own
// llama_model_quantize with its default parameters (as llama-quantize
// without options), on threads threads. libDir is as for Options.LibDir.
func Quantize(libDir, in, out, typ string, threads int) error {
	ft, ok := quantTypes[strings.ToUpper(typ)]
	if !ok {
		return fmt.Errorf("quantize: unknown type %q (want one of %s)", typ, strings.Join(QuantTypes(), ", "))
	}
	if in == "" || out == "" {
		return errors.New("quantize: input and output files are both needed")
	}
	if err := checkGGUF(in); err != nil {
		return fmt.Errorf("quantize: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("quantize: %w", err)
	}
	dir, err := LibDir(libDir)
	if err != nil {
		return fmt.Errorf("quantize: %w", err)
	}
	if _, err := loadEngine(dir); err != nil {
		return fmt.Errorf("quantize: %w", err)
	}
	p := llama.ModelQuantizeDefaultParams()
	p.Ftype = ft
	p.NThread = int32(max(threads, 1))
	mark := engine.logs.mark()
	if rc := llama.ModelQuantize(in, out, &p); rc != 0 {
		os.Remove(out)
		return fmt.Errorf("quantize %s to %s: llama_model_quantize returned %d (%s)", in, typ, rc, engine.logs.since(mark))
	}
	if _, err := os.Stat(out); err != nil {
		return fmt.Errorf("quantize %s to %s: no output: %w", in, typ, err)
	}
	return nil
}
