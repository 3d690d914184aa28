package langdetect

import "math/bits"

// gramTable maps the n-grams of one length to ids, with open addressing
// and linear probing over a single array: each slot packs the n-gram's
// key (its runes, 16 bits each, at most 48 bits) above a 16-bit id, so
// that a probe touches one 8-byte word. Extraction looks up three n-grams
// per character, so this lookup is the hot path of detection; one table
// per length keeps each small enough to stay in cache (3,159 1-grams,
// 26,427 2-grams and 58,012 3-grams in langdetect 1.0.9). The table has
// any number of slots, not only a power of two (a key's first slot is its
// hash scaled to the size, as in Lemire's fastrange), so that the model's
// tables are filled to tableLoad rather than to between a quarter and a
// half: fewer pages, which every process pays to touch.
type gramTable struct {
	slots []uint64 // key<<16 | id; 0 = empty (keys are never 0)
	n     int
}

// maxTableIDs is the number of ids a table can give (16 bits).
const maxTableIDs = 1 << 16

// tableLoad is the share of the model's slots in use, in percent (see
// compact).
const tableLoad = 75

func newGramTable(size int) *gramTable {
	return &gramTable{slots: make([]uint64, size)}
}

// slot is key's first slot: the top bits of its Fibonacci hash, scaled to
// the table's size.
func (t *gramTable) slot(key uint64) int {
	hi, _ := bits.Mul64(key*0x9e3779b97f4a7c15, uint64(len(t.slots)))
	return int(hi)
}

// lookup returns the id of key. The table must have an empty slot. (A
// slot x-ored with key<<16 is below 1<<16, its id, when it holds key, and
// is key<<16 when it is empty: one value per probe, which the extraction
// loop this is inlined in keeps in a register.)
func (t *gramTable) lookup(key uint64) (int32, bool) {
	slots, k := t.slots, key<<16
	for i := t.slot(key); ; {
		x := slots[i] ^ k
		if x < 1<<16 {
			return int32(x), true
		}
		if x == k {
			return 0, false
		}
		if i++; i == len(slots) {
			i = 0
		}
	}
}

// getOrInsert returns the id of key, giving it the next id if it is new;
// ok is false when the table is half full.
func (t *gramTable) getOrInsert(key uint64) (id int32, inserted, ok bool) {
	for i := t.slot(key); ; i++ {
		if i == len(t.slots) {
			i = 0
		}
		s := t.slots[i]
		if s>>16 == key {
			return int32(s & 0xffff), false, true
		}
		if s == 0 {
			if t.n >= maxTableIDs || 2*t.n >= len(t.slots) {
				return 0, false, false
			}
			t.slots[i] = key<<16 | uint64(t.n)
			t.n++
			return int32(t.n - 1), true, true
		}
	}
}

// compact returns a table of t's keys, each with the id newID[its id in
// t], with tableLoad percent of its slots in use (and at least one empty).
// The keys are placed in the order of their ids in order (a permutation
// of t's ids): linear probing finds a key wherever the keys before it
// pushed it, and those placed first sit in their first slot, which a
// lookup reaches in one probe.
func (t *gramTable) compact(order []int, newID []uint64) *gramTable {
	keys := make([]uint64, t.n)
	for _, s := range t.slots {
		if s != 0 {
			keys[s&0xffff] = s >> 16
		}
	}
	c := newGramTable(t.n*100/tableLoad + 1)
	c.n = t.n
	for _, id := range order {
		i := c.slot(keys[id])
		for c.slots[i] != 0 {
			if i++; i == len(c.slots) {
				i = 0
			}
		}
		c.slots[i] = keys[id]<<16 | newID[id]
	}
	return c
}
