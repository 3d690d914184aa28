// Package lmtemplate renders Jinja templates the way lm-evaluation-harness
// does (lm_eval/utils.py apply_template): jinja2's default Environment with
// StrictUndefined and keep_trailing_newline=True, plus lm-eval's
// regex_replace filter. The engine is github.com/ardanlabs/jinja, the
// library pocketeval uses for chat templates; this package puts a front
// end before it so that the output is jinja2's, byte for byte:
//
//   - Whitespace: the engine always applies chat-template trimming
//     (trim_blocks, lstrip_blocks). jinja2's defaults have neither, so the
//     template is scanned here, explicit "-" markers are applied as
//     jinja2 applies them, and every piece of literal text is handed to the
//     engine as a value, leaving it nothing to trim.
//   - Values print as Python's str() prints them (None, True, 1.0,
//     ['a', "b's"]) through a wrapper around every {{ }} output; an
//     undefined value in an output is an error naming the expression
//     (StrictUndefined), while "is defined" and default() keep working.
//   - The `string` filter formats as Python's str(); list.index, str.index
//     and str.join, which the engine lacks, are rewritten to helpers.
//
// Not reproduced: StrictUndefined errors on undefined values used in
// conditions or attribute chains (jinja2 raises, here they are false or
// undefined until printed), floats converted to text by `~` concatenation
// (Go formatting, "1" for 1.0), and Python's Unicode-wide \s/\d in
// regex_replace patterns (Go's RE2 classes are ASCII).
package lmtemplate

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/ardanlabs/jinja"

	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
)

// Names of the helpers passed to the engine with every render. They start
// with "__pe_" so that they cannot meet a dataset field.
const (
	helperText = "__pe_text"
	helperOut  = "__pe_out"
	helperStr  = "__pe_str"
	helperCall = "__pe_call"
)

// Template is a compiled template. It is safe for concurrent use.
type Template struct {
	src     string
	tmpl    *jinja.Template
	texts   jinja.Value // list of the literal text pieces
	outputs []string    // source of each {{ }} expression, for errors
	lines   []int       // line of each {{ }} expression
}

// Compile parses src.
func Compile(src string) (*Template, error) {
	segs, err := scan(src)
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	t := &Template{src: src}
	var texts []jinja.Value
	var b strings.Builder
	for _, s := range segs {
		switch s.kind {
		case segText:
			fmt.Fprintf(&b, "{{ %s[%d] }}", helperText, len(texts))
			texts = append(texts, jinja.NewString(s.text))
		case segExpr:
			expr, err := rewriteExpr(s.text)
			if err != nil {
				return nil, fmt.Errorf("template line %d: {{%s}}: %w", s.line, s.text, err)
			}
			fmt.Fprintf(&b, "{{ %s((%s), %d) }}", helperOut, expr, len(t.outputs))
			t.outputs = append(t.outputs, fmt.Sprintf("line %d: {{%s}}", s.line, s.text))
			t.lines = append(t.lines, s.line)
		case segStmt:
			stmt, err := rewriteExpr(s.text)
			if err == nil {
				stmt, err = limitFor(stmt, s.line)
			}
			if err != nil {
				return nil, fmt.Errorf("template line %d: {%%%s%%}: %w", s.line, s.text, err)
			}
			b.WriteString("{%" + stmt + "%}")
		}
	}
	t.texts = jinja.NewList(texts)
	t.tmpl, err = jinja.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("template: %w", err)
	}
	return t, nil
}

// Source returns the template as written.
func (t *Template) Source() string { return t.src }

// Render renders the template with the fields of doc (a dict) as
// variables, as lm-eval's template.render(**doc) does.
func (t *Template) Render(doc jinja.Value) (string, error) {
	out, err := t.render(doc)
	if record != nil {
		record(t.src, doc, out, err)
	}
	return out, err
}

// record, when set (by the templatecorpus build tag), sees every render.
var record func(src string, doc jinja.Value, out string, err error)

func (t *Template) render(doc jinja.Value) (string, error) {
	vars := map[string]jinja.Value{}
	if doc.IsDict() {
		d := doc.AsDict()
		for _, k := range d.OrderedKeys() {
			vars[k], _ = d.Get(k)
		}
	}
	b := &budget{deadline: time.Now().Add(maxTime)}
	vars[helperText] = t.texts
	vars[helperOut] = jinja.NewCallable(helperOut, func(args []jinja.Value, kw map[string]jinja.Value) (jinja.Value, error) {
		v, err := t.out(args, kw)
		if err == nil {
			b.out += len(v.AsString())
			b.steps++
			err = b.check(t.lines[args[1].AsInt()])
		}
		return v, err
	})
	vars["range"], vars[helperIter] = b.helpers()
	vars[helperLine] = b.lineHelper()
	vars[helperStr] = strFilter
	vars[helperCall] = callHelper
	vars["regex_replace"] = regexReplace
	out, err := t.tmpl.RenderValues(vars)
	if err != nil {
		return "", fmt.Errorf("render template: %w", err)
	}
	return out, nil
}

