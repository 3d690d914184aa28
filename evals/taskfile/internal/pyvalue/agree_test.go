package pyvalue

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/internal/pyval"
	"github.com/pocketeval/pocketeval/scorers/bfcl"
)

// TestLiteralsAgree: the three readers of Python text (task files'
// literal_eval, the Jinja engine, BFCL's decoder) give every string and
// number literal of internal/pyval's CPython goldens the same value, as
// they decode literals through internal/pyval: \N{…} escapes included.
// Literals a grammar does not have (prefixes and triple quotes in Jinja,
// bytes, complex numbers and integers past 64 bits where the value
// model has none) are left out for that reader.
func TestLiteralsAgree(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "internal", "pyval", "testdata", "literals.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Strings, Numbers []struct {
			Src  string          `json:"src"`
			Want json.RawMessage `json:"want"`
		}
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range append(f.Strings, f.Numbers...) {
		if string(c.Want) == `"error"` || strings.Contains(string(c.Want), `"bytes"`) || strings.Contains(string(c.Want), `"complex"`) {
			continue
		}
		lit, err := ParseLiteral(c.Src)
		if err != nil {
			if strings.Contains(err.Error(), "beyond 64 bits") {
				continue
			}
			t.Errorf("literal_eval %s: %v", c.Src, err)
			continue
		}
		want := Repr(lit)
		calls, err := bfcl.DecodePrompt(bfcl.V4, "[f(a="+c.Src+")]")
		if err != nil {
			t.Errorf("bfcl %s: %v", c.Src, err)
		} else {
			v, _ := calls[0].(*bfcl.Dict).Values()[0].(*bfcl.Dict).Get("a")
			got := bfcl.Repr(v)
			if s, ok := v.(string); ok {
				got = pyval.StringRepr(s) // bfcl.Repr quotes as BFCL prints, not as repr()
			}
			if got != want {
				t.Errorf("bfcl %s = %s, literal_eval %s", c.Src, got, want)
			}
		}
		if c.Src[0] == '\'' && !strings.HasPrefix(c.Src, "'''") && !strings.Contains(c.Src, "\\\n") {
			tm, err := jinja.Compile("t", "{{ "+c.Src+"|pprint }}")
			if err != nil {
				t.Errorf("jinja %s: %v", c.Src, err)
				continue
			}
			got, err := tm.Render(context.Background(), nil, jinja.DefaultLimits)
			if err != nil || got != want {
				t.Errorf("jinja %s = %s (%v), literal_eval %s", c.Src, got, err, want)
			}
		}
		n++
	}
	if n < 30 {
		t.Errorf("%d literals compared, want at least 30", n)
	}
}
