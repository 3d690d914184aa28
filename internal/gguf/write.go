package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// KV is one metadata pair. Value is one of uint8, int8, uint16, int16,
// uint32, int32, float32, bool, string, uint64, int64, float64, or a slice
// of one of these (a GGUF array).
type KV struct {
	Key   string
	Value any
}

// Tensor describes one tensor to write. Shape lists the dimensions
// fastest-varying first (ggml's ne: a weight of n_out rows of n_in columns
// is {n_in, n_out}).
type Tensor struct {
	Name  string
	Shape []uint64
	Type  TensorType
	// WriteData writes the encoded tensor: exactly Size() bytes, row after
	// row. Write fails if it writes more or fewer.
	WriteData func(w io.Writer) error
}

// Size returns the encoded size of the tensor in bytes.
func (t Tensor) Size() (uint64, error) {
	if len(t.Shape) == 0 || len(t.Shape) > 4 {
		return 0, fmt.Errorf("tensor %s: %d dimensions, want 1 to 4", t.Name, len(t.Shape))
	}
	rows := uint64(1)
	for _, n := range t.Shape[1:] {
		rows *= n
	}
	row, err := t.Type.RowBytes(t.Shape[0])
	if err != nil {
		return 0, fmt.Errorf("tensor %s: %w", t.Name, err)
	}
	return row * rows, nil
}

// Write writes a GGUF file: the metadata in the given order, the tensor
// descriptions, then each tensor's data at offsets aligned to the
// general.alignment value in kvs (DefaultAlignment when absent).
func Write(w io.Writer, kvs []KV, tensors []Tensor) error {
	align := uint64(DefaultAlignment)
	seen := make(map[string]bool, len(kvs))
	for _, kv := range kvs {
		if seen[kv.Key] {
			return fmt.Errorf("write gguf: duplicate key %q", kv.Key)
		}
		seen[kv.Key] = true
		if kv.Key == "general.alignment" {
			a, ok := kv.Value.(uint32)
			if !ok || a == 0 || a%8 != 0 {
				return fmt.Errorf("write gguf: general.alignment must be a uint32 multiple of 8, got %v", kv.Value)
			}
			align = uint64(a)
		}
	}
	offsets := make([]uint64, len(tensors))
	sizes := make([]uint64, len(tensors))
	names := make(map[string]bool, len(tensors))
	var off uint64
	for i, t := range tensors {
		if names[t.Name] {
			return fmt.Errorf("write gguf: duplicate tensor %q", t.Name)
		}
		names[t.Name] = true
		n, err := t.Size()
		if err != nil {
			return fmt.Errorf("write gguf: %w", err)
		}
		offsets[i], sizes[i] = off, n
		off = alignUp(off+n, align)
	}

	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{w: bw}
	e.raw([]byte(Magic))
	e.u32(Version)
	e.u64(uint64(len(tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		if err := e.value(kv.Value); err != nil {
			return fmt.Errorf("write gguf: key %s: %w", kv.Key, err)
		}
	}
	for i, t := range tensors {
		e.str(t.Name)
		e.u32(uint32(len(t.Shape)))
		for _, n := range t.Shape {
			e.u64(n)
		}
		e.u32(uint32(t.Type))
		e.u64(offsets[i])
	}
	e.pad(align)
	if e.err != nil {
		return fmt.Errorf("write gguf header: %w", e.err)
	}
	for i, t := range tensors {
		if t.WriteData == nil {
			return fmt.Errorf("write gguf: tensor %s has no data", t.Name)
		}
		cw := &countWriter{w: bw}
		if err := t.WriteData(cw); err != nil {
			return fmt.Errorf("write gguf: tensor %s: %w", t.Name, err)
		}
		if cw.n != sizes[i] {
			return fmt.Errorf("write gguf: tensor %s: wrote %d bytes, want %d", t.Name, cw.n, sizes[i])
		}
		e.n += cw.n
		e.pad(align)
		if e.err != nil {
			return fmt.Errorf("write gguf: tensor %s: %w", t.Name, e.err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write gguf: %w", err)
	}
	return nil
}

func alignUp(n, align uint64) uint64 { return (n + align - 1) / align * align }

type countWriter struct {
	w io.Writer
	n uint64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += uint64(n)
	return n, err
}

// encoder writes little-endian values, keeping the first error and the
// byte count (for alignment padding).
type encoder struct {
	w   io.Writer
	n   uint64
	err error
	buf [8]byte
}

func (e *encoder) raw(b []byte) {
	if e.err != nil {
		return
	}
	n, err := e.w.Write(b)
	e.n += uint64(n)
	e.err = err
}

func (e *encoder) u8(v uint8) { e.raw([]byte{v}) }
func (e *encoder) u16(v uint16) {
	binary.LittleEndian.PutUint16(e.buf[:2], v)
	e.raw(e.buf[:2])
}
func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.raw(e.buf[:4])
}
func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:8], v)
	e.raw(e.buf[:8])
}
func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

