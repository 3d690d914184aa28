package langdetect

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unsafe"
)

// The model cache. Building the model from the archive (decompressing it,
// parsing 55 JSON profiles and laying out the tables) costs about 100 ms
// of CPU, more than scoring all of IFEval; so the first process to build
// it writes its tables to $XDG_CACHE_HOME/pocketeval/langdetect-*.bin, and
// later processes copy them back. The file's name carries the archive's
// sha256 and the layout's version; its last four bytes are a CRC-32 of the
// rest (IEEE: on amd64 hash/crc32 folds it with carry-less multiplication,
// without tables, where CRC-32C first makes its tables, about 0.2 ms of
// every process, then takes twice as long over the file). A file that is
// missing, torn, corrupt or of another layout is ignored (and rewritten);
// a cache of another layout is removed once a week old, so that binaries
// of two versions do not rebuild in turn. The cache can change how fast a
// process starts, never a result. The file is replaced only by renaming a
// new one over it, so a process that maps it keeps valid pages.
// TestModelCache checks that a model read back equals the one built.

// cacheLayout changes whenever the model's fields or their encoding do.
const cacheLayout = 8

// cacheDir is where the cache lives; tests point it elsewhere.
var cacheDir = func() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "pocketeval")
}

// cachePath is the cache file of the model built from the archive whose
// sha256 is sum (hex), or "" when there is no cache directory.
func cachePath(sum string) string {
	dir := cacheDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, fmt.Sprintf("langdetect-%s-v%d.bin", sum[:24], cacheLayout))
}

// archiveFiles returns the files of the embedded archive by name.
func archiveFiles() (map[string][]byte, error) {
	return readArchive(archive)
}

// writeCache writes m to path atomically; failures are ignored.
func writeCache(path string, m *model) {
	if path == "" {
		return
	}
	b := encodeModel(m)
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".langdetect-*")
	if err != nil {
		return
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return
	}
	removeStale(path, time.Now())
}

// staleAfter is how long a cache of another layout is kept: a binary of
// another version may still be in use and would rebuild it every time.
const staleAfter = 7 * 24 * time.Hour

// removeStale removes, next to path, the caches of other archives of the
// same layout, and those of other layouts not written for staleAfter.
func removeStale(path string, now time.Time) {
	old, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "langdetect-*.bin"))
	layout := fmt.Sprintf("-v%d.bin", cacheLayout)
	for _, o := range old {
		if o == path {
			continue
		}
		if !strings.HasSuffix(o, layout) {
			if fi, err := os.Stat(o); err != nil || now.Sub(fi.ModTime()) < staleAfter {
				continue
			}
		}
		os.Remove(o)
	}
}

// readCache reads the model cached at path. Its tables are the file's
// pages, mapped read-only where the system can (mapFile), not copies.
func readCache(path string) (*model, error) {
	if path == "" {
		return nil, os.ErrNotExist
	}
	b, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 4 || crc32.ChecksumIEEE(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, errCorrupt
	}
	return decodeModel(b[:len(b)-4])
}

var errCorrupt = errors.New("langdetect: corrupt model cache")

// encodeModel lays m out as length-prefixed little-endian arrays.
func encodeModel(m *model) []byte {
	var b []byte
	u64 := func(v uint64) { b = binary.LittleEndian.AppendUint64(b, v) }
	u64(uint64(len(m.langs)))
	for _, l := range m.langs {
		b = appendSlice(b, []byte(l))
	}
	for _, g := range m.grams {
		u64(uint64(g.n))
		b = appendSlice(b, g.slots)
	}
	for _, a := range [][3]int32{m.base, m.nDense, m.denseBase} {
		for _, v := range a {
			u64(uint64(v))
		}
	}
	flag := uint64(0)
	if m.suffixClosed {
		flag = 1
	}
	u64(flag)
	b = appendSlice(b, m.start)
	b = appendSlice(b, m.entries)
	b = appendSlice(b, m.nWords[:])
	b = appendSlice(b, m.rows)
	excluded := make([]uint8, len(m.latin1Excluded))
	for i, x := range m.latin1Excluded {
		if x {
			excluded[i] = 1
		}
	}
	b = appendSlice(b, excluded)
	b = appendSlice(b, m.cjk)
	b = appendSlice(b, m.viBase)
	b = appendSlice(b, m.viMarks)
	for _, c := range m.viChars {
		b = appendSlice(b, c)
	}
	return b
}

type element interface {
	~uint8 | ~int32 | ~uint32 | ~uint64 | ~float64
}

// appendSlice appends s's length and its elements' bytes (little-endian
// machines only; see decodeModel), then zeros up to a multiple of 8 bytes
// so that every array starts aligned.
func appendSlice[T element](b []byte, s []T) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(s)))
	var zero T
	b = append(b, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero)))...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

