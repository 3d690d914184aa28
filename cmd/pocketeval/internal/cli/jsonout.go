package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// JSONSchemaVersion is the version of the --json convention
// (docs/json.md), written as "schema_version" first in every document. It
// changes only when a field is removed or changes meaning; new fields
// keep it.
const JSONSchemaVersion = 1

// writeJSON writes v as one --json document (docs/json.md): a JSON object
// whose first key is schema_version, indented by two spaces. v must
// marshal to an object; a document that already carries schema_version
// (a result file) keeps its own.
func writeJSON(io *IOStreams, v any) error {
	b, err := jsonDocument(v)
	if err != nil {
		return err
	}
	_, err = io.Out.Write(b)
	return err
}

// jsonDocument renders v in the --json convention.
func jsonDocument(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' {
		return nil, fmt.Errorf("encode json: a --json document must be an object, got %.20s", raw)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	if _, ok := top["schema_version"]; !ok {
		head := fmt.Sprintf(`{"schema_version":%d`, JSONSchemaVersion)
		if len(top) > 0 {
			head += ","
		}
		raw = append([]byte(head), raw[1:]...)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// jsonKey is what every object key of a --json document looks like.
var jsonKey = lazyre.New(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// checkJSONConvention reports how doc breaks the --json convention: not an
// object, no integer schema_version, or an object key that is not
// snake_case (PascalCase fields, or a map keyed by data — names, paths —
// where the convention wants a list of objects).
func checkJSONConvention(doc []byte) error {
	var top any
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return err
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return fmt.Errorf("top level is %T, want an object", top)
	}
	if n, ok := obj["schema_version"].(json.Number); !ok || strings.ContainsAny(n.String(), ".eE") {
		return fmt.Errorf("schema_version is %v, want an integer", obj["schema_version"])
	}
	var bad []string
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if !jsonKey.MatchString(k) {
					bad = append(bad, path+"."+k)
				}
				walk(path+"."+k, e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		}
	}
	walk("", top)
	if len(bad) > 0 {
		return fmt.Errorf("keys that are not snake_case identifiers: %s", strings.Join(bad, ", "))
	}
	return nil
}