func (e *encoder) pad(align uint64) {
	if n := alignUp(e.n, align) - e.n; n > 0 {
		e.raw(make([]byte, n))
	}
}

// value writes a type tag and a value.
func (e *encoder) value(v any) error {
	t, ok := typeOf(v)
	if !ok {
		return fmt.Errorf("unsupported value type %T", v)
	}
	e.u32(uint32(t))
	if t != TypeArray {
		e.scalar(v)
		return nil
	}
	switch a := v.(type) {
	case []uint8:
		return array(e, TypeUint8, a)
	case []int8:
		return array(e, TypeInt8, a)
	case []uint16:
		return array(e, TypeUint16, a)
	case []int16:
		return array(e, TypeInt16, a)
	case []uint32:
		return array(e, TypeUint32, a)
	case []int32:
		return array(e, TypeInt32, a)
	case []float32:
		return array(e, TypeFloat32, a)
	case []bool:
		return array(e, TypeBool, a)
	case []string:
		return array(e, TypeString, a)
	case []uint64:
		return array(e, TypeUint64, a)
	case []int64:
		return array(e, TypeInt64, a)
	case []float64:
		return array(e, TypeFloat64, a)
	}
	return errors.New("unreachable")
}

func array[T any](e *encoder, t ValueType, a []T) error {
	e.u32(uint32(t))
	e.u64(uint64(len(a)))
	for _, v := range a {
		e.scalar(v)
	}
	return nil
}

func (e *encoder) scalar(v any) {
	switch x := v.(type) {
	case uint8:
		e.u8(x)
	case int8:
		e.u8(uint8(x))
	case uint16:
		e.u16(x)
	case int16:
		e.u16(uint16(x))
	case uint32:
		e.u32(x)
	case int32:
		e.u32(uint32(x))
	case float32:
		e.u32(math.Float32bits(x))
	case bool:
		if x {
			e.u8(1)
		} else {
			e.u8(0)
		}
	case string:
		e.str(x)
	case uint64:
		e.u64(x)
	case int64:
		e.u64(uint64(x))
	case float64:
		e.u64(math.Float64bits(x))
	}
}

// typeOf returns the GGUF type of a Go value.
func typeOf(v any) (ValueType, bool) {
	switch v.(type) {
	case uint8:
		return TypeUint8, true
	case int8:
		return TypeInt8, true
	case uint16:
		return TypeUint16, true
	case int16:
		return TypeInt16, true
	case uint32:
		return TypeUint32, true
	case int32:
		return TypeInt32, true
	case float32:
		return TypeFloat32, true
	case bool:
		return TypeBool, true
	case string:
		return TypeString, true
	case uint64:
		return TypeUint64, true
	case int64:
		return TypeInt64, true
	case float64:
		return TypeFloat64, true
	case []uint8, []int8, []uint16, []int16, []uint32, []int32, []float32, []bool, []string, []uint64, []int64, []float64:
		return TypeArray, true
	}
	return 0, false
}
