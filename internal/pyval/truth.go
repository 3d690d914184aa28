package pyval

import "math/big"

// Truth is bool(v) for the values of this vocabulary (None, bool, int,
// float, complex, str, bytes, list, tuple, dict); known is false for any
// other value, which the caller's model decides.
func Truth(v any) (truth, known bool) {
	switch x := v.(type) {
	case nil:
		return false, true
	case bool:
		return x, true
	case int64:
		return x != 0, true
	case *big.Int:
		return x.Sign() != 0, true
	case float64:
		return x != 0, true
	case complex128:
		return x != 0, true
	case string:
		return x != "", true
	case Bytes:
		return x != "", true
	case []any:
		return len(x) > 0, true
	case Tuple:
		return len(x) > 0, true
	case *Dict:
		return x.Len() > 0, true
	}
	return false, false
}

// TypeName is type(v).__name__ for the values of this vocabulary; ""
// for any other value.
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case complex128:
		return "complex"
	case string:
		return "str"
	case Bytes:
		return "bytes"
	case []any:
		return "list"
	case Tuple:
		return "tuple"
	case *Dict:
		return "dict"
	}
	return ""
}

// Seq returns the items of a list or tuple.
func Seq(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case Tuple:
		return x, true
	}
	return nil, false
}
