package langdetect

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"testing"
)

// probRow returns the probabilities the model gives the n-gram of key
// (n runes) in each language, zeros included, read the way update reads
// them.
func probRow(m *model, key uint64, n int) ([]float64, bool) {
	id, ok := m.grams[n-1].lookup(key)
	if !ok {
		return nil, false
	}
	row := make([]float64, len(m.langs))
	if id < m.nDense[n-1] {
		off := int(m.denseBase[n-1]+id) * len(row)
		copy(row, m.rows[off:off+len(row)])
		return row, true
	}
	gram := m.base[n-1] + id
	for k := m.start[gram]; k < m.start[gram+1]; k++ {
		e := m.entries[k]
		row[e&0x3f] = m.entryProb(e)
	}
	return row, true
}

// TestModelProbabilities checks every probability of the model, bit for
// bit, against add_profile's computed afresh from the profiles (read with
// encoding/json): 1.0 * count / n_words[len(word)-1] for the 1- to
// 3-grams, and no other n-gram in the tables.
func TestModelProbabilities(t *testing.T) {
	files, err := archiveFiles()
	if err != nil {
		t.Fatal(err)
	}
	m, err := buildModel(files)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for name := range files {
		if strings.HasPrefix(name, "profiles/") {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	want := map[string][]float64{}
	for i, name := range names {
		var p struct {
			Freq   map[string]int64 `json:"freq"`
			NWords []int64          `json:"n_words"`
		}
		if err := json.Unmarshal(files[name], &p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for word, count := range p.Freq {
			n := len([]rune(word))
			if n < 1 || n > 3 || count == 0 {
				continue
			}
			if want[word] == nil {
				want[word] = make([]float64, len(names))
			}
			want[word][i] = 1.0 * float64(count) / float64(p.NWords[n-1])
		}
	}
	keys := 0
	for _, g := range m.grams {
		keys += g.n
	}
	if keys != len(want) {
		t.Errorf("%d n-grams in the tables, %d in the profiles", keys, len(want))
	}
	for word, w := range want {
		key, n := gramKey([]byte(word))
		got, ok := probRow(m, key, n)
		if !ok {
			t.Errorf("%q missing", word)
			continue
		}
		for l := range w {
			if math.Float64bits(got[l]) != math.Float64bits(w[l]) {
				t.Errorf("%q in %s: %v (%#x), want %v (%#x)", word, m.langs[l], got[l], math.Float64bits(got[l]), w[l], math.Float64bits(w[l]))
			}
		}
	}
}
