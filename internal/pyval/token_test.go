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
	if _, err := Tokenize(huge, TokenizeOptions{Int64Only: true}); err == nil {
		t.Errorf("Int64Only took %s", huge)
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
