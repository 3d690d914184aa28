package fidelity

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pocketeval/pocketeval/internal/regfile"
)

// TestCutReference (issue #49): a reference file cut inside a sequence,
// or whose sequence header declares more than the file holds, with its
// checksum recomputed, is an unusable input (exit 2), read without
// allocating what it declares.
func TestCutReference(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string][]byte{
		"cut":  binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 3), 0), // 3 tokens, none follow
		"liar": binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, 1<<24), 0),
	} {
		path := filepath.Join(dir, name+".logits")
		data := []byte(magic + `{"vocab":{"size":4},"sequences":1,"record_len":` + "8" + "}\n")
		data = append(data, body...)
		os.WriteFile(path, data, 0o644)
		sum := sha256.Sum256(data)
		os.WriteFile(SumPath(path), []byte(hex.EncodeToString(sum[:])+"  "+name+".logits\n"), 0o644)
		ref, err := OpenReference(path)
		if err != nil {
			t.Fatalf("%s: open: %v", name, err)
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		_, _, err = ref.next()
		runtime.ReadMemStats(&m1)
		ref.Close()
		if !regfile.IsUnusable(err) {
			t.Errorf("%s: %v, want an unusable input", name, err)
		}
		if a := m1.TotalAlloc - m0.TotalAlloc; a > 1<<20 {
			t.Errorf("%s: allocated %d bytes", name, a)
		}
	}
}
