package textstats

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"unicode"
)

// pyTables is testdata/pycase.json (gen_pycase.py, CPython 3.11).
type pyTables struct {
	Unicode       string    `json:"unicode"`
	Upper         [][2]rune `json:"upper"`
	Lower         [][2]rune `json:"lower"`
	Title         [][2]rune `json:"title"`
	CaseIgnorable [][2]rune `json:"case_ignorable"`
	Unassigned    [][2]rune `json:"unassigned"`
	LowerMap      [][2]any  `json:"lower_map"`
}

func inRanges(rs [][2]rune, r rune) bool {
	lo, hi := 0, len(rs)
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < rs[m][0]:
			hi = m
		case r > rs[m][1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

// TestPythonCaseTables compares the per-character predicates and Lower
// with CPython's on every code point Unicode 14.0 assigns.
func TestPythonCaseTables(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "pycase.json"))
	if err != nil {
		t.Fatal(err)
	}
	var py pyTables
	if err := json.Unmarshal(b, &py); err != nil {
		t.Fatal(err)
	}
	lowerMap := map[rune]string{}
	for _, e := range py.LowerMap {
		lowerMap[rune(e[0].(float64))] = e[1].(string)
	}
	bad := 0
	check := func(what string, r rune, got, want bool) {
		if got != want {
			bad++
			if bad <= 20 {
				t.Errorf("%s(%U %q) = %v, CPython %s %v", what, r, r, got, py.Unicode, want)
			}
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xd800 <= r && r <= 0xdfff || inRanges(py.Unassigned, r) {
			continue
		}
		check("IsUpperRune", r, IsUpperRune(r), inRanges(py.Upper, r))
		check("IsLowerRune", r, IsLowerRune(r), inRanges(py.Lower, r))
		check("isTitleRune", r, isTitleRune(r), inRanges(py.Title, r))
		check("isCaseIgnorable", r, isCaseIgnorable(r), inRanges(py.CaseIgnorable, r))
		want, ok := lowerMap[r]
		if !ok {
			want = string(r)
		}
		if got := Lower(string(r)); got != want {
			bad++
			if bad <= 20 {
				t.Errorf("Lower(%U %q) = %q, CPython %q", r, r, got, want)
			}
		}
	}
}

func TestPythonCase(t *testing.T) {
	for _, tt := range []struct {
		in           string
		upper, lower bool
	}{
		{"HELLO WORLD", true, false},
		{"hello world", false, true},
		{"Hello", false, false},
		{"123 !!", false, false},
		{"", false, false},
		{"长城 ABC", true, false},
		{"长城 abc", false, true},
		{"长城", false, false},
		{"Ⅻ", true, false}, // Other_Uppercase
		{"ⅻ", false, true}, // Other_Lowercase
		{"ª", false, true}, // Lo + Other_Lowercase
		{"º and more", false, true},
		{"THE Ⅻ CHAPTERS", true, false},
		{"the ⅻ chapters", false, true},
		{"ǅ", false, false},     // titlecase only
		{"ABC ǅ", false, false}, // titlecase breaks isupper
		{"abc ǅ", false, false},
		{"Ⓐ Ⓑ", true, false}, // circled capitals
		{"ʰ", false, true},   // modifier letter, Other_Lowercase
		{"ß", false, true},
		{"ÀÉÎ 1", true, false},
		{"ÉCOLE", true, false},
		{"你好 ABC", true, false},
	} {
		if got := IsUpper(tt.in); got != tt.upper {
			t.Errorf("IsUpper(%q) = %v, want %v", tt.in, got, tt.upper)
		}
		if got := IsLower(tt.in); got != tt.lower {
			t.Errorf("IsLower(%q) = %v, want %v", tt.in, got, tt.lower)
		}
	}
	for in, want := range map[string]string{
		"HELLO":          "hello",
		"ΟΔΟΣ":           "οδος",
		"ΟΔΟΣ.":          "οδος.",
		"ΣΑΣ ΣΟΦΟΣ":      "σας σοφος",
		"Σ":              "σ",
		"ΑΣ'Α":           "ασ'α",
		"Α.Σ":            "α.ς",
		"İstanbul":       "i\u0307stanbul",
		"ǅ Ⅻ":            "ǆ ⅻ",
		"ÀÉÎ":            "àéî",
		"MIXED Case 123": "mixed case 123",
	} {
		if got := Lower(in); got != want {
			t.Errorf("Lower(%q) = %q, want %q", in, got, want)
		}
	}
}
