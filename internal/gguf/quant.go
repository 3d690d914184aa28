package gguf

import (
	"encoding/binary"
	"fmt"
	"math"
)

// FP16 converts f to IEEE 754 half precision, rounding to nearest even, as
// ggml's GGML_FP32_TO_FP16 does: overflow gives infinity, NaN gives the
// quiet NaN 0x7E00 with f's sign.
func FP16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15 // the half-precision biased exponent
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		// A subnormal half (or zero): shift the significand, implicit
		// bit included, down by 13 bits plus the exponent deficit.
		if e < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint(14 - e)
		r := m >> shift
		rem, half := m&(1<<shift-1), uint32(1)<<(shift-1)
		if rem > half || (rem == half && r&1 == 1) {
			r++
		}
		return sign | uint16(r)
	}
	r := uint32(e)<<10 | mant>>13
	if rem := mant & 0x1fff; rem > 0x1000 || (rem == 0x1000 && r&1 == 1) {
		r++ // a carry into the exponent is the correct rounding (up to infinity)
	}
	return sign | uint16(r)
}

// FP32 converts a half-precision value to float32 exactly.
func FP32(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | mant<<13)
	case exp != 0:
		return math.Float32frombits(sign | (exp+112)<<23 | mant<<13)
	case mant == 0:
		return math.Float32frombits(sign)
	}
	// Subnormal: normalise.
	e := uint32(113)
	for mant&0x400 == 0 {
		mant <<= 1
		e--
	}
	return math.Float32frombits(sign | e<<23 | (mant&0x3ff)<<13)
}

// BF16Bits rounds f to bfloat16 to the nearest even, as ggml's
// ggml_compute_fp32_to_bf16 does (a NaN stays a quiet NaN).
func BF16Bits(f float32) uint16 {
	u := math.Float32bits(f)
	if u&0x7fffffff > 0x7f800000 {
		return uint16(u>>16 | 64)
	}
	return uint16((u + (0x7fff + (u>>16)&1)) >> 16)
}

// Encode appends the encoding of src in type t to dst. For block types
// len(src) must be a multiple of BlockSize.
func Encode(dst []byte, t TensorType, src []float32) ([]byte, error) {
	switch t {
	case F32:
		for _, v := range src {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
		}
		return dst, nil
	case F16:
		for _, v := range src {
			dst = binary.LittleEndian.AppendUint16(dst, FP16(v))
		}
		return dst, nil
	case BF16:
		for _, v := range src {
			dst = binary.LittleEndian.AppendUint16(dst, BF16Bits(v))
		}
		return dst, nil
	case Q8_0, Q4_0:
		if len(src)%BlockSize != 0 {
			return dst, fmt.Errorf("encode %s: %d elements is not a multiple of %d", t, len(src), BlockSize)
		}
		for i := 0; i < len(src); i += BlockSize {
			if t == Q8_0 {
				dst = appendQ8_0(dst, src[i:i+BlockSize])
			} else {
				dst = appendQ4_0(dst, src[i:i+BlockSize])
			}
		}
		return dst, nil
	}
	return dst, fmt.Errorf("encode: tensor type %s is not supported", t)
}

// appendQ8_0 is ggml's quantize_row_q8_0_ref for one block: scale
// d = max|x| / 127, quants round(x / d) (halves away from zero).
func appendQ8_0(dst []byte, x []float32) []byte {
	var amax float32
	for _, v := range x {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	d := amax / 127
	var id float32
	if d != 0 {
		id = 1 / d
	}
	dst = binary.LittleEndian.AppendUint16(dst, FP16(d))
	for _, v := range x {
		q := float32(v * id) // rounded to float32 before rounding to integer
		dst = append(dst, byte(int8(math.Round(float64(q)))))
	}
	return dst
}

// appendQ4_0 is ggml's quantize_row_q4_0_ref for one block: d is the
// element of largest magnitude (first on ties) divided by -8, and element
// j's 4-bit quant is min(15, trunc(x_j/d + 8.5)); byte j holds element j in
// its low nibble and element j+16 in its high nibble.
func appendQ4_0(dst []byte, x []float32) []byte {
	var amax, vmax float32
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); amax < a {
			amax, vmax = a, v
		}
	}
	d := vmax / -8
	var id float32
	if d != 0 {
		id = 1 / d
	}
	dst = binary.LittleEndian.AppendUint16(dst, FP16(d))
	quant := func(v float32) byte {
		q := float32(v*id) + 8.5 // two float32 roundings, no fused multiply-add
		return byte(min(15, int8(q)))
	}
	for j := range BlockSize / 2 {
		dst = append(dst, quant(x[j])|quant(x[j+BlockSize/2])<<4)
	}
	return dst
}

// Decode converts encoded data of type t back to float32 (ggml's
// dequantize_row_* / to_float), appending to dst.
func Decode(dst []float32, t TensorType, src []byte) ([]float32, error) {
	switch t {
	case F32:
		if len(src)%4 != 0 {
			return dst, fmt.Errorf("decode F32: %d bytes is not a multiple of 4", len(src))
		}
		for i := 0; i < len(src); i += 4 {
			dst = append(dst, math.Float32frombits(binary.LittleEndian.Uint32(src[i:])))
		}
	case F16:
		if len(src)%2 != 0 {
			return dst, fmt.Errorf("decode F16: %d bytes is not a multiple of 2", len(src))
		}
		for i := 0; i < len(src); i += 2 {
			dst = append(dst, FP32(binary.LittleEndian.Uint16(src[i:])))
		}
	case BF16:
		if len(src)%2 != 0 {
			return dst, fmt.Errorf("decode BF16: %d bytes is not a multiple of 2", len(src))
		}
		for i := 0; i < len(src); i += 2 {
			dst = append(dst, math.Float32frombits(uint32(binary.LittleEndian.Uint16(src[i:]))<<16))
		}
	case Q8_0:
		if len(src)%q8_0BlockBytes != 0 {
			return dst, fmt.Errorf("decode Q8_0: %d bytes is not a whole number of %d-byte blocks", len(src), q8_0BlockBytes)
		}
		for b := 0; b < len(src); b += q8_0BlockBytes {
			d := FP32(binary.LittleEndian.Uint16(src[b:]))
			for _, q := range src[b+2 : b+q8_0BlockBytes] {
				dst = append(dst, float32(int8(q))*d)
			}
		}
	case Q4_0:
		if len(src)%q4_0BlockBytes != 0 {
			return dst, fmt.Errorf("decode Q4_0: %d bytes is not a whole number of %d-byte blocks", len(src), q4_0BlockBytes)
		}
		for b := 0; b < len(src); b += q4_0BlockBytes {
			d := FP32(binary.LittleEndian.Uint16(src[b:]))
			qs := src[b+2 : b+q4_0BlockBytes]
			for _, q := range qs {
				dst = append(dst, float32(int(q&0xf)-8)*d)
			}
			for _, q := range qs {
				dst = append(dst, float32(int(q>>4)-8)*d)
			}
		}
	default:
		return dst, fmt.Errorf("decode: tensor type %s is not supported", t)
	}
	return dst, nil
}
