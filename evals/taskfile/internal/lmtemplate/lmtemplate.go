// Package lmtemplate renders Jinja templates the way lm-evaluation-harness
// does (lm_eval/utils.py apply_template): jinja2's default Environment
// (no trim_blocks, no lstrip_blocks, line endings normalised to "\n") with
// StrictUndefined and keep_trailing_newline=True, plus lm-eval's
// regex_replace filter (re.sub). The engine is pocketeval's internal/jinja
// in that configuration, so values print as Python's str() prints them
// (None, True, 1.0, ['a', "b's"]) and an undefined value is an error
// wherever jinja2's StrictUndefined raises.
//
// Unlike lm-eval, which renders without a sandbox, every render runs
// under the limits the template was compiled with; DefaultLimits are
// internal/jinja's, those of Python's sandboxed Jinja: range() yields at most 100,000 items, the output and every
// string or list a render builds (by ~, +, *, filters and methods) at
// most 16 MiB, loop iterations and calls at most a million, the render
// at most 30 s; a template past one fails with ErrLimit and its line.
// Attributes starting with "_" are not reachable and lists and dicts
// cannot be mutated, as in the sandbox.
//
// Not reproduced: Python's Unicode-wide \s/\d and its other regular
// expression extensions in regex_replace patterns (Go's RE2 syntax and
// ASCII classes).
package lmtemplate

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/jinja"
	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// ErrLimit marks a render stopped by a limit.
var ErrLimit = jinja.ErrLimit

// env is lm-eval's Environment, its regex_replace bounded by lim.
func env(lim jinja.Limits) *jinja.Env {
	fn := func(r *jinja.Renderer, args []any, kw []jinja.Kwarg) (any, error) {
		return regexReplace(lim, args, kw)
	}
	return &jinja.Env{
		StrictUndefined: true,
		Filters:         map[string]*jinja.Callable{"regex_replace": {Name: "regex_replace", Fn: fn}},
	}
}

// Template is a compiled template. It is safe for concurrent use.
type Template struct {
	src string
	t   *jinja.Template
	lim jinja.Limits
}

// Compile parses src; every render of it runs under lim.
func Compile(src string, lim jinja.Limits) (*Template, error) {
	norm := strings.ReplaceAll(src, "\r\n", "\n")
	norm = strings.ReplaceAll(norm, "\r", "\n")
	t, err := env(lim).Compile("", norm)
	if err != nil {
		if strings.Contains(err.Error(), "unexpected end of template, expected") {
			err = fmt.Errorf("%w (an unclosed tag)", err)
		}
		return nil, err
	}
	return &Template{src: src, t: t, lim: lim}, nil
}

// Source returns the template as written.
func (t *Template) Source() string { return t.src }

// Render renders the template with the fields of doc (a dict) as
// variables, as lm-eval's template.render(**doc) does.
func (t *Template) Render(doc pyvalue.Value) (string, error) {
	return t.RenderContext(context.Background(), doc)
}

// RenderContext is Render, stopped when ctx is done.
func (t *Template) RenderContext(ctx context.Context, doc pyvalue.Value) (string, error) {
	vars := map[string]any{}
	if doc.IsDict() {
		d := doc.AsDict()
		for _, k := range d.OrderedKeys() {
			v, _ := d.Get(k)
			vars[k] = v.Any()
		}
	}
	out, err := t.t.Render(ctx, vars, t.lim)
	if record != nil {
		record(t.src, doc, out, err)
	}
	if err != nil {
		return "", fmt.Errorf("render %w", err)
	}
	return out, nil
}

// record, when set (by the templatecorpus build tag), sees every render.
var record func(src string, doc pyvalue.Value, out string, err error)

// regexReplace is lm-eval's regex_replace filter: re.sub(pattern, repl,
// string, count). Python's \1 and \g<name> references become Go's ${1}
// and ${name}. The result is bounded as the engine bounds every string.
func regexReplace(lim jinja.Limits, args []any, kw []jinja.Kwarg) (any, error) {
	count := int64(0)
	if len(args) > 3 {
		c, ok := args[3].(int64)
		if !ok {
			return nil, fmt.Errorf("regex_replace: count must be an integer")
		}
		count = c
	}
	for _, k := range kw {
		c, ok := k.Value.(int64)
		if k.Name != "count" || !ok {
			return nil, fmt.Errorf("regex_replace: unexpected keyword argument %s", k.Name)
		}
		count = c
	}
	if len(args) < 3 || len(args) > 4 {
		return nil, fmt.Errorf("regex_replace(pattern, repl[, count]) takes 2 or 3 arguments")
	}
	s, ok1 := args[0].(string)
	pattern, ok2 := args[1].(string)
	repl, ok3 := args[2].(string)
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("regex_replace(pattern, repl[, count]) needs strings")
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("regex_replace: %w", err)
	}
	n := -1
	if count > 0 {
		n = int(min(count, int64(len(s)+1)))
	}
	repl = PythonReplacement(repl)
	var b []byte
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, n) {
		b = append(b, s[last:m[0]]...)
		b = re.ExpandString(b, repl, s, m)
		last = m[1]
		if len(b) > lim.MaxOutput {
			return nil, fmt.Errorf("%w: output larger than %d bytes", ErrLimit, lim.MaxOutput)
		}
	}
	return string(append(b, s[last:]...)), nil
}

var pyGroupRef = lazyre.New(`\\(\d+)|\\g<(\w+)>|\$`)

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
