package langdetect

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestModelCache checks that a model written to the cache reads back
// equal to the one built from the archive, and that damaged cache files
// are refused rather than used.
func TestModelCache(t *testing.T) {
	files, err := archiveFiles()
	if err != nil {
		t.Fatal(err)
	}
	built, err := buildModel(files)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sub", "langdetect.bin")
	writeCache(path, built)
	got, err := readCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, built) {
		t.Fatal("the model read from the cache differs from the one built")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string][]byte{
		"torn":    b[:len(b)/2],
		"empty":   nil,
		"flipped": append(append([]byte(nil), b[:100]...), append([]byte{b[100] ^ 1}, b[101:]...)...),
	} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readCache(path); err == nil {
			t.Errorf("%s cache file accepted", name)
		}
	}
	if _, err := readCache(filepath.Join(t.TempDir(), "missing.bin")); err == nil {
		t.Error("missing cache file accepted")
	}
}

// BenchmarkLoadCached measures reading the model from the cache, what
// every process after the first pays (BenchmarkLoad is the build).
func BenchmarkLoadCached(b *testing.B) {
	files, err := archiveFiles()
	if err != nil {
		b.Fatal(err)
	}
	m, err := buildModel(files)
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "langdetect.bin")
	writeCache(path, m)
	for b.Loop() {
		if _, err := readCache(path); err != nil {
			b.Fatal(err)
		}
	}
}

// TestArchiveSHA256: the pinned digest that names the cache is the
// embedded archive's, so that a new archive gets a new cache file.
func TestArchiveSHA256(t *testing.T) {
	if got := fmt.Sprintf("%x", sha256.Sum256([]byte(archive))); got != archiveSHA256 {
		t.Errorf("sha256 of %s is %s; set archiveSHA256 to it", archivePath, got)
	}
}

// TestEvict: after Evict, the mapped model detects as before (its pages
// are read again from the cache file).
func TestEvict(t *testing.T) {
	texts := []string{"The quick brown fox jumps over the lazy dog near the river bank.", "这是一个用来检测语言的中文句子，内容并不重要。", "Ceci est une phrase écrite en français pour le test."}
	d := New(0)
	var before []string
	for _, s := range texts {
		got, err := d.Detect(s)
		if err != nil {
			t.Fatal(err)
		}
		before = append(before, got)
	}
	for range 2 {
		Evict()
		for i, s := range texts {
			got, err := New(0).Detect(s)
			if err != nil {
				t.Fatal(err)
			}
			if got != before[i] {
				t.Errorf("%q after Evict: %s, before %s", s, got, before[i])
			}
		}
	}
}

// TestRemoveStale: a new cache removes those of other archives of its
// layout at once, and those of other layouts only when a week old, so that
// two versions in use do not rebuild each other's cache every time.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	name := func(sum string, layout int) string {
		return filepath.Join(dir, fmt.Sprintf("langdetect-%s-v%d.bin", sum, layout))
	}
	path := name("aaaa", cacheLayout)
	files := map[string]time.Duration{
		path:                            0,
		name("bbbb", cacheLayout):       0,
		name("aaaa", cacheLayout-1):     time.Hour,
		name("cccc", cacheLayout+1):     8 * 24 * time.Hour,
		filepath.Join(dir, "other.bin"): 30 * 24 * time.Hour,
	}
	for f, age := range files {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
	}
	removeStale(path, now)
	want := map[string]bool{path: true, name("aaaa", cacheLayout-1): true, filepath.Join(dir, "other.bin"): true}
	for f := range files {
		_, err := os.Stat(f)
		if kept := err == nil; kept != want[f] {
			t.Errorf("%s: kept %v, want %v", filepath.Base(f), kept, want[f])
		}
	}
}

