package match

import (
	"encoding/json"
	"os"
	"testing"
)

// exact.json holds lm-evaluation-harness's own exact_match verdicts; see
// testdata/make_exact.py.
func TestExactMatchesLMEval(t *testing.T) {
	raw, err := os.ReadFile("testdata/exact.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Prediction string `json:"prediction"`
		Reference  string `json:"reference"`
		Kwargs     struct {
			IgnoreCase        bool     `json:"ignore_case"`
			IgnorePunctuation bool     `json:"ignore_punctuation"`
			IgnoreNumbers     bool     `json:"ignore_numbers"`
			RegexesToIgnore   []string `json:"regexes_to_ignore"`
		} `json:"kwargs"`
		ExactMatch float64 `json:"exact_match"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		res, err := CompileRegexes(c.Kwargs.RegexesToIgnore)
		if err != nil {
			t.Fatal(err)
		}
		o := ExactOptions{IgnoreCase: c.Kwargs.IgnoreCase, IgnorePunctuation: c.Kwargs.IgnorePunctuation, IgnoreNumbers: c.Kwargs.IgnoreNumbers, RegexesToIgnore: res}
		got, err := o.Exact(c.Prediction, c.Reference)
		if err != nil {
			t.Fatal(err)
		}
		if got != (c.ExactMatch == 1) {
			t.Errorf("Exact(%q, %q, %+v) = %v, lm-eval %v", c.Prediction, c.Reference, c.Kwargs, got, c.ExactMatch)
		}
	}
}

func TestNormalize(t *testing.T) {
	check := func(in, want string) {
		t.Helper()
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	check("The  Eiffel Tower!", "eiffel tower")
	check("  an Apple, a day ", "apple day")
	check("ＰＬＡＹ＿ＭＵＳＩＣ", "playmusic")
	check("北京市，海淀区。", "北京市海淀区")
	check("张　三", "张 三")
	check("$5.00", "500")
}

func TestNormalizedAndPrefix(t *testing.T) {
	for _, c := range []struct {
		pred, target string
		norm, prefix bool
	}{
		{"北京天安门。", "北京天安门", true, true},
		{"北京天安门广场", "北京天安门", false, true},
		{"New York City", "new york", false, true},
		{"New Yorker", "new york", false, false},
		{"the weather", "Weather!", true, true},
		{"weather", "weather forecast", false, false},
		{"anything", "", false, false},
		{"", "", true, false},
	} {
		if got := Normalized(c.pred, c.target); got != c.norm {
			t.Errorf("Normalized(%q, %q) = %v, want %v", c.pred, c.target, got, c.norm)
		}
		if got := Prefix(c.pred, c.target); got != c.prefix {
			t.Errorf("Prefix(%q, %q) = %v, want %v", c.pred, c.target, got, c.prefix)
		}
	}
}

func TestCompileRegexesNamesThePattern(t *testing.T) {
	_, err := CompileRegexes([]string{"(?<=x)y", "(?P<a"})
	if err == nil || err.Error()[:len("regexes_to_ignore[1]")] != "regexes_to_ignore[1]" {
		t.Fatalf("err = %v", err)
	}
}
