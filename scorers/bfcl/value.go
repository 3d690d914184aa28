package bfcl

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// Values are Python values as BFCL's decoders produce them: nil (None),
// bool, int64 (int; *big.Int past 64 bits, pyval.Int), float64 (float),
// complex128, string (str), Bytes, []any (list), Tuple, *Dict.

// Tuple is a Python tuple.
type Tuple = pyval.Tuple

// Bytes is a Python bytes value.
type Bytes = pyval.Bytes

// Dict is Python's insertion-ordered dict (pyval.Dict).
type Dict = pyval.Dict

// pyType is type(v).__name__.
func pyType(v any) string {
	if x, ok := v.(Oversized); ok {
		return x.Type
	}
	if n := pyval.TypeName(v); n != "" {
		return n
	}
	return "object"
}

func isNumber(v any) bool {
	switch v.(type) {
	case bool, int64, *big.Int, float64, complex128:
		return true
	}
	return false
}

func toComplex(v any) complex128 {
	switch x := v.(type) {
	case bool:
		if x {
			return 1
		}
		return 0
	case int64:
		return complex(float64(x), 0)
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return complex(f, 0)
	case float64:
		return complex(x, 0)
	case complex128:
		return x
	}
	return 0
}

// pyEqual is Python's ==.
func pyEqual(a, b any) bool {
	if isNumber(a) && isNumber(b) {
		ai, aok := intOf(a)
		bi, bok := intOf(b)
		if aok && bok {
			return ai == bi
		}
		_, abig := a.(*big.Int)
		_, bbig := b.(*big.Int)
		if abig || bbig {
			return bigEqual(a, b)
		}
		return toComplex(a) == toComplex(b)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case Bytes:
		y, ok := b.(Bytes)
		return ok && x == y
	case []any:
		y, ok := b.([]any)
		return ok && seqEqual(x, y)
	case Tuple:
		y, ok := b.(Tuple)
		return ok && seqEqual(x, y)
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || len(x.Keys()) != len(y.Keys()) {
			return false
		}
		for i, k := range x.Keys() {
			v, ok := y.Get(k)
			if !ok || !pyEqual(x.Values()[i], v) {
				return false
			}
		}
		return true
	}
	return false
}

// bigEqual is == of two numbers one of which is an int past 64 bits:
// exact, as Python compares ints with floats.
func bigEqual(a, b any) bool {
	if _, ok := a.(*big.Int); !ok {
		a, b = b, a
	}
	n := a.(*big.Int)
	if m, ok := pyval.IsInt(b); ok {
		return n.Cmp(m) == 0
	}
	switch y := b.(type) {
	case float64:
		return pyval.IntEqualFloat(n, y)
	case complex128:
		return imag(y) == 0 && pyval.IntEqualFloat(n, real(y))
	}
	return false
}

func isBigInt(v any) bool { _, ok := v.(*big.Int); return ok }

func intOf(v any) (int64, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case int64:
		return x, true
	}
	return 0, false
}

func seqEqual(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !pyEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// pyIn is Python's "x in list".
func pyIn(x any, list []any) bool {
	for _, y := range list {
		if pyEqual(x, y) {
			return true
		}
	}
	return false
}

// repr is Python's repr, for error messages.
func repr(v any) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	return string(appendRepr(nil, v))
}

// appendRepr appends repr(v) to b.
func appendRepr(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "None"...)
	case bool:
		if x {
			return append(b, "True"...)
		}
		return append(b, "False"...)
	case int64:
		return strconv.AppendInt(b, x, 10)
	case *big.Int:
		return x.Append(b, 10)
	case float64:
		return append(b, pyval.FloatRepr(x)...)
	case complex128:
		return append(b, "("+pyval.FloatRepr(real(x))+"+"+pyval.FloatRepr(imag(x))+"j)"...)
	case string:
		return appendQuote(b, x)
	case Bytes:
		return appendQuote(append(b, 'b'), string(x))
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendRepr(b, e)
		}
		return append(b, ']')
	case Tuple:
		b = append(b, '(')
		for i, e := range x {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendRepr(b, e)
		}
		if len(x) == 1 {
			b = append(b, ',')
		}
		return append(b, ')')
	case *Dict:
		b = append(b, '{')
		for i, k := range x.Keys() {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendRepr(b, k)
			b = append(b, ": "...)
			b = appendRepr(b, x.Values()[i])
		}
		return append(b, '}')
	case Oversized:
		return fmt.Appendf(b, "<%s of %d items or characters, not built>", x.Type, x.Size)
	}
	return append(b, "<object>"...)
}

func quote(s string) string {
	return string(appendQuote(make([]byte, 0, len(s)+2), s))
}

// appendQuote appends Python's repr of the str s: what
// strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`, "\t", `\t`, q,
// `\`+q) does between quotes q, without building one per call.
func appendQuote(b []byte, s string) []byte {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	b = append(b, q)
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			b = append(b, `\\`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		case q:
			b = append(b, '\\', c)
		default:
			b = append(b, c)
		}
	}
	return append(b, q)
}

func nanValue() float64      { return math.NaN() }
func infValue(s int) float64 { return math.Inf(s) }

// Repr is Python's repr of a decoded value.
func Repr(v any) string { return repr(v) }
