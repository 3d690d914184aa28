package gguf

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// TestReadFileHostile: an empty, cut or lying GGUF file, and a named pipe,
// are unusable inputs, refused without allocating what the header
// declares (issue #49: a 45-byte file declaring a 2^28-byte string).
func TestReadFileHostile(t *testing.T) {
	dir := t.TempDir()
	liar := []byte(Magic)
	liar = binary.LittleEndian.AppendUint32(liar, Version)
	liar = binary.LittleEndian.AppendUint64(liar, 0) // tensors
	liar = binary.LittleEndian.AppendUint64(liar, 1) // keys
	liar = binary.LittleEndian.AppendUint64(liar, 1<<28-1)
	liar = append(liar, "general.arch"...)
	fifo := filepath.Join(dir, "fifo.gguf")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"empty": nil, "cut": []byte(Magic[:2]), "liar": liar, "fifo.gguf": nil} {
		p := filepath.Join(dir, name)
		if name != "fifo.gguf" {
			os.WriteFile(p, b, 0o644)
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, err := ReadFile(p)
		runtime.ReadMemStats(&m1)
		if !regfile.IsUnusable(err) {
			t.Errorf("%s: %v, want an unusable input", name, err)
		}
		if a := m1.TotalAlloc - m0.TotalAlloc; a > 1<<20 {
			t.Errorf("%s: allocated %d bytes", name, a)
		}
	}
}
