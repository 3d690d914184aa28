package pyval

import (
	"errors"
	"fmt"
	"math"
)

// IntOp is Python's int arithmetic on 64-bit values (+ - * / // % **
// << >> & | ^): floor division and modulo take the divisor's sign, / is
// true division, a negative power is a float; a result beyond 64 bits is
// an error (Python's ints are unbounded).
func IntOp(op string, a, b int64) (any, error) {
	overflow := ErrIntOverflow
	switch op {
	case "+":
		s := a + b
		if (s > a) != (b > 0) {
			return nil, overflow
		}
		return s, nil
	case "-":
		s := a - b
		if (s < a) != (b > 0) {
			return nil, overflow
		}
		return s, nil
	case "*":
		if a != 0 && (a*b/a != b || a == -1 && b == math.MinInt64) {
			return nil, overflow
		}
		return a * b, nil
	case "/":
		if b == 0 {
			return nil, fmt.Errorf("division by zero")
		}
		return float64(a) / float64(b), nil
	case "//", "%":
		if b == 0 {
			return nil, fmt.Errorf("integer division or modulo by zero")
		}
		q, m := a/b, a%b
		if m != 0 && (m < 0) != (b < 0) {
			q--
			m += b
		}
		if op == "//" {
			return q, nil
		}
		return m, nil
	case "**":
		if b < 0 {
			if a == 0 {
				return nil, fmt.Errorf("0.0 cannot be raised to a negative power")
			}
			return math.Pow(float64(a), float64(b)), nil
		}
		res := int64(1)
		for range b {
			if a != 0 && res*a/a != res {
				return nil, overflow
			}
			res *= a
			if res == 0 || a == 1 || a == -1 && b > 64 {
				break
			}
		}
		if a == -1 && b%2 == 0 {
			res = 1
		} else if a == -1 {
			res = -1
		}
		return res, nil
	case "<<":
		if b < 0 {
			return nil, fmt.Errorf("negative shift count")
		}
		if b >= 63 || a<<b>>b != a {
			return nil, overflow
		}
		return a << b, nil
	case ">>":
		if b < 0 {
			return nil, fmt.Errorf("negative shift count")
		}
		return a >> min(b, 63), nil
	case "&":
		return a & b, nil
	case "|":
		return a | b, nil
	case "^":
		return a ^ b, nil
	}
	return nil, fmt.Errorf("unsupported operand type(s) for %s: 'int' and 'int'", op)
}

// ErrIntOverflow is IntOp's answer when Python's result is an int beyond
// 64 bits (BigIntOp computes it).
var ErrIntOverflow = errors.New("integer beyond 64 bits")

// ErrOperator is FloatOp's answer to an operator floats do not have.
var ErrOperator = errors.New("not a float operator")

// FloatOp is Python's float arithmetic (+ - * / // % **): floor division
// and modulo take the divisor's sign; dividing by zero is Python's
// ZeroDivisionError message.
func FloatOp(op string, a, b float64) (any, error) {
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		return a * b, nil
	case "/":
		if b == 0 {
			return nil, fmt.Errorf("float division by zero")
		}
		return a / b, nil
	case "//":
		if b == 0 {
			return nil, fmt.Errorf("float floor division by zero")
		}
		return math.Floor(a / b), nil
	case "%":
		if b == 0 {
			return nil, fmt.Errorf("float modulo")
		}
		m := math.Mod(a, b)
		if m != 0 && (m < 0) != (b < 0) {
			m += b
		}
		return m, nil
	case "**":
		return math.Pow(a, b), nil
	}
	return nil, ErrOperator
}

// ComplexOp is Python's complex arithmetic (+ - * /): a product's parts
// each rounded as CPython computes them (Go may fuse a*b into
// multiply-adds on arm64); dividing by zero is Python's ZeroDivisionError
// message. Other operators are ErrOperator.
func ComplexOp(op string, a, b complex128) (any, error) {
	switch op {
	case "+":
		return a + b, nil
	case "-":
		return a - b, nil
	case "*":
		ar, ai, br, bi := real(a), imag(a), real(b), imag(b)
		return complex(float64(ar*br)-float64(ai*bi), float64(ar*bi)+float64(ai*br)), nil
	case "/":
		if b == 0 {
			return nil, fmt.Errorf("complex division by zero")
		}
		return a / b, nil
	}
	return nil, ErrOperator
}
