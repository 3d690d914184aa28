package pyvalue

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// cases.json is made by testdata/make_cases.py with CPython.
type cases struct {
	FloatRepr      [][2]json.RawMessage `json:"float_repr"`
	StringRepr     [][2]string          `json:"string_repr"`
	ValueRepr      [][2]json.RawMessage `json:"value_repr"`
	Literal        [][2]json.RawMessage `json:"literal"`
	BadLiteral     []string             `json:"bad_literal"`
	RefusedLiteral []string             `json:"refused_literal"`
}

func loadCases(t *testing.T) cases {
	t.Helper()
	raw, err := os.ReadFile("testdata/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var c cases
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// fromJSON decodes a case's JSON value.
func fromJSON(t *testing.T, raw json.RawMessage) Value {
	t.Helper()
	v, err := FromJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestReprMatchesCPython(t *testing.T) {
	c := loadCases(t)
	for _, fc := range c.FloatRepr {
		var f float64
		var want string
		json.Unmarshal(fc[0], &f)
		json.Unmarshal(fc[1], &want)
		if want == "-0.0" {
			f = math.Copysign(0, -1) // JSON loses the sign of zero
		}
		if got := pyval.FloatRepr(f); got != want {
			t.Errorf("pyval.FloatRepr(%v) = %q, want %q", f, got, want)
		}
	}
	for _, sc := range c.StringRepr {
		if got := pyval.StringRepr(sc[0]); got != sc[1] {
			t.Errorf("pyval.StringRepr(%q) = %s, want %s", sc[0], got, sc[1])
		}
	}
	for _, vc := range c.ValueRepr {
		var want string
		json.Unmarshal(vc[1], &want)
		if got := Repr(fromJSON(t, vc[0])); got != want {
			t.Errorf("Repr(%s) = %s, want %s", vc[0], got, want)
		}
	}
	for f, want := range map[float64]string{math.Inf(1): "inf", math.Inf(-1): "-inf", math.NaN(): "nan"} {
		if got := pyval.FloatRepr(f); got != want {
			t.Errorf("pyval.FloatRepr(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestParseLiteralMatchesCPython(t *testing.T) {
	c := loadCases(t)
	for _, lc := range c.Literal {
		var src string
		json.Unmarshal(lc[0], &src)
		got, err := ParseLiteral(src)
		if err != nil {
			t.Errorf("ParseLiteral(%q): %v", src, err)
			continue
		}
		want := fromJSON(t, lc[1])
		if Repr(got) != Repr(want) || got.IsFloat() != want.IsFloat() {
			t.Errorf("ParseLiteral(%q) = %s, want %s", src, Repr(got), Repr(want))
		}
	}
	for _, src := range append(c.BadLiteral, c.RefusedLiteral...) {
		if v, err := ParseLiteral(src); err == nil {
			t.Errorf("ParseLiteral(%q) = %s, want an error", src, Repr(v))
		}
	}
}

func TestIsDigit(t *testing.T) {
	for s, want := range map[string]bool{"0": true, "123": true, "": false, "1.0": false, "-1": false, "١٢": true, " 1": false} {
		if got := IsDigit(s); got != want {
			t.Errorf("IsDigit(%q) = %v, want %v", s, got, want)
		}
	}
}
