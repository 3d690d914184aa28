//go:build templatecorpus

package lmtemplate

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/pyval"
)

// Built with -tags templatecorpus, every render is appended to
// $POCKETEVAL_TEMPLATE_CORPUS/<pid>.jsonl as a corpus record (see
// corpus_test.go): running the task-file tests so built collects every
// template they render over its documents.
func init() {
	dir := os.Getenv("POCKETEVAL_TEMPLATE_CORPUS")
	if dir == "" {
		return
	}
	var mu sync.Mutex
	path := filepath.Join(dir, fmt.Sprintf("%d.jsonl", os.Getpid()))
	record = func(src string, doc pyvalue.Value, out string, err error) {
		d, ok := docJSON(doc)
		if !ok {
			return
		}
		r := struct {
			Template string          `json:"template"`
			Doc      json.RawMessage `json:"doc"`
			Output   *string         `json:"output,omitempty"`
			Error    string          `json:"error,omitempty"`
		}{Template: src, Doc: json.RawMessage(d)}
		if err != nil {
			r.Error = err.Error()
		} else {
			r.Output = &out
		}
		line, _ := json.Marshal(r)
		mu.Lock()
		defer mu.Unlock()
		f, ferr := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if ferr != nil {
			return
		}
		f.Write(append(line, '\n'))
		f.Close()
	}
}

// docJSON writes a document as JSON that pyvalue.FromJSON reads back
// unchanged (floats keep a decimal point); false for values JSON cannot
// carry.
func docJSON(v pyvalue.Value) (string, bool) {
	var b strings.Builder
	ok := writeDocJSON(&b, v)
	return b.String(), ok
}

func writeDocJSON(b *strings.Builder, v pyvalue.Value) bool {
	switch {
	case v.IsNone():
		b.WriteString("null")
	case v.IsBool():
		fmt.Fprint(b, v.AsBool())
	case v.IsInt():
		fmt.Fprint(b, v.AsInt())
	case v.IsFloat():
		f := v.AsFloat()
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return false
		}
		b.WriteString(pyval.FloatRepr(f))
	case v.IsString():
		s, _ := json.Marshal(v.AsString())
		b.Write(s)
	case v.IsList():
		b.WriteByte('[')
		for i, it := range v.AsList().Items {
			if i > 0 {
				b.WriteByte(',')
			}
			if !writeDocJSON(b, it) {
				return false
			}
		}
		b.WriteByte(']')
	case v.IsDict():
		b.WriteByte('{')
		d := v.AsDict()
		for i, k := range d.OrderedKeys() {
			if i > 0 {
				b.WriteByte(',')
			}
			ks, _ := json.Marshal(k)
			b.Write(ks)
			b.WriteByte(':')
			x, _ := d.Get(k)
			if !writeDocJSON(b, x) {
				return false
			}
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}
