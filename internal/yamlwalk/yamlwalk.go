// Package yamlwalk is the one strict-YAML walker under pocketeval's
// configuration files: gate policies (gate), task files (evals/taskfile)
// and suite files (suite). Each keeps only its own schema; the walking
// lives here: the error that names file, line and field, alias
// resolution, mappings whose keys are checked for repeats in one map
// (time linear in the file: yaml.v3's decoder checks a mapping's keys
// pairwise), strict key sets, and typed scalar readers.
package yamlwalk

import (
	"fmt"
	"math"

	"gopkg.in/yaml.v3"
)

// Error is a problem in a YAML file. It reads
//
//	[Doc ]File[:Line][: Item][: field "Field"]: Err
//
// Doc names the kind of file ("policy", "suite"; "" for none), Line is
// 1-based (0 when unknown), Item the list element concerned ("tasks[2]").
type Error struct {
	Doc   string
	File  string
	Line  int
	Item  string
	Field string
	Err   error
}

func (e *Error) Error() string {
	s := e.File
	if e.Line > 0 {
		s = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Doc != "" {
		s = e.Doc + " " + s
	}
	if e.Item != "" {
		s += ": " + e.Item
	}
	if e.Field != "" {
		s += fmt.Sprintf(": field %q", e.Field)
	}
	return s + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Walker reads the nodes of one file.
type Walker struct {
	// Doc and File are the Error's.
	Doc, File string
	// Repeated words a key given twice in a mapping (first: the line of
	// its first occurrence); nil: "repeats line N".
	Repeated func(first int) string
}

// Errorf is an error at n's line about field.
func (w Walker) Errorf(n *yaml.Node, field, format string, args ...any) *Error {
	return w.At(n.Line, field, fmt.Errorf(format, args...))
}

// At is err at a line, about field.
func (w Walker) At(line int, field string, err error) *Error {
	return &Error{Doc: w.Doc, File: w.File, Line: line, Field: field, Err: err}
}

// Resolve follows an alias to the node it names.
func Resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// IsNull reports whether n (resolved) is YAML's null.
func IsNull(n *yaml.Node) bool { return Resolve(n).Tag == "!!null" }

// Root parses data and returns its top-level node, resolved; nil for an
// empty document. The error is yaml.v3's.
func Root(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, nil
	}
	return Resolve(doc.Content[0]), nil
}

// Mapping calls f for each key of the mapping node n (the value of
// field, "" at the top), in file order: k is the resolved key node, v the
// value node as written. A key that is not a scalar or that repeats is an
// error (one map, so linear); n not a mapping is "must be a mapping".
func (w Walker) Mapping(n *yaml.Node, field string, f func(key string, k, v *yaml.Node) error) error {
	n = Resolve(n)
	if n.Kind != yaml.MappingNode {
		return w.Errorf(n, field, "must be a mapping")
	}
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := Resolve(n.Content[i]), n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return w.Errorf(k, field, "keys must be names")
		}
		if line, dup := seen[k.Value]; dup {
			msg := fmt.Sprintf("repeats line %d", line)
			if w.Repeated != nil {
				msg = w.Repeated(line)
			}
			return w.Errorf(k, Join(field, k.Value), "%s", msg)
		}
		seen[k.Value] = k.Line
		if err := f(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

// Unknown returns the first key of the mapping node n that known does
// not hold, nil when there is none (or n is not a mapping).
func Unknown(n *yaml.Node, known func(key string) bool) *yaml.Node {
	n = Resolve(n)
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := Resolve(n.Content[i]); !known(k.Value) {
			return k
		}
	}
	return nil
}

// Join is the dotted name of key inside field ("generation_kwargs.until").
func Join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

// Float reads a finite number.
func (w Walker) Float(n *yaml.Node, field string) (float64, error) {
	n = Resolve(n)
	var x float64
	if n.Kind != yaml.ScalarNode || n.Decode(&x) != nil {
		return 0, w.Errorf(n, field, "must be a number, got %q", n.Value)
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, w.Errorf(n, field, "must be a finite number, got %s", n.Value)
	}
	return x, nil
}

// Bool reads true or false.
func (w Walker) Bool(n *yaml.Node, field string) (bool, error) {
	n = Resolve(n)
	var b bool
	if n.Kind != yaml.ScalarNode || n.Decode(&b) != nil {
		return false, w.Errorf(n, field, "must be true or false, got %q", n.Value)
	}
	return b, nil
}

// Set reads an optional field with read and points dst at its value.
func Set[T any](dst **T, read func(*yaml.Node, string) (T, error), n *yaml.Node, field string) error {
	x, err := read(n, field)
	if err != nil {
		return err
	}
	*dst = &x
	return nil
}
