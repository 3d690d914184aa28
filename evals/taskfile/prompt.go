package taskfile

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/pocketeval/pocketeval/evals/fewshot"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
)

// This file reproduces lm-evaluation-harness's prompt construction
// (lm_eval/api/task.py ConfigurableTask: doc_to_text, doc_to_target,
// doc_to_choice, fewshot_context, build_qa_turn) and its few-shot samplers
// (lm_eval/api/samplers.py).

// docs evaluates doc_to_* specs the way lm-eval does. features are the
// field names of the evaluation split: a doc_to_* string that names one of
// them is that field, anything else is a template.
type docs struct {
	// ctx is the context the task was loaded under (the run's): a
	// template render stops when it is done, as on an interrupt.
	ctx       context.Context
	features  map[string]bool
	hasChoice bool // the task's doc_to_choice is set
}

// context is the load's context, or Background for docs built without one.
func (e docs) context() context.Context {
	if e.ctx == nil {
		return context.Background()
	}
	return e.ctx
}

func (e docs) field(doc pyvalue.Value, name string) (pyvalue.Value, error) {
	v, ok := doc.AsDict().Get(name)
	if !ok {
		return pyvalue.Undefined(), fmt.Errorf("the document has no field %q", name)
	}
	return v, nil
}

// lookup resolves a string spec: the field it names, or the rendered
// template (rendered reports which).
func (e docs) lookup(doc pyvalue.Value, spec docSpec, key string) (v pyvalue.Value, text string, rendered bool, err error) {
	switch {
	case spec.tmpl == nil:
		return pyvalue.Undefined(), "", false, fmt.Errorf("%s is not set", key)
	case e.features[spec.str]:
		v, err = e.field(doc, spec.str)
		return v, "", false, err
	}
	text, err = spec.tmpl.RenderContext(e.context(), doc)
	return pyvalue.Undefined(), text, true, err
}

// text is doc_to_text: a string, or an integer for multiple-input tasks.
func (e docs) text(doc pyvalue.Value, spec docSpec) (pyvalue.Value, error) {
	if spec.isInt {
		return pyvalue.NewInt(spec.i), nil
	}
	v, s, rendered, err := e.lookup(doc, spec, "doc_to_text")
	if err != nil || !rendered {
		return v, err
	}
	if pyvalue.IsDigit(s) && e.hasChoice {
		return pyvalue.ParseLiteral(s)
	}
	return pyvalue.NewString(s), nil
}

// target is doc_to_target: an integer (an index into the choices), a
// string, or a list of either.
func (e docs) target(doc pyvalue.Value, spec docSpec) (pyvalue.Value, error) {
	switch {
	case spec.isInt:
		return pyvalue.NewInt(spec.i), nil
	case spec.list != nil:
		return pyvalue.NewList(spec.list), nil
	case spec.fn != nil:
		// lm-eval returns a callable's result as it is.
		return spec.fn(doc)
	}
	v, s, rendered, err := e.lookup(doc, spec, "doc_to_target")
	if err != nil || !rendered {
		return v, err
	}
	if pyvalue.IsDigit(s) && e.hasChoice {
		return pyvalue.ParseLiteral(s)
	}
	if len(s) >= 2 && s[0] == '[' && s[len(s)-1] == ']' {
		if v, err := pyvalue.ParseLiteral(s); err == nil {
			return v, nil
		}
	}
	return pyvalue.NewString(s), nil
}

// choices is doc_to_choice.
func (e docs) choices(doc pyvalue.Value, spec docSpec) ([]pyvalue.Value, error) {
	if spec.list != nil {
		return spec.list, nil
	}
	v, s, rendered, err := e.lookup(doc, spec, "doc_to_choice")
	if err != nil {
		return nil, err
	}
	if rendered {
		if v, err = pyvalue.ParseLiteral(s); err != nil {
			return nil, fmt.Errorf("doc_to_choice rendered %q, not a list: %w", s, err)
		}
	}
	if !v.IsList() {
		return nil, fmt.Errorf("doc_to_choice gave %s, not a list", pyvalue.Repr(v))
	}
	return v.AsList().Items, nil
}

