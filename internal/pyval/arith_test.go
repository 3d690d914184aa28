package pyval

import (
	"fmt"
	"testing"
)

// TestArith: floor division and modulo take the divisor's sign, as
// CPython computes them (values from /usr/bin/python3).
func TestArith(t *testing.T) {
	for _, c := range []struct {
		op   string
		a, b any
		want string
	}{
		{"//", int64(7), int64(-2), "-4"}, {"%", int64(7), int64(-2), "-1"},
		{"//", int64(-7), int64(2), "-4"}, {"%", int64(-7), int64(2), "1"},
		{"/", int64(7), int64(-2), "-3.5"}, {"**", int64(7), int64(-2), "0.02040816326530612"},
		{"//", 7.5, -2.0, "-4.0"}, {"%", 7.5, -2.0, "-0.5"}, {"%", -7.5, 2.0, "0.5"},
		{"**", 7.5, -2.0, "0.017777777777777778"}, {"+", int64(9223372036854775807), int64(1), "error"},
		{"%", 1.0, 0.0, "error"},
	} {
		var v any
		var err error
		if a, ok := c.a.(int64); ok {
			v, err = IntOp(c.op, a, c.b.(int64))
		} else {
			v, err = FloatOp(c.op, c.a.(float64), c.b.(float64))
		}
		got := "error"
		if err == nil {
			got = fmt.Sprint(v)
			if f, ok := v.(float64); ok {
				got = FloatRepr(f)
			}
		}
		if got != c.want {
			t.Errorf("%v %s %v = %s, want %s", c.a, c.op, c.b, got, c.want)
		}
	}
	if v, err := ComplexOp("*", complex(1, 2), complex(3, -4)); err != nil || v != complex(11, 2) {
		t.Errorf("(1+2j)*(3-4j) = %v, %v", v, err)
	}
	if _, err := ComplexOp("/", 1, 0); err == nil || err.Error() != "complex division by zero" {
		t.Errorf("1j/0: %v", err)
	}
	if _, err := ComplexOp("%", 1, 2); err != ErrOperator {
		t.Errorf("%% on complex: %v", err)
	}
	if _, err := FloatOp("<<", 1, 2); err != ErrOperator {
		t.Errorf("<< on floats: %v", err)
	}
}
