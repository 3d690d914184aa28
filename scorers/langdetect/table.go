package langdetect

// gramTable maps the n-grams of one length to ids, with open addressing
// and linear probing over a single array: each slot packs the n-gram's
// key (its runes, 16 bits each, at most 48 bits) above a 16-bit id, so
// that a probe touches one 8-byte word. Extraction looks up three n-grams
// per character, so this lookup is the hot path of detection; one table
// per length keeps each small enough to stay in cache (3,159 1-grams,
// 26,427 2-grams and 58,012 3-grams in langdetect 1.0.9).
type gramTable struct {
	slots []uint64 // key<<16 | id; 0 = empty (keys are never 0)
	shift uint
	n     int
}

// maxTableIDs is the number of ids a table can give (16 bits).
const maxTableIDs = 1 << 16

func newGramTable(capacity int) *gramTable {
	size, shift := 1, uint(64)
	for size < 2*capacity {
		size <<= 1
		shift--
	}
	return &gramTable{slots: make([]uint64, size), shift: shift}
}

func (t *gramTable) slot(key uint64) int {
	return int((key * 0x9e3779b97f4a7c15) >> t.shift)
}

// lookup returns the id of key.
func (t *gramTable) lookup(key uint64) (int32, bool) {
	mask := len(t.slots) - 1
	for i := t.slot(key); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s>>16 == key {
			return int32(s & 0xffff), true
		}
		if s == 0 {
			return 0, false
		}
	}
}

// getOrInsert returns the id of key, giving it the next id if it is new;
// ok is false when the table is full.
func (t *gramTable) getOrInsert(key uint64) (id int32, inserted, ok bool) {
	mask := len(t.slots) - 1
	for i := t.slot(key); ; i = (i + 1) & mask {
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