// qaTurn is lm-eval's build_qa_turn rendered as plain text: the question,
// then, when there is an answer, the target delimiter, the answer and the
// few-shot delimiter.
func qaTurn(q pyvalue.Value, choices []pyvalue.Value, a pyvalue.Value, tgtDelim, fewDelim string) (string, error) {
	if !q.IsString() {
		return "", fmt.Errorf("context is not a string: %s (multiple-input tasks are not supported)", pyvalue.Repr(q))
	}
	hasAnswer := !a.IsUndefined() && !a.IsNone() && !(a.IsString() && a.AsString() == "")
	if !hasAnswer {
		return q.AsString(), nil
	}
	var ans pyvalue.Value
	switch {
	case choices != nil && a.IsInt():
		i := int(a.AsInt())
		if i < 0 || i >= len(choices) {
			return "", fmt.Errorf("target index %d outside %d choices", i, len(choices))
		}
		ans = choices[i]
	case a.IsList():
		if a.AsList().Len() == 0 {
			return "", errors.New("empty target list")
		}
		ans = a.AsList().Items[0]
	default:
		ans = a
	}
	if !ans.IsString() {
		return "", fmt.Errorf("answer is not a string: %s", pyvalue.Repr(ans))
	}
	return q.AsString() + tgtDelim + ans.AsString() + fewDelim, nil
}

// fewshotPool is the documents few-shot examples are drawn from, and
// whether the evaluated document must be excluded from the draw (lm-eval
// passes it when the few-shot split is the test split).
type fewshotPool struct {
	docs        []pyvalue.Value
	excludeEval bool
	sampler     string
}

// draw returns, for each evaluation document in order, the indices into
// the pool of its k examples, consuming one random.Random(seed) stream as
// lm-eval's sampler does across the documents of a run.
func (p *fewshotPool) draw(evalDocs []pyvalue.Value, k int, seed int64) ([][]int, error) {
	out := make([][]int, len(evalDocs))
	if k == 0 {
		return out, nil
	}
	s, err := fewshot.New(p.sampler, len(p.docs), seed)
	if err != nil {
		return nil, err
	}
	for i, doc := range evalDocs {
		var same func(j int) bool
		if p.excludeEval && doc.AsDict().Len() > 0 {
			same = func(j int) bool { return pyEqual(p.docs[j], doc) }
		}
		if out[i], err = s.Sample(k, same); err != nil {
			return nil, fmt.Errorf("document %d: %w", i, err)
		}
	}
	return out, nil
}

// pyEqual is Python's == on document values: numbers by value (True is 1),
// lists element-wise, dicts by keys and values.
func pyEqual(a, b pyvalue.Value) bool {
	num := func(v pyvalue.Value) (float64, bool) {
		switch {
		case v.IsInt():
			return float64(v.AsInt()), true
		case v.IsFloat():
			return v.AsFloat(), true
		case v.IsBool():
			if v.AsBool() {
				return 1, true
			}
			return 0, true
		}
		return 0, false
	}
	if x, ok := num(a); ok {
		y, ok := num(b)
		return ok && x == y && !math.IsNaN(x)
	}
	switch {
	case a.IsString():
		return b.IsString() && a.AsString() == b.AsString()
	case a.IsNone():
		return b.IsNone()
	case a.IsList():
		if !b.IsList() {
			return false
		}
		xs, ys := a.AsList().Items, b.AsList().Items
		if len(xs) != len(ys) {
			return false
		}
		for i := range xs {
			if !pyEqual(xs[i], ys[i]) {
				return false
			}
		}
		return true
	case a.IsDict():
		if !b.IsDict() || a.AsDict().Len() != b.AsDict().Len() {
			return false
		}
		for _, k := range a.AsDict().OrderedKeys() {
			x, _ := a.AsDict().Get(k)
			y, ok := b.AsDict().Get(k)
			if !ok || !pyEqual(x, y) {
				return false
			}
		}
		return true
	}
	return false
}
