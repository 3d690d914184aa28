package bfcl

import (
	"math/big"
	"testing"
)

// TestReprInOneBuffer: repr written into one buffer is what it was when
// each part was a string of its own (Python's repr; complex numbers as
// this package has always written them).
func TestReprInOneBuffer(t *testing.T) {
	d := &Dict{}
	d.Set("a'b", Tuple{int64(1)})
	d.Set(int64(2), []any{nil, true, false, 1.5, Bytes("x\ny"), Tuple{}, Tuple{"q", `"`}})
	n, _ := new(big.Int).SetString("-123456789012345678901234567890", 10)
	d.Set("n", []any{n, complex(1, -2), 1e22, "it's \"x\"\t\\"})
	want := `{"a'b": (1,), 2: [None, True, False, 1.5, b'x\ny', (), ('q', '"')], 'n': [-123456789012345678901234567890, (1.0+-2.0j), 1e+22, 'it\'s "x"\t\\']}`
	if got := Repr(d); got != want {
		t.Errorf("Repr:\n%s\nwant\n%s", got, want)
	}
	if got := Repr(Oversized{Type: "str", Size: 7}); got != "<str of 7 items or characters, not built>" {
		t.Errorf("Repr(Oversized) = %s", got)
	}
}
