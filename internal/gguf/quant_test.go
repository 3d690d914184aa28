package gguf

import (
	"bytes"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/pocketeval/pocketeval/runtime/llamacpp"
)

// ggml is the reference: ggml's own conversion and quantisers, called in
// the installed libggml-base.so.
type ggml struct {
	fp32ToFP16 func(float32) uint16
	fp16ToFP32 func(uint16) float32
	// quantizeChunk is ggml_quantize_chunk(type, src, dst, start, nrows,
	// n_per_row, imatrix); without an importance matrix it runs the
	// reference quantisers quantize_row_q8_0_ref and quantize_row_q4_0_ref.
	quantizeChunk func(typ uint32, src *float32, dst *byte, start, nrows, nPerRow int64, imatrix *float32) uintptr
}

func loadGGML(t *testing.T) *ggml {
	t.Helper()
	dir, err := llamacpp.LibDir("")
	if err != nil {
		t.Skipf("llama.cpp libraries not installed (run scripts/setup-llamacpp.sh): %v", err)
	}
	lib, err := purego.Dlopen(filepath.Join(dir, "libggml-base.so"), purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		t.Fatalf("dlopen libggml-base.so: %v", err)
	}
	var g ggml
	purego.RegisterLibFunc(&g.fp32ToFP16, lib, "ggml_fp32_to_fp16")
	purego.RegisterLibFunc(&g.fp16ToFP32, lib, "ggml_fp16_to_fp32")
	purego.RegisterLibFunc(&g.quantizeChunk, lib, "ggml_quantize_chunk")
	return &g
}

// hardValues are floats around the edges of half precision: zeros,
// subnormals, rounding ties, overflow, infinities.
func hardValues() []float32 {
	vs := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, 65504, 65519.99, 65520, 1e9, -1e9,
		float32(math.Inf(1)), float32(math.Inf(-1)), 6.1035156e-05, 5.9604645e-08, 2.9802322e-08,
		2.9802326e-08, 1e-10, 1.00048828125, 1.00146484375, 3.0517578e-05, 1.0009765625}
	for e := -30; e <= 17; e++ {
		for _, m := range []float64{1, 1.5, 1.000244140625, 1.000732421875, 1.999} {
			v := float32(math.Ldexp(m, e))
			vs = append(vs, v, -v)
		}
	}
	return vs
}

func TestFP16MatchesGGML(t *testing.T) {
	g := loadGGML(t)
	check := func(f float32) {
		t.Helper()
		if got, want := FP16(f), g.fp32ToFP16(f); got != want {
			t.Errorf("FP16(%g = %#08x) = %#04x, ggml %#04x", f, math.Float32bits(f), got, want)
		}
	}
	for _, v := range hardValues() {
		check(v)
	}
	check(float32(math.NaN()))
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		check(math.Float32frombits(rng.Uint32()))
	}
	// Every half converts back exactly, as ggml converts it.
	for h := range 1 << 16 {
		got, want := FP32(uint16(h)), g.fp16ToFP32(uint16(h))
		if math.Float32bits(got) != math.Float32bits(want) && !(math.IsNaN(float64(got)) && math.IsNaN(float64(want))) {
			t.Fatalf("FP32(%#04x) = %g, ggml %g", h, got, want)
		}
	}
}

