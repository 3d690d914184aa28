package pyval

import (
	"fmt"
	"math"
	"testing"
)

type strSub string // a str subtype, as Jinja's Markup

// TestDict: Python's key equality and insertion order, as
// d = {}; d[1] = 'a'; d[True] = 'b'; d[1.0] = 'c'; d['1'] = 'd'; d[b'1'] = 'e'; d[(1, 'x')] = 'f'; d[(True, 'x')] = 'g'
// leaves {1: 'c', '1': 'd', b'1': 'e', (1, 'x'): 'g'}.
func TestDict(t *testing.T) {
	d := NewDict()
	for _, kv := range [][2]any{{int64(1), "a"}, {true, "b"}, {1.0, "c"}, {"1", "d"}, {Bytes("1"), "e"}, {Tuple{int64(1), "x"}, "f"}, {Tuple{true, "x"}, "g"}} {
		d.Set(kv[0], kv[1])
	}
	if d.Len() != 4 || d.Keys()[0] != int64(1) || d.Values()[0] != "c" || d.Values()[3] != "g" {
		t.Fatalf("keys %v values %v", d.Keys(), d.Values())
	}
	if v, ok := d.Get(strSub("1")); !ok || v != "d" {
		t.Errorf("str subtype key: %v %v", v, ok)
	}
	if _, ok := d.Get(complex(1, 0)); !ok {
		t.Error("1+0j is not the key 1")
	}
	if _, ok := d.Get([]any{int64(1)}); ok {
		t.Error("a list found a key")
	}
	c := d.Copy()
	c.Set("new", 1)
	if d.Has("new") || !c.Has("new") || c.Len() != 5 {
		t.Error("Copy shares its keys")
	}
	var zero Dict
	zero.Set(nil, 1)
	if v, _ := zero.Get(nil); v != 1 {
		t.Error("the zero Dict is not usable")
	}
}

// TestDictPastSmall: keys stay equal as Python's, in their first place,
// while a dict grows past the size it finds keys by comparison at.
func TestDictPastSmall(t *testing.T) {
	d := NewDict()
	nan := math.NaN()
	for i := range 3 * smallDict {
		d.Set(fmt.Sprint(i), i)
		d.Set(int64(i), i)
		d.Set(float64(i), -i) // the key i again
		d.Set(Tuple{int64(i)}, i)
		d.Set(Tuple{float64(i)}, -i) // the tuple (i,) again
		d.Set(nan, i)                // never found: a new key each time
	}
	if want := 3 * smallDict * 4; d.Len() != want {
		t.Fatalf("%d keys, want %d", d.Len(), want)
	}
	for i := range 3 * smallDict {
		if v, _ := d.Get(true); v != -1 {
			t.Fatalf("True: %v", v)
		}
		if v, ok := d.Get(strSub(fmt.Sprint(i))); !ok || v != i {
			t.Fatalf("%q: %v %v", fmt.Sprint(i), v, ok)
		}
		if v, ok := d.Get(complex(float64(i), 0)); !ok || v != -i {
			t.Fatalf("%d: %v %v", i, v, ok)
		}
		if v, ok := d.Get(Tuple{int64(i)}); !ok || v != -i {
			t.Fatalf("(%d,): %v %v", i, v, ok)
		}
		if k := d.Keys()[4*i+1]; k != int64(i) {
			t.Fatalf("key %d is %v", 4*i+1, k)
		}
	}
	if d.Has(nan) {
		t.Error("NaN found")
	}
	c := d.Copy()
	c.Set("x", 1)
	c.Set(int64(0), "zero")
	if v, _ := d.Get(0.0); v != 0 || d.Has("x") || c.Len() != d.Len()+1 {
		t.Error("Copy shares its index")
	}
}
