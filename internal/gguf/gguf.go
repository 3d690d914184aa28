// Package gguf reads and writes GGUF files, the model format of llama.cpp
// (ggml's gguf.h, version 3), and implements the ggml block quantisation
// formats Q8_0 and Q4_0 bit for bit as ggml's reference quantisers do.
//
// A file is a header of metadata key/value pairs and tensor descriptions
// followed by the tensor data, each tensor aligned to the file's alignment
// (general.alignment, 32 by default). Write streams the data: every tensor
// supplies a function that writes exactly its encoded size, so a model of
// several hundred megabytes is never held in memory. Read decodes the
// header only (metadata and tensor descriptions, not the data).
//
// The package intentionally does not load models, interpret architectures
// or convert checkpoints; internal/randmodel builds random-weight models on
// top of it for testing and measuring llama.cpp.
package gguf

import "fmt"

// Magic opens every GGUF file.
const Magic = "GGUF"

// Version is the GGUF version this package writes (and the only one it
// reads).
const Version = 3

// DefaultAlignment is the data alignment when general.alignment is absent.
const DefaultAlignment = 32

// ValueType is the type tag of a metadata value (gguf_type in gguf.h).
type ValueType uint32

// Metadata value types.
const (
	TypeUint8   ValueType = 0
	TypeInt8    ValueType = 1
	TypeUint16  ValueType = 2
	TypeInt16   ValueType = 3
	TypeUint32  ValueType = 4
	TypeInt32   ValueType = 5
	TypeFloat32 ValueType = 6
	TypeBool    ValueType = 7
	TypeString  ValueType = 8
	TypeArray   ValueType = 9
	TypeUint64  ValueType = 10
	TypeInt64   ValueType = 11
	TypeFloat64 ValueType = 12
)

// TensorType is a ggml tensor element type (enum ggml_type in ggml.h).
// Only the types this package can encode are named.
type TensorType uint32

// Tensor types.
const (
	F32  TensorType = 0
	F16  TensorType = 1
	Q4_0 TensorType = 2
	Q8_0 TensorType = 8
	BF16 TensorType = 30
)

// BlockSize is the number of elements per quantisation block (QK4_0 and
// QK8_0 in ggml-common.h).
const BlockSize = 32

// Sizes of one encoded block: an fp16 scale and the quants.
const (
	q8_0BlockBytes = 2 + BlockSize   // block_q8_0: d, qs[32]
	q4_0BlockBytes = 2 + BlockSize/2 // block_q4_0: d, qs[16] (two 4-bit quants per byte)
)

func (t TensorType) String() string {
	switch t {
	case F32:
		return "F32"
	case F16:
		return "F16"
	case Q4_0:
		return "Q4_0"
	case Q8_0:
		return "Q8_0"
	case BF16:
		return "BF16"
	}
	return fmt.Sprintf("ggml_type(%d)", uint32(t))
}

// ParseTensorType parses a type name as llama-quantize spells it ("f32",
// "f16", "q8_0", "q4_0"; case-insensitive).
func ParseTensorType(s string) (TensorType, error) {
	switch s {
	case "f32", "F32":
		return F32, nil
	case "f16", "F16":
		return F16, nil
	case "q8_0", "Q8_0":
		return Q8_0, nil
	case "q4_0", "Q4_0":
		return Q4_0, nil
	}
	return 0, fmt.Errorf("unknown tensor type %q (want f32, f16, q8_0 or q4_0)", s)
}

// RowBytes returns the encoded size of a row of n elements, or an error
// when the type cannot encode it (an unknown type, or n not a multiple of
// the block size for a block type).
func (t TensorType) RowBytes(n uint64) (uint64, error) {
	switch t {
	case F32:
		return 4 * n, nil
	case F16, BF16:
		return 2 * n, nil
	case Q8_0, Q4_0:
		if n%BlockSize != 0 {
			return 0, fmt.Errorf("%s rows must be a multiple of %d elements, got %d", t, BlockSize, n)
		}
		if t == Q8_0 {
			return n / BlockSize * q8_0BlockBytes, nil
		}
		return n / BlockSize * q4_0BlockBytes, nil
	}
	return 0, fmt.Errorf("tensor type %s is not supported", t)
}

// Token types (tokenizer.ggml.token_type; enum llama_token_type).
const (
	TokenUndefined   int32 = 0
	TokenNormal      int32 = 1
	TokenUnknown     int32 = 2
	TokenControl     int32 = 3
	TokenUserDefined int32 = 4
	TokenUnused      int32 = 5
	TokenByte        int32 = 6
)