// decoder reads what encodeModel wrote.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) u64() uint64 {
	if len(d.b) < 8 {
		d.err = errCorrupt
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// readSlice returns the next array, in place: a slice of the file's bytes
// (aligned by appendSlice).
func readSlice[T element](d *decoder) []T {
	n := d.u64()
	var zero T
	size := uint64(unsafe.Sizeof(zero))
	if d.err != nil || n > uint64(len(d.b))/size {
		d.err = errCorrupt
		return nil
	}
	padded := (n*size + 7) &^ 7
	if padded > uint64(len(d.b)) || uintptr(unsafe.Pointer(unsafe.SliceData(d.b)))%unsafe.Alignof(zero) != 0 {
		d.err = errCorrupt
		return nil
	}
	var out []T
	if n > 0 {
		out = unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(d.b))), n)
	}
	d.b = d.b[padded:]
	return out
}

// decodeModel returns the model whose tables are b's bytes (which must
// stay unchanged: the model is never written after it is built).
func decodeModel(b []byte) (*model, error) {
	if !littleEndian() {
		return nil, errCorrupt
	}
	d := &decoder{b: b}
	m := &model{}
	nl := d.u64()
	if nl > 64 {
		return nil, errCorrupt
	}
	for range nl {
		m.langs = append(m.langs, string(readSlice[uint8](d)))
	}
	for i := range m.grams {
		g := &gramTable{n: int(d.u64())}
		g.slots = readSlice[uint64](d)
		m.grams[i] = g
	}
	for _, a := range []*[3]int32{&m.base, &m.nDense, &m.denseBase} {
		for i := range a {
			a[i] = int32(d.u64())
		}
	}
	m.suffixClosed = d.u64() == 1
	m.start = readSlice[int32](d)
	m.entries = readSlice[uint32](d)
	if nWords := readSlice[float64](d); len(nWords) == len(m.nWords) {
		m.nWords = (*[256]float64)(nWords)
	} else {
		d.err = errCorrupt
	}
	m.rows = readSlice[float64](d)
	excluded := readSlice[uint8](d)
	m.cjk = readSlice[int32](d)
	m.viBase = readSlice[int32](d)
	m.viMarks = readSlice[int32](d)
	for i := range m.viChars {
		m.viChars[i] = readSlice[int32](d)
	}
	if d.err != nil || len(d.b) != 0 || len(excluded) != len(m.latin1Excluded) {
		return nil, errCorrupt
	}
	for i, x := range excluded {
		m.latin1Excluded[i] = x != 0
	}
	if err := m.check(); err != nil {
		return nil, err
	}
	return m, nil
}

// check refuses tables whose indexes point outside them, so that a cache
// file that passes its checksum yet was written by other code cannot make
// detection index out of range. Each condition is checked on a maximum
// (or an OR) over the whole array rather than element by element with a
// branch: the arrays hold half a million entries, and every process that
// reads the cache checks them (TestCheckRefuses breaks each condition).
func (m *model) check() error {
	nl := len(m.langs)
	if len(m.start) == 0 || m.nWords == nil ||
		m.start[0] != 0 || m.start[len(m.start)-1] != int32(len(m.entries)) {
		return errCorrupt
	}
	// start never decreases: no difference between neighbours is
	// negative (the differences of int32s, taken in int64, cannot wrap).
	var down int64
	for i := 1; i < len(m.start); i++ {
		down |= int64(m.start[i]) - int64(m.start[i-1])
	}
	if down < 0 {
		return errCorrupt
	}
	// Every entry's language is below nl (at most 64): a language l is at
	// least nl when l + (64-nl) reaches 64.
	if nl > 64 {
		return errCorrupt
	}
	add, over := uint32(64-nl), uint32(0)
	for _, e := range m.entries {
		over |= e&0x3f + add
	}
	if over&0x40 != 0 {
		return errCorrupt
	}
	for l, g := range m.grams {
		// Ids below nDense have rows denseBase to denseBase+nDense-1, the
		// others the sparse indexes base+nDense to base+n-1 (int64s: the
		// sums of int32s cannot wrap).
		nDense, denseBase, base := int64(m.nDense[l]), int64(m.denseBase[l]), int64(m.base[l])
		if nDense < 0 || nDense > int64(g.n) || denseBase < 0 || (denseBase+nDense)*int64(nl) > int64(len(m.rows)) ||
			base+nDense < 0 || base+int64(g.n) > int64(len(m.start)-1) {
			return errCorrupt
		}
		// An empty slot is 0, whose id 0 passes whenever there are ids;
		// a table without ids must have no key at all. A lookup ends at
		// an empty slot, so there must be one ((s|-s)>>63 is 0 for an
		// empty slot, 1 for any other).
		var maxID, keys uint64
		full := 0
		for _, s := range g.slots {
			maxID = max(maxID, s&0xffff)
			keys |= s
			full += int((s | -s) >> 63)
		}
		if keys != 0 && maxID >= uint64(g.n) || full == len(g.slots) {
			return errCorrupt
		}
	}
	return nil
}

func littleEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}
