package jinja

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// FromJSON decodes JSON as Python's json.loads does: objects keep their
// key order, integers are int64 and numbers with a fraction or exponent
// are float64 (so 1.0 stays a float and prints as 1.0).
func FromJSON(data []byte) (any, error) {
	if v, ok := jsonDecoder.DecodeBytes(data); ok {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := jsonDecoder.DecodeJSON(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("extra data after the JSON value")
	}
	return v, nil
}

// FromJSONString is FromJSON of s; the strings of the value are parts
// of s.
func FromJSONString(s string) (any, error) {
	if v, ok := jsonDecoder.DecodeString(s); ok {
		return v, nil
	}
	return FromJSON([]byte(s))
}

// jsonDecoder builds JSON into this package's values; an integer past 64
// bits becomes a float.
var jsonDecoder = pyval.JSON{
	NewDict: func() interface{ Set(k, v any) } { return NewDict() },
	BigInt:  func(s string) (any, error) { return strconv.ParseFloat(s, 64) },
}
