package langdetect

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"path"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestProfilesMatchProvenance checks the embedded archive file by file
// against the sha256 sums PROVENANCE.json records for Debian's
// python3-langdetect 1.0.9-1.
func TestProfilesMatchProvenance(t *testing.T) {
	raw, err := dataFS.ReadFile("profiles/PROVENANCE.json")
	if err != nil {
		t.Fatal(err)
	}
	var prov struct {
		Version string            `json:"version"`
		Files   map[string]string `json:"files"`
	}
	if err := json.Unmarshal(raw, &prov); err != nil {
		t.Fatal(err)
	}
	if prov.Version != "1.0.9-1" {
		t.Errorf("provenance version %q, want 1.0.9-1", prov.Version)
	}
	files, err := archiveFiles()
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(prov.Files) || len(files) != 56 {
		t.Errorf("archive has %d files, provenance lists %d; want 55 profiles and messages.properties", len(files), len(prov.Files))
	}
	for name, data := range files {
		sum := sha256.Sum256(data)
		if got, want := hex.EncodeToString(sum[:]), prov.Files[name]; got != want {
			t.Errorf("%s: sha256 %s, provenance %q", name, got, want)
		}
	}
}

// TestParseProfileMatchesEncodingJSON reads every embedded profile with
// the fast parser and with encoding/json.
func TestParseProfileMatchesEncodingJSON(t *testing.T) {
	files, err := archiveFiles()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, data := range files {
		if !strings.HasPrefix(name, "profiles/") {
			continue
		}
		n++
		var want struct {
			Freq   map[string]int64 `json:"freq"`
			NWords []int64          `json:"n_words"`
			Name   string           `json:"name"`
		}
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := map[string]int64{}
		code, nWords, err := parseProfile(data, func(k []byte, v int64) { got[string(k)] = v })
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if code != want.Name || code != path.Base(name) || !reflect.DeepEqual(nWords, want.NWords) || !reflect.DeepEqual(got, want.Freq) {
			t.Errorf("%s: parseProfile differs from encoding/json", name)
		}
	}
	if n != 55 {
		t.Errorf("%d profiles, want 55", n)
	}
	for _, bad := range []string{`{"freq":{"a":1}`, `{"freq":{"a":x},"n_words":[1,2,3],"name":"en"}`, `{"other":1}`, `{"name":"a\q"}`, `{"name":"a"} x`} {
		if _, _, err := parseProfile([]byte(bad), func([]byte, int64) {}); err == nil {
			t.Errorf("parseProfile(%s) succeeded", bad)
		}
	}
	s := &jsonScanner{data: []byte(`"\u00e9\ud83d\ude00\ud800x\"\\\/\b\f\n\r\t"`)}
	got, err := s.str()
	if err != nil || string(got) != "é😀\uFFFDx\"\\/\b\f\n\r\t" {
		t.Errorf("str() = %q, %v", got, err)
	}
}

func TestLanguages(t *testing.T) {
	langs, err := Languages()
	if err != nil {
		t.Fatal(err)
	}
	if len(langs) != 55 || !sort.StringsAreSorted(langs) {
		t.Fatalf("Languages() = %v", langs)
	}
	for _, want := range []string{"en", "hi", "ne", "sw", "zh-cn", "zh-tw", "ca"} {
		if i := sort.SearchStrings(langs, want); i == len(langs) || langs[i] != want {
			t.Errorf("%s missing", want)
		}
	}
}

// TestRemoveURLs compares the hand-written URL scan with a regular
// expression equal to URL_RE below its 2,076-character cap, and checks
// the cap.
func TestRemoveURLs(t *testing.T) {
	re := regexp.MustCompile(`https?://[-_.?&~;+=/#0-9A-Za-z]+`)
	for _, s := range []string{
		"", "http://", "https://a", "xhttp://a b", "httphttps://ex.com/p?q=1#f rest",
		"http:/x https//y http://z", "see http://a.b/c, and https://d.e/f;g=h~i+j",
		"ünïcödé https://例え.jp/ok http://ok.org/ä", "http://" + strings.Repeat("a", 50),
	} {
		if got, want := removeURLs(s), re.ReplaceAllLiteralString(s, " "); got != want {
			t.Errorf("removeURLs(%q) = %q, want %q", s, got, want)
		}
	}
	long := "http://" + strings.Repeat("a", 3000)
	if got, want := removeURLs(long), " "+strings.Repeat("a", 3000-2076); got != want {
		t.Errorf("removeURLs(http:// + 3000 letters) keeps %d letters, want %d", len(got)-1, len(want)-1)
	}
}

// mailRE is detector.py's MAIL_RE, which Go's regexp matches as Python's
// re does (leftmost, greedy first): the reference of removeMails.
var mailRE = regexp.MustCompile(`[-_.0-9A-Za-z]{1,64}@[-_0-9A-Za-z]{1,255}[-_.0-9A-Za-z]{1,255}`)

