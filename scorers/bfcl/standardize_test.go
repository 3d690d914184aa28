package bfcl

import (
	"regexp"
	"strings"
	"testing"
)

var standardizeRef = regexp.MustCompile(`[ ,./\-_*^]`)

var standardizeSeeds = []string{"", "New York, NY", "a_b-c.d/e*f^g h", "O'Brien", "ÉCOLE-Été", "\xff-\xfe_x", "İstanbul", "KELVIN K"}

func checkStandardize(t *testing.T, s string) {
	want := strings.ReplaceAll(strings.ToLower(standardizeRef.ReplaceAllString(s, "")), "'", `"`)
	if got := standardize(s); got != want {
		t.Fatalf("standardize(%q) = %q, want %q", s, got, want)
	}
}

// TestStandardizeAsRegexp: BFCL's standardize_string without a regular
// expression gives what the expression gave.
func TestStandardizeAsRegexp(t *testing.T) {
	for _, s := range standardizeSeeds {
		checkStandardize(t, s)
	}
}

func FuzzStandardize(f *testing.F) {
	for _, s := range standardizeSeeds {
		f.Add(s)
	}
	f.Fuzz(checkStandardize)
}