// TestCheckRefuses breaks, one at a time, each condition check guards
// (copies of the tables of a built model, every other one intact) and
// expects the model refused; the intact model passes.
func TestCheckRefuses(t *testing.T) {
	files, err := archiveFiles()
	if err != nil {
		t.Fatal(err)
	}
	built, err := buildModel(files)
	if err != nil {
		t.Fatal(err)
	}
	if err := built.check(); err != nil {
		t.Fatalf("intact model refused: %v", err)
	}
	clone := func() *model {
		m := *built
		m.start = append([]int32(nil), built.start...)
		m.entries = append([]uint32(nil), built.entries...)
		for i, g := range built.grams {
			c := *g
			c.slots = append([]uint64(nil), g.slots...)
			m.grams[i] = &c
		}
		return &m
	}
	nl := len(built.langs)
	breaks := map[string]func(m *model){
		"start decreases":     func(m *model) { m.start[len(m.start)/2] = m.start[len(m.start)/2+1] + 1 },
		"start decreases at1": func(m *model) { m.start[1] = -1 },
		"start begins above0": func(m *model) { m.start[0] = 1 },
		"start ends short":    func(m *model) { m.start[len(m.start)-1]-- },
		"language = count":    func(m *model) { m.entries[len(m.entries)/2] |= uint32(nl) },
		"language 63":         func(m *model) { m.entries[3] |= 63 },
		"language at end":     func(m *model) { m.entries[len(m.entries)-1] |= uint32(nl) },
		"no n_words":          func(m *model) { m.nWords = nil },
		"rows too short":      func(m *model) { m.rows = m.rows[:len(m.rows)-1] },
		"start too short":     func(m *model) { m.start = m.start[:len(m.start)-1] },
	}
	for l := range built.grams {
		breaks[fmt.Sprintf("%d-gram id = count", l+1)] = func(m *model) {
			for i, s := range m.grams[l].slots {
				if s != 0 {
					m.grams[l].slots[i] = s&^0xffff | uint64(m.grams[l].n)
					return
				}
			}
		}
		breaks[fmt.Sprintf("%d-gram key without ids", l+1)] = func(m *model) { m.grams[l].n = 0 }
		breaks[fmt.Sprintf("%d-gram table full", l+1)] = func(m *model) {
			for i, s := range m.grams[l].slots {
				if s == 0 {
					m.grams[l].slots[i] = 1 << 16
				}
			}
		}
		breaks[fmt.Sprintf("%d-gram table without slots", l+1)] = func(m *model) { m.grams[l].slots = nil }
		breaks[fmt.Sprintf("%d-gram dense rows past end", l+1)] = func(m *model) { m.denseBase[l] = int32(len(m.rows)/nl) - m.nDense[l] + 1 }
		breaks[fmt.Sprintf("%d-gram dense rows before start", l+1)] = func(m *model) { m.denseBase[l] = -1 }
		breaks[fmt.Sprintf("%d-gram dense ids above ids", l+1)] = func(m *model) { m.nDense[l] = int32(m.grams[l].n + 1) }
		breaks[fmt.Sprintf("%d-gram dense ids below 0", l+1)] = func(m *model) { m.nDense[l] = -1 }
		breaks[fmt.Sprintf("%d-gram sparse indexes past end", l+1)] = func(m *model) { m.base[l] = int32(len(m.start)-1-m.grams[l].n) + 1 }
		breaks[fmt.Sprintf("%d-gram sparse indexes before start", l+1)] = func(m *model) { m.base[l] = -m.nDense[l] - 1 }
	}
	for name, brk := range breaks {
		m := clone()
		if err := m.check(); err != nil {
			t.Fatalf("%s: clone refused before breaking: %v", name, err)
		}
		brk(m)
		if err := m.check(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// BenchmarkCheck measures the index checks every read of the cache runs.
func BenchmarkCheck(b *testing.B) {
	files, err := archiveFiles()
	if err != nil {
		b.Fatal(err)
	}
	m, err := buildModel(files)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := m.check(); err != nil {
			b.Fatal(err)
		}
	}
}
