package gguf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// Header is the decoded front of a GGUF file: metadata and tensor
// descriptions.
type Header struct {
	KVs     []KV
	Tensors []TensorInfo
	// Alignment is general.alignment, or DefaultAlignment.
	Alignment uint64
	// DataOffset is where the tensor data starts in the file.
	DataOffset uint64
}

// TensorInfo describes one stored tensor; Offset is relative to
// Header.DataOffset.
type TensorInfo struct {
	Name   string
	Shape  []uint64
	Type   TensorType
	Offset uint64
}

// Get returns the value of key and whether it is present.
func (h *Header) Get(key string) (any, bool) {
	for _, kv := range h.KVs {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Limits that keep a corrupt header from allocating without bound.
const (
	maxStringLen = 1 << 28
	maxArrayLen  = 1 << 28
	maxCount     = 1 << 24
)

// ReadFile decodes the header of the GGUF file at path. A path that is
// not a regular file is refused unread, and a header that is cut,
// corrupt, or declares a string or array longer than the rest of the file
// is an input refused as unusable (regfile.IsUnusable), never allocated.
func ReadFile(path string) (*Header, error) {
	f, err := regfile.Open(path, os.O_RDONLY, 0, false)
	if err != nil {
		return nil, fmt.Errorf("read gguf: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read gguf: %w", err)
	}
	h, err := read(f, uint64(st.Size()))
	if errors.Is(err, ErrVersion) {
		return nil, fmt.Errorf("%s: %w", path, err) // another reader may know it
	}
	if err != nil {
		return nil, regfile.Unusable(path, err)
	}
	return h, nil
}

// ErrVersion is a GGUF version this package does not read.
var ErrVersion = errors.New("version")

// Read decodes a GGUF header from r (version 3 only).
func Read(r io.Reader) (*Header, error) { return read(r, 0) }

// read is Read of a stream of size bytes (0: unknown).
func read(r io.Reader, size uint64) (*Header, error) {
	d := &decoder{r: bufio.NewReaderSize(r, 1<<16), size: size}
	var magic [4]byte
	d.full(magic[:])
	if d.err == nil && string(magic[:]) != Magic {
		return nil, fmt.Errorf("read gguf: bad magic %q", magic[:])
	}
	if v := d.u32(); d.err == nil && v != Version {
		return nil, fmt.Errorf("read gguf: %w %d, only %d is supported", ErrVersion, v, Version)
	}
	nTensors, nKV := d.u64(), d.u64()
	if d.err == nil && (nTensors > maxCount || nKV > maxCount) {
		return nil, fmt.Errorf("read gguf: implausible counts (%d tensors, %d keys)", nTensors, nKV)
	}
	h := &Header{Alignment: DefaultAlignment}
	for i := uint64(0); i < nKV && d.err == nil; i++ {
		key := d.str()
		v := d.value(ValueType(d.u32()), true)
		if d.err != nil {
			return nil, fmt.Errorf("read gguf: key %d (%q): %w", i, key, d.err)
		}
		h.KVs = append(h.KVs, KV{Key: key, Value: v})
		if key == "general.alignment" {
			a, ok := v.(uint32)
			if !ok || a == 0 {
				return nil, fmt.Errorf("read gguf: general.alignment is %v", v)
			}
			h.Alignment = uint64(a)
		}
	}
	for i := uint64(0); i < nTensors && d.err == nil; i++ {
		var t TensorInfo
		t.Name = d.str()
		nd := d.u32()
		if d.err == nil && (nd == 0 || nd > 4) {
			return nil, fmt.Errorf("read gguf: tensor %q has %d dimensions", t.Name, nd)
		}
		for range nd {
			t.Shape = append(t.Shape, d.u64())
		}
		t.Type = TensorType(d.u32())
		t.Offset = d.u64()
		h.Tensors = append(h.Tensors, t)
	}
	if d.err != nil {
		return nil, fmt.Errorf("read gguf: %w", d.err)
	}
	h.DataOffset = alignUp(d.n, h.Alignment)
	return h, nil
}

type decoder struct {
	r    *bufio.Reader
	size uint64 // of the stream, when known (0: unknown)
	n    uint64
	err  error
	buf  [8]byte
}

func (d *decoder) full(b []byte) {
	if d.err != nil {
		return
	}
	n, err := io.ReadFull(d.r, b)
	d.n += uint64(n)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	d.err = err
}

func (d *decoder) u8() uint8 {
	d.full(d.buf[:1])
	return d.buf[0]
}
func (d *decoder) u16() uint16 {
	d.full(d.buf[:2])
	return binary.LittleEndian.Uint16(d.buf[:2])
}
func (d *decoder) u32() uint32 {
	d.full(d.buf[:4])
	return binary.LittleEndian.Uint32(d.buf[:4])
}
func (d *decoder) u64() uint64 {
	d.full(d.buf[:8])
	return binary.LittleEndian.Uint64(d.buf[:8])
}

func (d *decoder) str() string {
	n := d.u64()
	if d.err != nil {
		return ""
	}
	if n > maxStringLen || d.past(n) {
		d.err = fmt.Errorf("string of %d bytes", n)
		return ""
	}
	b := make([]byte, n)
	d.full(b)
	return string(b)
}

// past reports whether n more bytes would run past the stream's end.
func (d *decoder) past(n uint64) bool { return d.size > 0 && n > d.size-min(d.n, d.size) }

// value decodes one value of type t; arrays are allowed only at the top.
func (d *decoder) value(t ValueType, top bool) any {
	if d.err != nil {
		return nil
	}
	switch t {
	case TypeUint8:
		return d.u8()
	case TypeInt8:
		return int8(d.u8())
	case TypeUint16:
		return d.u16()
	case TypeInt16:
		return int16(d.u16())
	case TypeUint32:
		return d.u32()
	case TypeInt32:
		return int32(d.u32())
	case TypeFloat32:
		return math.Float32frombits(d.u32())
	case TypeBool:
		return d.u8() != 0
	case TypeString:
		return d.str()
	case TypeUint64:
		return d.u64()
	case TypeInt64:
		return int64(d.u64())
	case TypeFloat64:
		return math.Float64frombits(d.u64())
	case TypeArray:
		if !top {
			d.err = errors.New("nested arrays are not supported")
			return nil
		}
		et := ValueType(d.u32())
		n := d.u64()
		if d.err == nil && (n > maxArrayLen || d.past(n)) {
			d.err = fmt.Errorf("array of %d elements", n)
		}
		if d.err != nil {
			return nil
		}
		return d.array(et, int(n))
	}
	d.err = fmt.Errorf("unknown value type %d", t)
	return nil
}

func (d *decoder) array(et ValueType, n int) any {
	switch et {
	case TypeUint8:
		return readArray(d, n, d.u8)
	case TypeInt8:
		return readArray(d, n, func() int8 { return int8(d.u8()) })
	case TypeUint16:
		return readArray(d, n, d.u16)
	case TypeInt16:
		return readArray(d, n, func() int16 { return int16(d.u16()) })
	case TypeUint32:
		return readArray(d, n, d.u32)
	case TypeInt32:
		return readArray(d, n, func() int32 { return int32(d.u32()) })
	case TypeFloat32:
		return readArray(d, n, func() float32 { return math.Float32frombits(d.u32()) })
	case TypeBool:
		return readArray(d, n, func() bool { return d.u8() != 0 })
	case TypeString:
		return readArray(d, n, d.str)
	case TypeUint64:
		return readArray(d, n, d.u64)
	case TypeInt64:
		return readArray(d, n, func() int64 { return int64(d.u64()) })
	case TypeFloat64:
		return readArray(d, n, func() float64 { return math.Float64frombits(d.u64()) })
	}
	d.err = fmt.Errorf("unsupported array element type %d", et)
	return nil
}

func readArray[T any](d *decoder, n int, next func() T) []T {
	out := make([]T, 0, min(n, 1<<16))
	for i := 0; i < n && d.err == nil; i++ {
		out = append(out, next())
	}
	return out
}
