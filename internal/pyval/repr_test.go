package pyval

import "testing"

func TestFloatRepr(t *testing.T) {
	for f, want := range map[float64]string{1: "1.0", 0.1: "0.1", 1e16: "1e+16", 1e15: "1000000000000000.0", 1e-4: "0.0001", 1e-5: "1e-05", -2.5: "-2.5", 123456789.125: "123456789.125", 1.5e300: "1.5e+300"} {
		if got := FloatRepr(f); got != want {
			t.Errorf("FloatRepr(%v) = %q, want %q", f, got, want)
		}
	}
}
