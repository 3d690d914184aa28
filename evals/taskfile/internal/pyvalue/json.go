package pyvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/internal/pyval"
)

// FromJSON decodes one JSON value as Python's json.loads does: objects
// keep their key order, 1 is an int and 1.0 a float, null is None.
func FromJSON(raw []byte) (Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := jsonValues.DecodeJSON(dec)
	if err != nil {
		return Undefined(), err
	}
	if _, err := dec.Token(); err != io.EOF {
		return Undefined(), errors.New("trailing data after the JSON value")
	}
	return wrap(v), nil
}

// jsonValues builds JSON into the template engine's values; an integer
// past 64 bits becomes a float.
var jsonValues = pyval.JSON{
	NewDict: func() interface{ Set(k, v any) } { return jinja.NewDict() },
	BigInt:  func(s string) (any, error) { return strconv.ParseFloat(s, 64) },
}
