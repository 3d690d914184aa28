package pyvalue

import (
	"github.com/pocketeval/pocketeval/internal/jinja"
)

// FromJSON decodes one JSON value as Python's json.loads does: objects
// keep their key order, 1 is an int and 1.0 a float, null is None.
func FromJSON(raw []byte) (Value, error) {
	v, err := jinja.FromJSON(raw)
	if err != nil {
		return Undefined(), err
	}
	return wrap(v), nil
}
