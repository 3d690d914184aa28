package pyval

import (
	"math"
	"reflect"
)

// Tuple is a Python tuple.
type Tuple []any

// Bytes is a Python bytes value.
type Bytes string

// Dict is Python's dict: insertion-ordered, a key found again keeps its
// first place. Keys are compared as Python compares hashable values:
// True, 1 and 1.0 are one key; a str and a bytes never are; tuples by
// their items. The zero Dict is empty and ready to use.
type Dict struct {
	keys []any
	vals []any
	idx  map[any]int // scalar keys, normalized, → position; built past smallDict keys
}

// smallDict is the size up to which a dict finds keys by comparing them
// in turn rather than through its index (most dicts are small: building
// an index for each costs more than the comparisons).
const smallDict = 8

// NewDict returns an empty dict.
func NewDict() *Dict { return &Dict{} }

// scalarKey returns the map key of a scalar k, or false for a tuple (or
// any other key, found by comparison).
func scalarKey(k any) (any, bool) {
	switch x := k.(type) {
	case nil, int64, string, Bytes:
		return x, true
	case bool:
		if x {
			return int64(1), true
		}
		return int64(0), true
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<63 {
			return int64(x), true
		}
		return x, true
	case complex128:
		if imag(x) == 0 {
			return scalarKey(real(x))
		}
		return x, true
	case Tuple:
		return nil, false
	}
	if v := reflect.ValueOf(k); v.Kind() == reflect.String {
		return v.String(), true // a str subtype (Jinja's Markup)
	}
	return nil, false
}

// sameKey is == on hashable keys.
func sameKey(a, b any) bool {
	ta, aTuple := a.(Tuple)
	tb, bTuple := b.(Tuple)
	if aTuple || bTuple {
		if !aTuple || !bTuple || len(ta) != len(tb) {
			return false
		}
		for i := range ta {
			if !sameKey(ta[i], tb[i]) {
				return false
			}
		}
		return true
	}
	x, ok1 := scalarKey(a)
	y, ok2 := scalarKey(b)
	return ok1 && ok2 && x == y
}

func (d *Dict) find(k any) int {
	if nk, ok := scalarKey(k); ok {
		if d.idx != nil {
			if i, ok := d.idx[nk]; ok {
				return i
			}
			return -1
		}
		if s, ok := nk.(string); ok {
			// the common case: string keys, compared without
			// normalizing each
			for i, x := range d.keys {
				if xs, ok := x.(string); ok {
					if xs == s {
						return i
					}
				} else if xk, ok := scalarKey(x); ok && xk == nk {
					return i
				}
			}
			return -1
		}
		for i, x := range d.keys {
			if xk, ok := scalarKey(x); ok && xk == nk {
				return i
			}
		}
		return -1
	}
	for i, x := range d.keys {
		if sameKey(x, k) {
			return i
		}
	}
	return -1
}

// Set sets key k to v, keeping k's first place.
func (d *Dict) Set(k, v any) {
	if i := d.find(k); i >= 0 {
		d.vals[i] = v
		return
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	switch n := len(d.keys); {
	case n > smallDict+1:
		if nk, ok := scalarKey(k); ok {
			d.idx[nk] = n - 1
		}
	case n == smallDict+1:
		d.idx = make(map[any]int, 2*n)
		for i := len(d.keys) - 1; i >= 0; i-- {
			// a key's first place (keys are distinct, but a
			// NaN is never found and may repeat)
			if nk, ok := scalarKey(d.keys[i]); ok {
				d.idx[nk] = i
			}
		}
	}
}

// Grow makes room for n more keys.
func (d *Dict) Grow(n int) {
	if n <= 0 || cap(d.keys)-len(d.keys) >= n {
		return
	}
	k := len(d.keys)
	buf := make([]any, 2*(k+n))
	copy(buf, d.keys)
	copy(buf[k+n:], d.vals)
	d.keys, d.vals = buf[:k:k+n], buf[k+n:2*k+n]
}

// Get returns the value of key k.
func (d *Dict) Get(k any) (any, bool) {
	if i := d.find(k); i >= 0 {
		return d.vals[i], true
	}
	return nil, false
}

// Has reports whether k is a key.
func (d *Dict) Has(k any) bool { return d.find(k) >= 0 }

// Keys returns the keys in insertion order (the dict's own; not to be
// modified).
func (d *Dict) Keys() []any { return d.keys }

// Values returns the values in key order (the dict's own; not to be
// modified).
func (d *Dict) Values() []any { return d.vals }

// Len is the number of keys.
func (d *Dict) Len() int { return len(d.keys) }

// Copy returns a shallow copy of d (dict(d)).
func (d *Dict) Copy() *Dict {
	c := &Dict{keys: append([]any(nil), d.keys...), vals: append([]any(nil), d.vals...)}
	if d.idx != nil {
		c.idx = make(map[any]int, len(d.idx))
		for k, i := range d.idx {
			c.idx[k] = i
		}
	}
	return c
}
