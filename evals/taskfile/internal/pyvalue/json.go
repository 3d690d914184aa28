package pyvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// FromJSON decodes one JSON value as Python's json.loads does: objects
// keep their key order, 1 is an int and 1.0 a float, null is None.
func FromJSON(raw []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return v, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Undefined(), errors.New("trailing data after the JSON value")
	}
	return v, nil
}

func decodeValue(dec *json.Decoder) (Value, error) {
	tok, err := dec.Token()
	if err != nil {
		return Undefined(), err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '[':
			var items []Value
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return v, err
				}
				items = append(items, v)
			}
			_, err := dec.Token()
			return NewList(items), err
		case '{':
			d := NewDict()
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return d, err
				}
				v, err := decodeValue(dec)
				if err != nil {
					return v, err
				}
				d.AsDict().Set(k.(string), v)
			}
			_, err := dec.Token()
			return d, err
		}
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if i, err := x.Int64(); err == nil {
				return NewInt(i), nil
			}
		}
		f, err := x.Float64()
		if err != nil {
			return Undefined(), err
		}
		return NewFloat(f), nil
	case string:
		return NewString(x), nil
	case bool:
		return NewBool(x), nil
	case nil:
		return None(), nil
	}
	return Undefined(), fmt.Errorf("unexpected JSON token %v", tok)
}