// out prints one {{ }} value as Python's str() does.
func (t *Template) out(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	if len(args) != 2 || !args[1].IsInt() {
		return jinja.Undefined(), fmt.Errorf("internal: bad output call")
	}
	v := args[0]
	if v.IsUndefined() {
		return jinja.Undefined(), fmt.Errorf("%s: undefined value (a missing field?)", t.outputs[args[1].AsInt()])
	}
	return jinja.NewString(pyvalue.Str(v)), nil
}

var strFilter = jinja.NewCallable("string", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	if len(args) == 0 {
		return jinja.Undefined(), fmt.Errorf("string: no value")
	}
	if args[0].IsUndefined() {
		return jinja.Undefined(), fmt.Errorf("string filter: undefined value (a missing field?)")
	}
	return jinja.NewString(pyvalue.Str(args[0])), nil
})

// callHelper implements the Python methods the engine lacks:
// list.index(x), str.index(sub), str.join(iterable).
var callHelper = jinja.NewCallable(helperCall, func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
	if len(args) < 2 || !args[1].IsString() {
		return jinja.Undefined(), fmt.Errorf("internal: bad method call")
	}
	recv, method, rest := args[0], args[1].AsString(), args[2:]
	switch {
	case method == "index" && recv.IsList() && len(rest) == 1:
		for i, it := range recv.AsList().Items {
			if it.Equals(rest[0]) {
				return jinja.NewInt(int64(i)), nil
			}
		}
		return jinja.Undefined(), fmt.Errorf("list.index(%s): value is not in list %s", pyvalue.Repr(rest[0]), pyvalue.Repr(recv))
	case method == "index" && recv.IsString() && len(rest) == 1 && rest[0].IsString():
		i := strings.Index(recv.AsString(), rest[0].AsString())
		if i < 0 {
			return jinja.Undefined(), fmt.Errorf("str.index(%s): substring not found", pyvalue.Repr(rest[0]))
		}
		return jinja.NewInt(int64(len([]rune(recv.AsString()[:i])))), nil
	case method == "join" && recv.IsString() && len(rest) == 1 && (rest[0].IsList() || rest[0].IsDict()):
		items := iterate(rest[0])
		parts := make([]string, 0, len(items))
		for _, it := range items {
			if !it.IsString() {
				return jinja.Undefined(), fmt.Errorf("str.join: sequence item %s is not a string", pyvalue.Repr(it))
			}
			parts = append(parts, it.AsString())
		}
		return jinja.NewString(strings.Join(parts, recv.AsString())), nil
	}
	return jinja.Undefined(), fmt.Errorf("%s.%s() with %d argument(s) is not supported", kindName(recv), method, len(rest))
})

// regexReplace is lm-eval's regex_replace filter: re.sub(pattern, repl,
// string, count). Python's \1 and \g<name> references become Go's ${1}
// and ${name}.
var regexReplace = jinja.NewCallable("regex_replace", func(args []jinja.Value, kw map[string]jinja.Value) (jinja.Value, error) {
	if len(args) < 3 || !args[0].IsString() || !args[1].IsString() || !args[2].IsString() {
		return jinja.Undefined(), fmt.Errorf("regex_replace(pattern, repl[, count]) needs strings")
	}
	re, err := regexp.Compile(args[1].AsString())
	if err != nil {
		return jinja.Undefined(), fmt.Errorf("regex_replace: %w", err)
	}
	count := int64(0)
	if len(args) > 3 && args[3].IsInt() {
		count = args[3].AsInt()
	}
	if c, ok := kw["count"]; ok && c.IsInt() {
		count = c.AsInt()
	}
	repl := PythonReplacement(args[2].AsString())
	s := args[0].AsString()
	if count <= 0 {
		return jinja.NewString(re.ReplaceAllString(s, repl)), nil
	}
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, int(count)) {
		b.WriteString(s[last:m[0]])
		b.Write(re.ExpandString(nil, repl, s, m))
		last = m[1]
	}
	b.WriteString(s[last:])
	return jinja.NewString(b.String()), nil
})

var pyGroupRef = regexp.MustCompile(`\\(\d+)|\\g<(\w+)>|\$`)

// PythonReplacement converts a Python re.sub replacement string to Go's
// regexp template syntax.
func PythonReplacement(repl string) string {
	return pyGroupRef.ReplaceAllStringFunc(repl, func(m string) string {
		if m == "$" {
			return "$$"
		}
		if strings.HasPrefix(m, `\g<`) {
			return "${" + m[3:len(m)-1] + "}"
		}
		return "${" + m[1:] + "}"
	})
}

func kindName(v jinja.Value) string {
	switch {
	case v.IsString():
		return "str"
	case v.IsList():
		return "list"
	case v.IsDict():
		return "dict"
	case v.IsUndefined():
		return "undefined"
	}
	return "value"
}

// iterate returns what Python's iter() yields: list items, or dict keys.
func iterate(v jinja.Value) []jinja.Value {
	if v.IsDict() {
		keys := v.AsDict().OrderedKeys()
		out := make([]jinja.Value, len(keys))
		for i, k := range keys {
			out[i] = jinja.NewString(k)
		}
		return out
	}
	return v.AsList().Items
}
