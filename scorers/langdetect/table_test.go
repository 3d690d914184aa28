package langdetect

import (
	"math/rand/v2"
	"testing"
)

// TestGramTable fills tables of several sizes with random keys, compacts
// them with shuffled ids, and checks that every key is found with its new
// id and that absent keys are not found (lookups that wrap past the end
// of the table included).
func TestGramTable(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 7, 100, 3159, 26427, 58012} {
		build := newGramTable(2 * n)
		keys := map[uint64]int32{}
		for len(keys) < n {
			key := r.Uint64()>>16 | 1
			if _, dup := keys[key]; dup {
				continue
			}
			id, inserted, ok := build.getOrInsert(key)
			if !inserted || !ok {
				t.Fatalf("n=%d: insert %#x: inserted %v, ok %v", n, key, inserted, ok)
			}
			keys[key] = id
		}
		newID := make([]uint64, n)
		for i, j := range r.Perm(n) {
			newID[i] = uint64(j)
		}
		c := build.compact(r.Perm(n), newID)
		if want := n*100/tableLoad + 1; len(c.slots) != want || c.n != n {
			t.Fatalf("n=%d: %d slots, n %d; want %d, %d", n, len(c.slots), c.n, want, n)
		}
		wrapped := false
		for key, id := range keys {
			got, ok := c.lookup(key)
			if !ok || uint64(got) != newID[id] {
				t.Fatalf("n=%d: lookup(%#x) = %d, %v; want %d", n, key, got, ok, newID[id])
			}
			if last := len(c.slots) - 1; c.slot(key) == last && c.slots[last]>>16 != key {
				wrapped = true // its lookup goes on at slot 0
			}
		}
		for range 10 * n {
			key := r.Uint64()>>16 | 1
			if _, in := keys[key]; in {
				continue
			}
			if id, ok := c.lookup(key); ok {
				t.Fatalf("n=%d: absent key %#x found with id %d", n, key, id)
			}
			if last := len(c.slots) - 1; c.slot(key) == last && c.slots[last] != 0 {
				wrapped = true
			}
		}
		if n >= 3159 && !wrapped {
			t.Errorf("n=%d: no lookup wrapped past the end of the table", n)
		}
	}
}
