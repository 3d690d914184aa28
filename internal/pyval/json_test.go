package pyval

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"testing"
)

type pairs struct{ k, v []any }

func (p *pairs) Set(k, v any) {
	for i, x := range p.k {
		if x == k {
			p.v[i] = v
			return
		}
	}
	p.k, p.v = append(p.k, k), append(p.v, v)
}

// TestDecodeJSON: key order, a repeated key in its first place with its
// last value, int and float as json.loads makes them, integers past 64
// bits, the constants only when asked.
func TestDecodeJSON(t *testing.T) {
	decode := func(o JSON, s string) any {
		t.Helper()
		dec := json.NewDecoder(bytes.NewReader(JSONConstants([]byte(s))))
		dec.UseNumber()
		v, err := o.DecodeJSON(dec)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return v
	}
	o := JSON{NewDict: func() interface{ Set(k, v any) } { return &pairs{} }}
	d := decode(o, `{"b": 1, "a": 1.0, "b": [2, -9223372036854775808, 18446744073709551616]}`).(*pairs)
	if len(d.k) != 2 || d.k[0] != "b" || d.v[1] != 1.0 {
		t.Fatalf("dict %v %v", d.k, d.v)
	}
	list := d.v[0].([]any)
	if list[0] != int64(2) || list[1] != int64(math.MinInt64) || list[2].(*big.Int).String() != "18446744073709551616" {
		t.Errorf("list %v", list)
	}
	if v := decode(o, `"\u0000NaN"`); v != "\x00NaN" {
		t.Errorf("marker read as %v without Constants", v)
	}
	o.Constants = true
	if v := decode(o, `[NaN, -Infinity]`).([]any); !math.IsNaN(v[0].(float64)) || !math.IsInf(v[1].(float64), -1) {
		t.Errorf("constants %v", v)
	}
	o.MaxDepth = 2
	dec := json.NewDecoder(bytes.NewReader([]byte(`[[[1]]]`)))
	dec.UseNumber()
	if _, err := o.DecodeJSON(dec); err == nil {
		t.Error("depth 3 decoded under MaxDepth 2")
	}
}