// quantCases are rows that exercise the quantisers' corner cases.
func quantCases() map[string][]float32 {
	rng := rand.New(rand.NewPCG(3, 4))
	row := func(n int, f func(i int) float32) []float32 {
		r := make([]float32, n)
		for i := range r {
			r[i] = f(i)
		}
		return r
	}
	cases := map[string][]float32{
		"zeros":         row(64, func(int) float32 { return 0 }),
		"normal":        row(4096, func(int) float32 { return float32(rng.NormFloat64() * 0.02) }),
		"wide":          row(1024, func(int) float32 { return float32(rng.NormFloat64() * 1e3) }),
		"tiny":          row(256, func(int) float32 { return float32(rng.NormFloat64() * 1e-7) }),
		"negative max":  row(32, func(i int) float32 { return float32(i) - 31 }),
		"positive max":  row(32, func(i int) float32 { return float32(i) }),
		"ties":          row(64, func(i int) float32 { return float32(i%17)*0.5 - 4 }),
		"equal extreme": row(32, func(i int) float32 { return float32(1 - 2*(i%2)) }),
		"one spike":     row(32, func(i int) float32 { return float32(i / 31 * 100) }),
	}
	for _, v := range hardValues() {
		if !math.IsInf(float64(v), 0) {
			cases["hard"] = append(cases["hard"], v)
		}
	}
	h := cases["hard"]
	cases["hard"] = h[:len(h)/BlockSize*BlockSize]
	return cases
}

func TestQuantizeMatchesGGML(t *testing.T) {
	g := loadGGML(t)
	for _, typ := range []TensorType{Q8_0, Q4_0} {
		for name, src := range quantCases() {
			t.Run(typ.String()+"/"+name, func(t *testing.T) {
				got, err := Encode(nil, typ, src)
				if err != nil {
					t.Fatal(err)
				}
				size, _ := typ.RowBytes(uint64(len(src)))
				want := make([]byte, size)
				n := g.quantizeChunk(uint32(typ), unsafe.SliceData(src), unsafe.SliceData(want), 0, 1, int64(len(src)), nil)
				if uint64(n) != size {
					t.Fatalf("ggml wrote %d bytes, want %d", n, size)
				}
				if !bytes.Equal(got, want) {
					for i := range got {
						if got[i] != want[i] {
							t.Fatalf("byte %d (block %d) differs: %#02x, ggml %#02x", i, i/len(got)*len(src)/BlockSize, got[i], want[i])
						}
					}
				}
			})
		}
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	src := quantCases()["normal"]
	for _, typ := range []TensorType{F32, F16, Q8_0, Q4_0} {
		enc, err := Encode(nil, typ, src)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := typ.RowBytes(uint64(len(src))); uint64(len(enc)) != n {
			t.Errorf("%s: encoded %d bytes, RowBytes says %d", typ, len(enc), n)
		}
		dec, err := Decode(nil, typ, enc)
		if err != nil {
			t.Fatal(err)
		}
		if len(dec) != len(src) {
			t.Fatalf("%s: decoded %d values, want %d", typ, len(dec), len(src))
		}
		// Each value is within half a quantisation step of the original
		// (the step is the block's scale, max|x|/127 or max|x|/8), except
		// that Q4_0's levels run from -8 to 7 steps, so a value of the
		// opposite sign to the block's extreme may be clamped a whole step.
		for b := 0; b < len(src); b += BlockSize {
			var amax float64
			for _, v := range src[b : b+BlockSize] {
				amax = max(amax, math.Abs(float64(v)))
			}
			tol := map[TensorType]float64{F32: 0, F16: amax / 1024, Q8_0: amax/127/2 + amax/1024, Q4_0: amax/8 + amax/1024}[typ]
			for i := b; i < b+BlockSize; i++ {
				if d := math.Abs(float64(dec[i] - src[i])); d > tol*1.0001 {
					t.Fatalf("%s: value %d: %g decoded as %g (error %g > %g)", typ, i, src[i], dec[i], d, tol)
				}
			}
		}
	}
}

func TestEncodeErrors(t *testing.T) {
	if _, err := Encode(nil, Q8_0, make([]float32, 33)); err == nil {
		t.Error("Q8_0 of 33 values: no error")
	}
	if _, err := Encode(nil, TensorType(99), make([]float32, 32)); err == nil {
		t.Error("unknown type: no error")
	}
	if _, err := Decode(nil, Q4_0, make([]byte, 17)); err == nil {
		t.Error("Q4_0 of 17 bytes: no error")
	}
	if _, err := Q4_0.RowBytes(48); err == nil {
		t.Error("Q4_0 row of 48: no error")
	}
}
