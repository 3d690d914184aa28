package langdetect

import (
	"archive/tar"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The published data, verbatim from Debian's python3-langdetect 1.0.9-1
// (profiles/PROVENANCE.json lists the sha256 of every file; import.sh
// rebuilds the archive): the 55 language profiles and messages.properties,
// which holds the CJK and Vietnamese normalisation tables.
//
//go:embed profiles/PROVENANCE.json
var dataFS embed.FS

// archive is the embedded profiles/profiles.tar.gz, used in place (a
// string, not a copy as embed.FS.ReadFile would make).
//
//go:embed profiles/profiles.tar.gz
var archive string

const archivePath = "profiles/profiles.tar.gz"

// archiveSHA256 is the sha256 of archive, which names the model cache
// (TestArchiveSHA256 checks it): hashing the megabyte at every start would
// cost more than reading the cache.
const archiveSHA256 = "a828d2ee0d008161cb80c9152ef0ae0ab21fbe6c223e037714029abf95cbf0cc"

// entry is one language's probability for an n-gram and the count it is
// computed from (while the model is built).
type entry struct {
	lang  uint8
	count int64
	p     float64
}

// maxEntryCount bounds the count an entry holds.
const maxEntryCount = 1<<24 - 1

// entryProb is the probability of entry e: 1.0 * count / n_words[n-1] in
// float64, as add_profile computes it (the same division of the same two
// doubles, so the same bits).
func (m *model) entryProb(e uint32) float64 {
	return float64(e>>8) / m.nWords[uint8(e)]
}

// model is langdetect's DetectorFactory after load_profile, laid out for
// speed: word_lang_prob_map becomes, per n-gram id, the list of languages
// whose probability is non-zero, with those probabilities.
type model struct {
	langs []string
	// grams[n-1] maps the n-grams of length n to ids, those with a dense
	// row first: an n-gram whose id there is below nDense[n-1] has row
	// denseBase[n-1] + id (see rows), any other the sparse index
	// base[n-1] + id (see start). extract hands update the sparse index,
	// or the bitwise complement of the row (negative), so that no table
	// per n-gram says which kind it is.
	grams     [3]*gramTable
	base      [3]int32
	nDense    [3]int32
	denseBase [3]int32
	// suffixClosed: see checkSuffixClosed.
	suffixClosed bool
	// The languages and probabilities of the n-gram of sparse index i are
	// entries[start[i]] to entries[start[i+1]-1], in language order. An
	// entry is not the probability but what add_profile divides to get it:
	// the n-gram's count in the language's profile, count<<8 | (n-1)<<6 |
	// language, the count at most 24 bits (3,435,630 at most in langdetect
	// 1.0.9); nWords[entry&0xff] is n_words[n-1] of the language. Four
	// bytes rather than a float64 and a language byte: half the pages,
	// which every process pays to touch, for a division at use (see
	// entryProb).
	start   []int32
	entries []uint32
	nWords  *[256]float64
	// Row r, rows[r*len(langs):(r+1)*len(langs)], is an n-gram's
	// probabilities for every language (zeros included), kept for the
	// n-grams found in many languages, for which update is faster with a
	// full row.
	rows []float64

	latin1Excluded [0x100]bool
	cjk            []rune    // CJK Unified Ideograph - 0x4e00 → representative, 0 if none
	viBase         []rune    // TO_NORMALIZE_VI_CHARS
	viMarks        []rune    // DMARK_CLASS
	viChars        [5][]rune // NORMALIZED_VI_CHARS_0300 ... _0323
}

// loadModel builds the model from the embedded archive on first use, or
// reads it from the model cache (cache.go) that an earlier build wrote.
var loadModel = sync.OnceValues(func() (*model, error) {
	path := cachePath(archiveSHA256)
	if m, err := readCache(path); err == nil {
		return m, nil
	}
	files, err := readArchive(archive)
	if err != nil {
		return nil, err
	}
	m, err := buildModel(files)
	if err == nil {
		writeCache(path, m) // best effort: the next process reads it
	}
	return m, err
})

// readArchive returns the files of the archive by name.
func readArchive(raw string) (map[string][]byte, error) {
	zr, err := gzip.NewReader(strings.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("langdetect: read %s: %w", archivePath, err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("langdetect: read %s: %w", archivePath, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("langdetect: read %s: %s: %w", archivePath, h.Name, err)
		}
		files[h.Name] = b
	}
	return files, nil
}

// denseMin is the number of languages from which an n-gram gets a full
// row of probabilities (about 1,700 n-grams, 0.7 MB).
const denseMin = 18

// tableCapacity bounds the distinct n-grams of each length (at most 58,012
// in langdetect 1.0.9) for the size of the lookup tables while the model
// is built (the model's are then sized to the n-grams, see compact).
var tableCapacity = [3]int{1 << 13, 1 << 15, 1 << 16}

func buildModel(files map[string][]byte) (*model, error) {
	m := &model{nWords: new([256]float64)}
	for i, c := range tableCapacity {
		m.grams[i] = newGramTable(2 * c)
	}
	if err := m.loadMessages(files["messages.properties"]); err != nil {
		return nil, err
	}
	var names []string
	for name := range files {
		if strings.HasPrefix(name, "profiles/") {
			names = append(names, name)
		}
	}
	// langdetect takes the profiles in os.listdir order, which depends on
	// the file system; pocketeval takes them sorted by name (docs/ifeval.md).
	sort.Strings(names)
	if len(names) < 2 || len(names) > 64 {
		return nil, fmt.Errorf("langdetect: %d profiles in %s, want 2 to 64", len(names), archivePath)
	}
	// Entries are chained per n-gram while reading (profiles come in
	// language order, so each chain is in language order) and laid out
	// contiguously at the end.
	type link struct {
		entry
		next int32
	}
	type gramCount struct {
		key   uint64
		n     int // runes in the n-gram
		count int64
	}
	links := make([]link, 0, 1<<18)
	// head[n-1][id] and tail[n-1][id] are the first and last links of an
	// n-gram's chain.
	var head, tail [3][]int32
	var freq []gramCount
	for i, name := range names {
		freq = freq[:0]
		var unsupported []byte
		code, nWords, err := parseProfile(files[name], func(word []byte, count int64) {
			switch key, n := gramKey(word); {
			case n > 0: // langdetect keeps 1- to 3-grams
				freq = append(freq, gramCount{key, n, count})
			case n < 0 && unsupported == nil:
				unsupported = append([]byte(nil), word...)
			}
		})
		if err != nil {
			return nil, fmt.Errorf("langdetect: profile %s: %w", name, err)
		}
		if unsupported != nil {
			return nil, fmt.Errorf("langdetect: profile %s: n-gram %q has a character outside U+0001–U+FFFF", name, unsupported)
		}
		if code != path.Base(name) || len(nWords) != 3 {
			return nil, fmt.Errorf("langdetect: profile %s: name %q, %d n_words: not a langdetect profile", name, code, len(nWords))
		}
		m.langs = append(m.langs, code)
		for l, n := range nWords {
			m.nWords[l<<6|i] = float64(n)
		}
		for _, f := range freq {
			l := f.n - 1
			id, inserted, ok := m.grams[l].getOrInsert(f.key)
			if !ok {
				return nil, fmt.Errorf("langdetect: more than %d distinct %d-grams", tableCapacity[l], f.n)
			}
			if inserted {
				head[l] = append(head[l], -1)
				tail[l] = append(tail[l], -1)
			}
			n := nWords[l]
			if n == 0 {
				return nil, fmt.Errorf("langdetect: profile %s: n_words[%d] is 0", name, l)
			}
			// 1.0 * freq / n_words[len-1] in float64, as add_profile.
			p := float64(f.count) / float64(n)
			if p == 0 {
				continue
			}
			links = append(links, link{entry{uint8(i), f.count, p}, -1})
			at := int32(len(links) - 1)
			if tail[l][id] < 0 {
				head[l][id] = at
			} else {
				links[tail[l][id]].next = at
			}
			tail[l][id] = at
		}
	}
	total := len(head[0]) + len(head[1]) + len(head[2])
	nl := len(m.langs)
	m.start = make([]int32, 0, total+1)
	for l := range head {
		// The n-grams with a dense row take the first ids, in the order
		// of their old ids, and the others the next. The n-grams most
		// frequent in text (by their probabilities summed over the
		// languages) are placed in the table first (see compact): byRank
		// sorts by that sum, highest first (its top 48 bits), then by id.
		var dense, sparse []int
		byRank := make([]uint64, len(head[l]))
		for id := range head[l] {
			n, sum := 0, 0.0
			for at := head[l][id]; at >= 0; at = links[at].next {
				n++
				sum += links[at].p
			}
			byRank[id] = ^math.Float64bits(sum)&^0xffff | uint64(id)
			if n >= denseMin {
				dense = append(dense, id)
			} else {
				sparse = append(sparse, id)
			}
		}
		newID := make([]uint64, len(head[l]))
		m.nDense[l] = int32(len(dense))
		m.denseBase[l] = int32(len(m.rows) / nl)
		m.base[l] = int32(len(m.start)) - m.nDense[l]
		for i, id := range dense {
			newID[id] = uint64(i)
			row := make([]float64, nl)
			for at := head[l][id]; at >= 0; at = links[at].next {
				row[links[at].lang] = links[at].p
			}
			m.rows = append(m.rows, row...)
		}
		for i, id := range sparse {
			newID[id] = uint64(len(dense) + i)
			m.start = append(m.start, int32(len(m.entries)))
			for at := head[l][id]; at >= 0; at = links[at].next {
				e := links[at].entry
				if e.count < 0 || e.count > maxEntryCount {
					return nil, fmt.Errorf("langdetect: profile %s: an n-gram's count %d is outside 0 to %d", m.langs[e.lang], e.count, maxEntryCount)
				}
				m.entries = append(m.entries, uint32(e.count)<<8|uint32(l)<<6|uint32(e.lang))
			}
		}
		slices.Sort(byRank)
		order := make([]int, len(byRank))
		for i, r := range byRank {
			order[i] = int(r & 0xffff)
		}
		m.grams[l] = m.grams[l].compact(order, newID)
	}
	m.start = append(m.start, int32(len(m.entries)))
	m.suffixClosed = m.checkSuffixClosed()
	return m, nil
}

// checkSuffixClosed reports whether every 2- and 3-gram's suffix one rune
// shorter is an n-gram too (except the 1-gram " ", which is never one).
// Profiles are counted over a sliding window, so each occurrence of "abc"
// is also one of "bc" and "c"; when that holds, extraction stops looking
// for longer n-grams at the first shorter one missing.
func (m *model) checkSuffixClosed() bool {
	for l := 1; l < 3; l++ {
		for _, s := range m.grams[l].slots {
			if s == 0 {
				continue
			}
			suffix := (s >> 16) & (1<<(16*l) - 1)
			if suffix == ' ' {
				continue
			}
			if _, ok := m.grams[l-1].lookup(suffix); !ok {
				return false
			}
		}
	}
	return true
}

// gramKey packs a 1- to 3-rune n-gram into an integer, 16 bits a rune,
// and returns its length: 0 for a longer one (langdetect ignores them),
// -1 for one the tables cannot hold, with a NUL or a rune above U+FFFF
// (langdetect's profiles have none).
func gramKey(s []byte) (uint64, int) {
	var k uint64
	n := 0
	for _, r := range string(s) {
		if r == 0 || r > 0xffff {
			return 0, -1
		}
		k = k<<16 | uint64(r)
		n++
	}
	if n > 3 {
		return 0, 0
	}
	return k, n
}

// loadMessages reads the tables NGram takes from messages.properties.
func (m *model) loadMessages(data []byte) error {
	if data == nil {
		return fmt.Errorf("langdetect: messages.properties missing from %s", archivePath)
	}
	msgs := map[string][]rune{}
	var kanji [][]rune
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, _ := strings.Cut(line, "=")
		rs, err := unescape(value)
		if err != nil {
			return fmt.Errorf("langdetect: messages.properties:%d: %s: %w", i+1, key, err)
		}
		msgs[key] = rs
		// NGram.CJK_CLASS lists every NGram.KANJI_* key in file order.
		if strings.HasPrefix(key, "NGram.KANJI_") {
			kanji = append(kanji, rs)
		}
	}
	get := func(key string) ([]rune, error) {
		rs, ok := msgs[key]
		if !ok {
			return nil, fmt.Errorf("langdetect: messages.properties: %s missing", key)
		}
		return rs, nil
	}
	excl, err := get("NGram.LATIN1_EXCLUDE")
	if err != nil {
		return err
	}
	for _, r := range excl {
		if r < 0x100 {
			m.latin1Excluded[r] = true
		}
	}
	if len(kanji) == 0 {
		return fmt.Errorf("langdetect: messages.properties: no NGram.KANJI_* classes")
	}
	m.cjk = make([]rune, cjkLast-cjkFirst+1)
	for _, class := range kanji {
		for _, r := range class {
			if r < cjkFirst || r > cjkLast {
				return fmt.Errorf("langdetect: messages.properties: %U in a KANJI class is not a CJK Unified Ideograph", r)
			}
			m.cjk[r-cjkFirst] = class[0]
		}
	}
	if m.viBase, err = get("TO_NORMALIZE_VI_CHARS"); err != nil {
		return err
	}
	if m.viMarks, err = get("DMARK_CLASS"); err != nil {
		return err
	}
	for i, mark := range []string{"0300", "0301", "0303", "0309", "0323"} {
		if m.viChars[i], err = get("NORMALIZED_VI_CHARS_" + mark); err != nil {
			return err
		}
		if len(m.viChars[i]) != len(m.viBase) {
			return fmt.Errorf("langdetect: messages.properties: NORMALIZED_VI_CHARS_%s has %d characters for %d bases", mark, len(m.viChars[i]), len(m.viBase))
		}
	}
	if len(m.viMarks) != 5 {
		return fmt.Errorf("langdetect: messages.properties: DMARK_CLASS has %d marks, want 5", len(m.viMarks))
	}
	for _, r := range m.viMarks {
		if r < 0x0300 || r > 0x0323 { // normalizeVI looks for marks in this range only
			return fmt.Errorf("langdetect: messages.properties: DMARK_CLASS mark %U outside U+0300–U+0323", r)
		}
	}
	return nil
}

// unescape decodes a properties value: \uXXXX escapes and plain
// characters.
func unescape(s string) ([]rune, error) {
	var out []rune
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			r := []rune(s[i:])[0]
			out = append(out, r)
			i += len(string(r))
			continue
		}
		if i+6 > len(s) || s[i+1] != 'u' {
			return nil, fmt.Errorf("unsupported escape at byte %d", i)
		}
		v, err := strconv.ParseUint(s[i+2:i+6], 16, 32)
		if err != nil {
			return nil, fmt.Errorf("bad \\u escape at byte %d: %w", i, err)
		}
		out = append(out, rune(v))
		i += 6
	}
	return out, nil
}