// TestRemoveMails compares the scan with MAIL_RE on chosen texts, around
// the repetition caps, and on seeded random texts over the characters
// the expression looks at.
func TestRemoveMails(t *testing.T) {
	texts := []string{
		"", "@", "a@", "@b", "a@b", "a@bc", "a@b.", "a@.b", "a@b.c", "ab@cd@ef", "a@b@c@d", "x a.b@c.d-e_f, y",
		"mail me at john.doe@example.com or at jane@ex.org.", "a@-", "a@b-", ".@..", "-@-.", "a@@b", "é@b ü@ö a@bé",
		"x@y.z@w", "me@host.", "me@h.", "me@h!", "a@b\nc@d",
		strings.Repeat("a", 70) + "@b.c", strings.Repeat("a", 64) + "@bc", strings.Repeat("a", 65) + "@bc",
		"a@" + strings.Repeat("b", 300), "a@" + strings.Repeat("b", 255) + ".c", "a@" + strings.Repeat("b", 254) + ".c",
		"a@" + strings.Repeat("b", 256), "a@b" + strings.Repeat(".", 300), "a@b" + strings.Repeat("c.", 200),
	}
	pieces := []string{"a", "b", "Z", "0", "-", "_", ".", "@", " ", ",", "é", "@@", "..", strings.Repeat("x", 60), strings.Repeat("y.", 130)}
	r := rand.New(rand.NewPCG(3, 5))
	n := 4000
	if testing.Short() {
		n = 400
	}
	for range n {
		var b strings.Builder
		for range r.IntN(16) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		if got, want := removeMails(s), mailRE.ReplaceAllLiteralString(s, " "); got != want {
			t.Fatalf("removeMails(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzRemoveMails: the scan replaces what MAIL_RE matches.
func FuzzRemoveMails(f *testing.F) {
	for _, s := range []string{"john.doe@example.com, jane@ex.org.", "a@b", "a@b.", "x@y.z@w", strings.Repeat("a", 66) + "@b-c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := removeMails(s), mailRE.ReplaceAllLiteralString(s, " "); got != want {
			t.Fatalf("removeMails(%q) = %q, want %q", s, got, want)
		}
	})
}

func TestPrepare(t *testing.T) {
	m, err := loadModel()
	if err != nil {
		t.Fatal(err)
	}
	check := func(in, want string) {
		t.Helper()
		if got := string(m.prepare(in, nil)); got != want {
			t.Errorf("prepare(%q) = %q, want %q", in, got, want)
		}
	}
	// URLs and e-mail addresses become one space, spaces collapse.
	check("mail me at a.b@example.com  or  https://x.org now", "mail me at or now")
	// Vietnamese: a vowel + combining mark becomes the precomposed letter.
	// (U+0302, the circumflex, is not one of the five marks.)
	check("Ti\u00ea\u0301ng Vie\u0323\u0302t Tie\u0302\u0301ng", "Ti\u1ebfng Vi\u1eb9\u0302t Tie\u0302\u0301ng")
	check("a\u0300\u0300", "\u00e0\u0300")
	// Latin letters go when non-Latin characters outnumber them 2:1.
	check("Привет мир hi", "Привет мир ")
	check("Привет hello", "Привет hello")
	// Only the first 10,000 characters count.
	if got := m.prepare(strings.Repeat("ab ", 5000), nil); len(got) != 10000 {
		t.Errorf("prepare kept %d characters, want 10000", len(got))
	}
}

func TestNormalizeChar(t *testing.T) {
	m, err := loadModel()
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[rune]rune{
		'a': 'a', '1': ' ', '_': ' ', '\u00a0': ' ', '«': ' ', 'é': 'é', '×': '×',
		'ș': 'ş', 'ț': 'ţ', '\u2019': ' ', 'ی': 'ي', 'ạ': 'ể', 'ḁ': 'ḁ',
		'の': 'あ', 'ゲ': 'ア', 'ㄆ': 'ㄅ', '가': '가', '힣': '가', '😀': '😀',
	} {
		if got := m.normalizeChar(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
	// Chinese characters map to their class representative.
	if got := m.normalizeChar(m.cjk['丟'-cjkFirst]); got == 0 {
		t.Errorf("CJK class representative maps to 0")
	}
}

func TestDetectErrors(t *testing.T) {
	d := New(0)
	for _, s := range []string{"", "   ", "12345", "!!! ???", "😀😀", "— … “ ”"} {
		if _, err := d.Detect(s); !errors.Is(err, ErrNoFeatures) {
			t.Errorf("Detect(%q) err = %v, want ErrNoFeatures", s, err)
		}
	}
	if got, err := d.Detect("The committee met on Tuesday to review the budget."); err != nil || got != "en" {
		t.Errorf("Detect(English) = %q, %v", got, err)
	}
	if !utf8.ValidString(Unknown) || Unknown != "unknown" {
		t.Errorf("Unknown = %q", Unknown)
	}
}

// TestSuffixClosed checks the property extraction relies on to stop
// early: langdetect's profiles hold every suffix of their n-grams.
func TestSuffixClosed(t *testing.T) {
	m, err := loadModel()
	if err != nil {
		t.Fatal(err)
	}
	if !m.suffixClosed {
		t.Error("a profile n-gram's suffix is missing; extraction takes the slow path")
	}
}
