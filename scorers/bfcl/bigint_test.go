package bfcl

import (
	"math/big"
	"strings"
	"testing"
)

// TestIntsPast64Bits: Python's ints have no size, so BFCL decodes an
// answer's integer of any size (up to Python 3.11's 4,300 decimal digits
// of a literal or JSON number) and compares it exactly, with ints and with
// floats; arithmetic past 64 bits gives Python's results.
func TestIntsPast64Bits(t *testing.T) {
	const huge = "123456789012345678901234567890"
	calls, err := DecodePrompt(V4, "[f(a="+huge+", b=-9223372036854775808, c=2**64, e=10**30, g=2**70//3, h=(2**64)/2, i=0x"+strings.Repeat("f", 20)+")]")
	if err != nil {
		t.Fatal(err)
	}
	args := calls[0].(*Dict).Values()[0].(*Dict)
	want := map[string]string{"a": huge, "b": "-9223372036854775808", "c": "18446744073709551616",
		"e": "1000000000000000000000000000000", "g": "393530540239137101141", "i": "1208925819614629174706175"}
	for k, w := range want {
		v, _ := args.Get(k)
		if got := repr(v); got != w {
			t.Errorf("%s = %s, want %s", k, got, w)
		}
		if pyType(v) != "int" {
			t.Errorf("%s is %s", k, pyType(v))
		}
	}
	if v, _ := args.Get("h"); v != float64(1<<63) {
		t.Errorf("(2**64)/2 = %#v, want the float 2**63", v)
	}
	// BFCL's resolver takes a UnaryOp's operand's .value: -(2**63) is
	// a decode failure there, and here.
	if _, err := DecodePrompt(V4, "[f(d=-(2**63))]"); err == nil {
		t.Error("-(2**63) decoded")
	}

	fromJSON, err := ParseJSON([]byte(`[` + huge + `, -` + huge + `, 18446744073709551616]`))
	if err != nil {
		t.Fatal(err)
	}
	js := fromJSON.([]any)
	a, _ := args.Get("a")
	c, _ := args.Get("c")
	e, _ := args.Get("e")
	for _, tc := range []struct {
		x, y any
		eq   bool
	}{
		{a, js[0], true},
		{a, js[1], false},
		{c, js[2], true},
		{c, float64(1 << 64), true}, // 2**64 == 18446744073709551616.0
		{e, 1e30, false},            // 10**30 != 1e30 (the float is 10**30 + 2**...)
		{e, complex(1e30, 0), false},
		{c, complex(float64(1<<64), 0), true},
		{c, int64(1), false},
		{new(big.Int).Lsh(big.NewInt(1), 2000), 1e300, false},
	} {
		if got := pyEqual(tc.x, tc.y); got != tc.eq {
			t.Errorf("%s == %s: %v, want %v", repr(tc.x), repr(tc.y), got, tc.eq)
		}
		if got := pyEqual(tc.y, tc.x); got != tc.eq {
			t.Errorf("%s == %s: %v, want %v", repr(tc.y), repr(tc.x), got, tc.eq)
		}
	}

	// Python 3.11 refuses a decimal literal or JSON integer of more than
	// 4,300 digits (int_max_str_digits); a hexadecimal one is any size.
	if _, err := DecodePrompt(V4, "[f(a="+strings.Repeat("9", 4300)+")]"); err != nil {
		t.Errorf("4300 digits: %v", err)
	}
	if _, err := DecodePrompt(V4, "[f(a="+strings.Repeat("9", 4301)+")]"); err == nil {
		t.Error("4301 digits decoded")
	}
	if _, err := ParseJSON([]byte(strings.Repeat("9", 4301))); err == nil {
		t.Error("a JSON integer of 4301 digits decoded")
	}
	if _, err := ParseJSON([]byte("-" + strings.Repeat("9", 4300))); err != nil {
		t.Errorf("a JSON integer of 4300 digits: %v", err)
	}
}

// TestBigIntVerdicts: an int answer past 64 bits is a call the checker
// judges (a wrong value), not a decode failure; the same int in the
// possible answers is a match.
func TestBigIntVerdicts(t *testing.T) {
	fn, _ := ParseJSON([]byte("[" + triangleFn + "]"))
	ans, _ := ParseJSON([]byte(`[{"calculate_triangle_area": {"base": [10, 123456789012345678901234567890], "height": [5]}}]`))
	for _, c := range []struct{ text, want string }{
		{"[calculate_triangle_area(base=123456789012345678901234567890, height=5)]", ""},
		{"[calculate_triangle_area(base=123456789012345678901234567891, height=5)]", "value_error:others"},
		{"[calculate_triangle_area(base=10**29, height=5)]", "value_error:others"},
	} {
		v := Checker{Version: V4}.Evaluate("simple", false, fn, ans, c.text)
		if v.ErrorType != c.want || v.Valid != (c.want == "") {
			t.Errorf("%s: valid=%v %s, want %q (%.200s)", c.text, v.Valid, v.ErrorType, c.want, fmtErrors(v))
		}
	}
}
