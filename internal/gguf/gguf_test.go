package gguf

import (
	"bytes"
	"encoding/binary"
	"io"
	"reflect"
	"strings"
	"testing"
)

func constant(b byte, n int) func(w io.Writer) error {
	return func(w io.Writer) error {
		_, err := w.Write(bytes.Repeat([]byte{b}, n))
		return err
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	kvs := []KV{
		{"general.architecture", "qwen3"},
		{"u8", uint8(7)}, {"i8", int8(-7)}, {"u16", uint16(700)}, {"i16", int16(-700)},
		{"u32", uint32(70000)}, {"i32", int32(-70000)}, {"f32", float32(1.5)}, {"bool", true},
		{"u64", uint64(1 << 40)}, {"i64", int64(-1 << 40)}, {"f64", 2.25}, {"empty", ""},
		{"strings", []string{"a", "", "ĠĠ é"}}, {"ints", []int32{1, -2, 3}}, {"floats", []float32{0.5}},
		{"bools", []bool{true, false}}, {"none", []uint64{}},
	}
	tensors := []Tensor{
		{Name: "a", Shape: []uint64{3}, Type: F32, WriteData: constant(1, 12)},
		{Name: "b", Shape: []uint64{64, 2}, Type: Q8_0, WriteData: constant(2, 4*34)},
		{Name: "c", Shape: []uint64{32, 3}, Type: Q4_0, WriteData: constant(3, 3*18)},
		{Name: "d", Shape: []uint64{5}, Type: F16, WriteData: constant(4, 10)},
	}
	var buf bytes.Buffer
	if err := Write(&buf, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	h, err := Read(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h.KVs, kvs) {
		t.Errorf("metadata round trip:\n got %#v\nwant %#v", h.KVs, kvs)
	}
	if h.Alignment != DefaultAlignment || h.DataOffset%DefaultAlignment != 0 {
		t.Errorf("alignment %d, data offset %d", h.Alignment, h.DataOffset)
	}
	wantOff := []uint64{0, 32, 32 + 160, 32 + 160 + 64}
	for i, ti := range h.Tensors {
		tt := tensors[i]
		if ti.Name != tt.Name || !reflect.DeepEqual(ti.Shape, tt.Shape) || ti.Type != tt.Type || ti.Offset != wantOff[i] {
			t.Errorf("tensor %d: got %+v, want %s %v %s at %d", i, ti, tt.Name, tt.Shape, tt.Type, wantOff[i])
		}
		size, _ := tt.Size()
		data := buf.Bytes()[h.DataOffset+ti.Offset:][:size]
		if !bytes.Equal(data, bytes.Repeat([]byte{byte(i + 1)}, int(size))) {
			t.Errorf("tensor %s: data not where its offset says", tt.Name)
		}
	}
	if want := h.DataOffset + wantOff[3] + 32; uint64(buf.Len()) != want {
		t.Errorf("file is %d bytes, want %d (last tensor padded)", buf.Len(), want)
	}
	if v, ok := h.Get("f32"); !ok || v != float32(1.5) {
		t.Errorf("Get(f32) = %v, %v", v, ok)
	}
}

func TestWriteAlignment(t *testing.T) {
	var buf bytes.Buffer
	kvs := []KV{{"general.alignment", uint32(64)}}
	tensors := []Tensor{
		{Name: "a", Shape: []uint64{1}, Type: F32, WriteData: constant(1, 4)},
		{Name: "b", Shape: []uint64{1}, Type: F32, WriteData: constant(2, 4)},
	}
	if err := Write(&buf, kvs, tensors); err != nil {
		t.Fatal(err)
	}
	h, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if h.Alignment != 64 || h.DataOffset%64 != 0 || h.Tensors[1].Offset != 64 {
		t.Errorf("alignment %d, data offset %d, second tensor at %d", h.Alignment, h.DataOffset, h.Tensors[1].Offset)
	}
}

func TestWriteErrors(t *testing.T) {
	f32 := func(name string, n int, data int) Tensor {
		return Tensor{Name: name, Shape: []uint64{uint64(n)}, Type: F32, WriteData: constant(0, data)}
	}
	tests := []struct {
		name    string
		kvs     []KV
		tensors []Tensor
		want    string
	}{
		{"duplicate key", []KV{{"a", uint8(1)}, {"a", uint8(2)}}, nil, "duplicate key"},
		{"bad value", []KV{{"a", struct{}{}}}, nil, "unsupported value type"},
		{"bad alignment", []KV{{"general.alignment", uint32(12)}}, nil, "alignment"},
		{"duplicate tensor", nil, []Tensor{f32("t", 1, 4), f32("t", 1, 4)}, "duplicate tensor"},
		{"short data", nil, []Tensor{f32("t", 2, 4)}, "wrote 4 bytes, want 8"},
		{"long data", nil, []Tensor{f32("t", 1, 8)}, "wrote 8 bytes, want 4"},
		{"no data", nil, []Tensor{{Name: "t", Shape: []uint64{1}, Type: F32}}, "has no data"},
		{"bad row", nil, []Tensor{{Name: "t", Shape: []uint64{33}, Type: Q8_0, WriteData: constant(0, 0)}}, "multiple of 32"},
		{"no dims", nil, []Tensor{{Name: "t", Type: F32}}, "dimensions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Write(io.Discard, tt.kvs, tt.tensors)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	var good bytes.Buffer
	if err := Write(&good, []KV{{"k", "v"}}, []Tensor{{Name: "t", Shape: []uint64{1}, Type: F32, WriteData: constant(0, 4)}}); err != nil {
		t.Fatal(err)
	}
	g := good.Bytes()
	version := append([]byte(Magic), binary.LittleEndian.AppendUint32(nil, 2)...)
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "unexpected EOF"},
		{"magic", append([]byte("GGML"), g[4:]...), "bad magic"},
		{"version", append(version, g[8:]...), "version 2"},
		{"truncated", g[:40], "unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}
