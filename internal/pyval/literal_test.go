package pyval

import (
	"encoding/json"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// literals.json is written by testdata/make_literals.py with CPython
// (ast.literal_eval of each source).
type literalCase struct {
	Src  string          `json:"src"`
	Want json.RawMessage `json:"want"`
}

type literalWant struct {
	Str   []rune `json:"str"`
	Bytes []int  `json:"bytes"`
	Repr  string `json:"repr"`
	Type  string `json:"type"`
}

func loadLiterals(t *testing.T) (strs, nums []literalCase) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "literals.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Strings, Numbers []literalCase }
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	return f.Strings, f.Numbers
}

func want(t *testing.T, c literalCase) (literalWant, bool) {
	if string(c.Want) == `"error"` {
		return literalWant{}, false
	}
	var w literalWant
	if err := json.Unmarshal(c.Want, &w); err != nil {
		t.Fatal(err)
	}
	return w, true
}

// TestUnquoteMatchesCPython: every string literal decodes to what
// CPython makes of it, or fails where CPython fails.
func TestUnquoteMatchesCPython(t *testing.T) {
	strs, _ := loadLiterals(t)
	for _, c := range strs {
		w, ok := want(t, c)
		q := strings.IndexAny(c.Src, `'"`)
		prefix := strings.ToLower(c.Src[:q])
		got, n, err := Unquote(c.Src[q:], Quote{Raw: strings.Contains(prefix, "r"), Bytes: strings.Contains(prefix, "b"), Triple: true})
		if err == nil && n != len(c.Src)-q {
			err = errTrailing
		}
		switch {
		case !ok && err == nil:
			t.Errorf("%s: got %q, CPython refuses it", c.Src, got)
		case ok && err != nil:
			t.Errorf("%s: %v", c.Src, err)
		case ok && w.Bytes != nil:
			var b []int
			for i := 0; i < len(got); i++ {
				b = append(b, int(got[i]))
			}
			if !slices.Equal(b, w.Bytes) {
				t.Errorf("%s: bytes %v, CPython %v", c.Src, b, w.Bytes)
			}
		case ok && !slices.Equal([]rune(got), w.Str):
			t.Errorf("%s: %q, CPython %q", c.Src, got, string(w.Str))
		}
	}
}

var errTrailing = &trailing{}

type trailing struct{}

func (*trailing) Error() string { return "literal does not span the source" }

// TestNumberMatchesCPython: every number literal has CPython's value and
// type, integers past 64 bits included, or fails where CPython fails.
func TestNumberMatchesCPython(t *testing.T) {
	_, nums := loadLiterals(t)
	for _, c := range nums {
		w, ok := want(t, c)
		v, n, err := Number(c.Src)
		if err == nil && n != len(c.Src) {
			err = errTrailing
		}
		if !ok {
			if err == nil {
				t.Errorf("%s: got %v, CPython refuses it", c.Src, v)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.Src, err)
			continue
		}
		var repr, typ string
		switch x := v.(type) {
		case int64:
			repr, typ = strconv.FormatInt(x, 10), "int"
		case *big.Int:
			repr, typ = x.String(), "int"
		case float64:
			repr, typ = FloatRepr(x), "float"
		case complex128:
			repr, typ = strings.TrimSuffix(FloatRepr(imag(x)), ".0")+"j", "complex"
		}
		if repr != w.Repr || typ != w.Type {
			t.Errorf("%s: %s %s, CPython %s %s", c.Src, typ, repr, w.Type, w.Repr)
		}
	}
}
