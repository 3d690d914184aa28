package pyval

import (
	"errors"
	"fmt"
	"math"
	"math/big"
)

// Integers past 64 bits are *big.Int (Number, the JSON decoder); Int
// turns a result back into int64 where it fits, so each int has one form.

// ErrIntTooLarge is BigIntOp's answer when a result would need more than
// the caller's bit limit: Python would build it; a caller bounding what
// one input may build refuses it.
var ErrIntTooLarge = errors.New("integer result too large")

// IsInt reports whether v is a Python int (bool included, as Python's
// bool is an int) and returns it as a *big.Int.
func IsInt(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case bool:
		if x {
			return big.NewInt(1), true
		}
		return big.NewInt(0), true
	case int64:
		return big.NewInt(x), true
	case *big.Int:
		return x, true
	}
	return nil, false
}

// IntFloat is float(n): the nearest float, or Python's OverflowError.
func IntFloat(n *big.Int) (float64, error) {
	f, _ := new(big.Float).SetInt(n).Float64()
	if math.IsInf(f, 0) {
		return 0, fmt.Errorf("int too large to convert to float")
	}
	return f, nil
}

// IntEqualFloat is Python's int == float: exact, with no rounding of the
// int (10**30 != 1e30).
func IntEqualFloat(n *big.Int, f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	return new(big.Float).SetInt(n).Cmp(big.NewFloat(f)) == 0
}

// BigIntOp is Python's int arithmetic on ints of any size (+ - * / // %
// ** << >> & | ^), as IntOp's; maxBits bounds the size of a result
// (ErrIntTooLarge past it), checked before it is computed.
func BigIntOp(op string, a, b *big.Int, maxBits int) (any, error) {
	z := new(big.Int)
	tooLarge := func(bits int) bool { return bits > maxBits }
	switch op {
	case "+":
		if tooLarge(max(a.BitLen(), b.BitLen()) + 1) {
			return nil, ErrIntTooLarge
		}
		z.Add(a, b)
	case "-":
		if tooLarge(max(a.BitLen(), b.BitLen()) + 1) {
			return nil, ErrIntTooLarge
		}
		z.Sub(a, b)
	case "*":
		if tooLarge(a.BitLen() + b.BitLen()) {
			return nil, ErrIntTooLarge
		}
		z.Mul(a, b)
	case "/":
		if b.Sign() == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		// Python's int / int is correctly rounded.
		f, _ := new(big.Rat).SetFrac(a, b).Float64()
		if math.IsInf(f, 0) {
			return nil, fmt.Errorf("integer division result too large for a float")
		}
		return f, nil
	case "//", "%":
		if b.Sign() == 0 {
			return nil, fmt.Errorf("integer division or modulo by zero")
		}
		q, m := new(big.Int).QuoRem(a, b, new(big.Int))
		if m.Sign() != 0 && (m.Sign() < 0) != (b.Sign() < 0) {
			q.Sub(q, big.NewInt(1))
			m.Add(m, b)
		}
		if op == "//" {
			return Int(q), nil
		}
		return Int(m), nil
	case "**":
		if b.Sign() < 0 {
			if a.Sign() == 0 {
				return nil, fmt.Errorf("0.0 cannot be raised to a negative power")
			}
			fa, err := IntFloat(a)
			if err != nil {
				return nil, err
			}
			fb, err := IntFloat(b)
			if err != nil {
				return nil, err
			}
			return math.Pow(fa, fb), nil
		}
		if a.CmpAbs(big.NewInt(1)) <= 0 {
			// 0, 1 and -1 stay small whatever the power.
			if a.Sign() < 0 && b.Bit(0) == 0 {
				return int64(1), nil
			}
			return Int(new(big.Int).Set(a)), nil
		}
		if !b.IsInt64() || tooLarge(int(min(b.Int64(), int64(maxBits)+1))*a.BitLen()) {
			return nil, ErrIntTooLarge
		}
		z.Exp(a, b, nil)
	case "<<":
		if b.Sign() < 0 {
			return nil, fmt.Errorf("negative shift count")
		}
		if a.Sign() == 0 {
			return int64(0), nil
		}
		if !b.IsInt64() || tooLarge(a.BitLen()+int(min(b.Int64(), int64(maxBits)+1))) {
			return nil, ErrIntTooLarge
		}
		z.Lsh(a, uint(b.Int64()))
	case ">>":
		if b.Sign() < 0 {
			return nil, fmt.Errorf("negative shift count")
		}
		if !b.IsInt64() || b.Int64() > int64(a.BitLen()) {
			if a.Sign() < 0 {
				return int64(-1), nil
			}
			return int64(0), nil
		}
		z.Rsh(a, uint(b.Int64()))
	case "&":
		z.And(a, b)
	case "|":
		z.Or(a, b)
	case "^":
		z.Xor(a, b)
	default:
		return nil, fmt.Errorf("unsupported operand type(s) for %s: 'int' and 'int'", op)
	}
	return Int(z), nil
}
