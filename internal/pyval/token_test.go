package pyval

import (
	"math/big"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	toks, err := Tokenize("f(a=1, b=rb'x\\n' 'y',\n  c=0x_1f) # c\n", TokenizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tk := range toks {
		switch tk.Kind {
		case TokName, TokOp:
			got = append(got, tk.S)
		case TokNumber:
			got = append(got, "#"+numStr(tk.V))
		case TokString:
			s := "s:" + tk.V.(string)
			if tk.Bytes {
				s = "b:" + tk.V.(string)
			}
			got = append(got, s)
		case TokNewline:
			got = append(got, "NL")
		case TokEOF:
			got = append(got, "EOF")
		}
	}
	want := `f ( a = #1 , b = b:x\n s:y , c = #31 ) NL EOF`
	if g := strings.Join(got, " "); g != want {
		t.Errorf("tokens %s, want %s", g, want)
	}
	if !IsKeyword("lambda") || IsKeyword("print") {
		t.Error("IsKeyword")
	}
	for _, bad := range []string{"  1", "(1", "1)", "a $ b", "'x"} {
		if _, err := Tokenize(bad, TokenizeOptions{}); err == nil {
			t.Errorf("Tokenize(%q): no error", bad)
		}
	}
	const huge = "123456789012345678901234567890"
	toks, err = Tokenize(huge, TokenizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := toks[0].V.(*big.Int); !ok || b.String() != huge {
		t.Errorf("%s is %#v", huge, toks[0].V)
	}
	// Python 3.11 refuses a decimal literal past int_max_str_digits
	// (4300); prefixed literals and floats have no limit.
	limit := TokenizeOptions{MaxDecimalDigits: 4300}
	if _, err := Tokenize(strings.Repeat("9", 4300), limit); err != nil {
		t.Errorf("4300 digits: %v", err)
	}
	if _, err := Tokenize(strings.Repeat("9", 4301), limit); err == nil || !strings.Contains(err.Error(), "Exceeds the limit (4300 digits)") {
		t.Errorf("4301 digits: %v", err)
	}
	if _, err := Tokenize(strings.Repeat("1_", 4300)+"1", limit); err == nil {
		t.Errorf("4301 digits with underscores: no error")
	}
	for _, ok := range []string{"0x" + strings.Repeat("f", 5000), strings.Repeat("9", 5000) + ".0", strings.Repeat("9", 5000) + "e1", strings.Repeat("9", 5000) + "j"} {
		if _, err := Tokenize(ok, limit); err != nil {
			t.Errorf("%.12s...: %v", ok, err)
		}
	}
}

// numStr formats a token's number for the test.
func numStr(v any) string {
	switch x := v.(type) {
	case int64:
		return big.NewInt(x).String()
	case float64:
		return FloatRepr(x)
	}
	return "?"
}
