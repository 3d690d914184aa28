package drivers

import (
	"fmt"
	"os"

	"github.com/pocketeval/pocketeval/internal/gguf"
	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// ggufShape is what a GGUF file's metadata says about the memory its
// contexts take.
type ggufShape struct {
	trainedContext int   // <arch>.context_length; 0 unknown
	kvBytesPerTok  int64 // f16 keys and values of one token over all layers; 0 unknown
}

func readGGUFShape(path string) (ggufShape, error) {
	h, err := gguf.ReadFile(path)
	if err != nil {
		return ggufShape{}, err
	}
	arch, _ := h.Get("general.architecture")
	a, _ := arch.(string)
	num := func(key string) int64 {
		v, ok := h.Get(a + "." + key)
		if !ok {
			return 0
		}
		switch x := v.(type) {
		case uint8:
			return int64(x)
		case uint16:
			return int64(x)
		case uint32:
			return int64(x)
		case uint64:
			return int64(min(x, 1<<62))
		case int8:
			return int64(x)
		case int16:
			return int64(x)
		case int32:
			return int64(x)
		case int64:
			return x
		}
		return 0
	}
	s := ggufShape{trainedContext: int(num("context_length"))}
	layers, embd, heads := num("block_count"), num("embedding_length"), num("attention.head_count")
	kvHeads := num("attention.head_count_kv")
	if kvHeads == 0 {
		kvHeads = heads
	}
	if layers > 0 && embd > 0 && heads > 0 {
		kLen, vLen := num("attention.key_length"), num("attention.value_length")
		if kLen == 0 {
			kLen = embd / heads
		}
		if vLen == 0 {
			vLen = embd / heads
		}
		s.kvBytesPerTok = layers * (kLen + vLen) * kvHeads * 2 // f16, llama.cpp's default cache type
	}
	return s, nil
}

// checkGGUFLimits refuses, before llama.cpp loads anything, a context
// longer than the model was trained on and contexts whose key-value
// caches alone (with the weights) exceed the available memory. A file
// whose header cannot be read is left for llama.cpp to report.
func checkGGUFLimits(c Common, ctxSize int) error {
	if c.IgnoreLimits {
		return nil
	}
	shape, err := readGGUFShape(c.Model)
	if err != nil {
		return nil
	}
	if t := shape.trainedContext; t > 0 && ctxSize > t {
		return &LimitError{Flag: "--ctx-size", Reason: fmt.Sprintf("%d tokens, but the model was trained on contexts of %d", ctxSize, t)}
	}
	if ctxSize == 0 {
		ctxSize = llamacpp.DefaultContextSize
		if t := shape.trainedContext; t > 0 && t < ctxSize {
			ctxSize = t
		}
	}
	avail := c.Machine.MemAvailable
	if avail <= 0 || shape.kvBytesPerTok <= 0 {
		return nil
	}
	var weights int64
	if st, err := os.Stat(c.Model); err == nil {
		weights = st.Size()
	}
	workers := int64(max(c.Workers, 1))
	perCtx := int64(ctxSize) * shape.kvBytesPerTok
	if need := weights + workers*perCtx; workers > avail/max(perCtx, 1) || need > avail {
		return &LimitError{Flag: "--concurrency/--parallel", Reason: fmt.Sprintf("%d engine contexts of %d tokens need at least %s for their key-value caches plus %s of weights, but %s of memory is available (fewer contexts, or a smaller --ctx-size, fit)",
			workers, ctxSize, bytesText(float64(workers)*float64(perCtx)), bytesText(float64(weights)), bytesText(float64(avail)))}
	}
	return nil
}

func bytesText(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", b/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", b/(1<<10))
}
