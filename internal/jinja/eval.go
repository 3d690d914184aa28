package jinja

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// Limits bound one render, as Python's sandboxed Jinja bounds range():
// a template cannot take the machine down.
type Limits struct {
	// MaxRange is the most items range() may produce (jinja2's sandbox
	// MAX_RANGE, 100,000).
	MaxRange int
	// MaxOutput is the most bytes a render, or any string it builds, may
	// reach.
	MaxOutput int
	// MaxSteps bounds loop iterations plus macro and filter calls.
	MaxSteps int
	// MaxBuilt bounds the bytes of all the strings and lists a render
	// builds together (a list item counts 16 bytes), so that a loop cannot
	// build a large value at each of its steps (0: none).
	MaxBuilt int
	// Timeout bounds the render's wall time (0: none).
	Timeout time.Duration
}

// DefaultLimits are the limits Render uses unless told otherwise.
var DefaultLimits = Limits{MaxRange: 100_000, MaxOutput: 16 << 20, MaxSteps: 1_000_000, MaxBuilt: 256 << 20, Timeout: 30 * time.Second}

// Error is a template error with the template's name and line.
type Error struct {
	Name string // the file, when known
	Line int
	Msg  string
	// Err is the cause (e.g. a *RaisedError or ErrLimit).
	Err error
}

func (e *Error) Error() string {
	loc := e.Name
	if loc == "" {
		loc = "template"
	}
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, e.Line)
	}
	return loc + ": " + e.Msg
}

func (e *Error) Unwrap() error { return e.Err }

// ErrLimit marks an error from a sandbox limit.
var ErrLimit = errors.New("template limit")

// RaisedError is an error a template raised itself (raise_exception).
type RaisedError struct{ Message string }

func (e *RaisedError) Error() string { return e.Message }

// Env is the configuration of a jinja2 Environment that changes what a
// template renders. The zero Env is jinja2's default Environment: no
// trim_blocks, no lstrip_blocks, lenient undefined values. Whatever the
// Env, rendering follows jinja2's sandbox and stays within Limits.
type Env struct {
	// TrimBlocks drops the first newline after a block or comment tag.
	TrimBlocks bool
	// LstripBlocks strips the spaces and tabs before a block or comment
	// tag that starts its line.
	LstripBlocks bool
	// StrictUndefined makes an undefined value an error wherever jinja2's
	// StrictUndefined raises: printed, converted to text, tested for
	// truth, iterated, compared, or passed to a filter other than
	// default. The tests defined, undefined and none still see it.
	StrictUndefined bool
	// Filters are filters added to the builtin ones (an Environment's
	// filters dict); the value filtered is the first argument.
	Filters map[string]*Callable
}

// ChatEnv is the chat-template environment of Hugging Face transformers:
// trim_blocks and lstrip_blocks on, undefined values lenient.
var ChatEnv = Env{TrimBlocks: true, LstripBlocks: true}

// Template is a compiled template; it is safe for concurrent use.
type Template struct {
	name  string
	nodes []node
	env   Env
}

// Compile parses a template in ChatEnv; name (a file, or "") goes into
// errors.
func Compile(name, src string) (*Template, error) { return ChatEnv.Compile(name, src) }

// Compile parses a template in the environment e; name (a file, or "")
// goes into errors.
func (e Env) Compile(name, src string) (*Template, error) {
	segs, err := split(src, e.TrimBlocks, e.LstripBlocks)
	if err == nil {
		var nodes []node
		nodes, err = parseTemplate(segs)
		if err == nil {
			return &Template{name: name, nodes: nodes, env: e}, nil
		}
	}
	var te *Error
	if errors.As(err, &te) {
		te.Name = name
	}
	return nil, err
}

// Renderer holds one render's state.
type Renderer struct {
	out      strings.Builder
	lim      Limits
	steps    int
	deadline time.Time
	ctx      context.Context
	name     string
	line     int
	globals  *scope
	depth    int // nested macro and recursive-loop calls
	env      *Env
	built    int // bytes of the strings and lists built, for MaxBuilt
	// err is a limit a conversion to text ran into (r.str, r.repr): those
	// return a cut string rather than an error, and every later check
	// (step, write, checkValue) returns err, so the render fails at its
	// next step and the cut string never reaches the output.
	err error
	// stop is set by a timer and the context (see step).
	stop atomic.Bool
}

// str is Python's str(v) for the render: a container's text is built
// only up to the render's size limit, and counted towards MaxBuilt.
func (r *Renderer) str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case Markup:
		return string(x)
	case Undefined:
		return ""
	}
	return r.repr(v)
}

// repr is Python's repr(v) for the render, bounded as str is.
func (r *Renderer) repr(v any) string {
	b := reprBuf{max: r.lim.MaxOutput}
	if r.lim.MaxBuilt > 0 && (b.max <= 0 || r.lim.MaxBuilt-r.built < b.max) {
		b.max = max(r.lim.MaxBuilt-r.built, 1)
	}
	writeRepr(&b, v)
	if err := r.checkSize(b.Len()); err != nil {
		r.fail(err)
	} else if err := r.spend(b.Len()); err != nil {
		r.fail(err)
	}
	return b.String()
}

// fail records the first limit a conversion ran into.
func (r *Renderer) fail(err error) {
	if r.err == nil {
		r.err = err
	}
}

// maxDepth bounds nested calls, as Python's recursion limit does.
const maxDepth = 400

type scope struct {
	vars   map[string]any
	parent *scope
}

func (s *scope) get(name string) (any, bool) {
	for ; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v, true
		}
	}
	return nil, false
}

func (s *scope) set(name string, v any) {
	if s.vars == nil {
		s.vars = map[string]any{}
	}
	s.vars[name] = v
}

type loopSignal int

const (
	sigNone loopSignal = iota
	sigBreak
	sigContinue
)

// Render renders with vars (template values, see FromGo) under lim. The
// context cancels it.
func (t *Template) Render(ctx context.Context, vars map[string]any, lim Limits) (string, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	r := &Renderer{lim: lim, ctx: ctx, name: t.name, env: &t.env}
	if lim.Timeout > 0 {
		r.deadline = time.Now().Add(lim.Timeout)
		tm := time.AfterFunc(lim.Timeout, func() { r.stop.Store(true) })
		defer tm.Stop()
	}
	if ctx.Done() != nil {
		defer context.AfterFunc(ctx, func() { r.stop.Store(true) })()
	}
	r.globals = &scope{vars: builtinGlobals()}
	top := &scope{vars: make(map[string]any, len(vars)), parent: r.globals}
	for k, v := range vars {
		top.vars[k] = v
	}
	_, err := r.exec(t.nodes, top, &r.out)
	if err == nil {
		err = r.err
	}
	if err != nil {
		return "", r.wrap(err)
	}
	return r.out.String(), nil
}

func (r *Renderer) wrap(err error) error {
	if r.err != nil {
		err = r.err // the limit first hit, not an error that quotes its cut text
	}
	var te *Error
	if errors.As(err, &te) {
		if te.Name == "" {
			te.Name = r.name
		}
		return te
	}
	msg := err.Error()
	var re *RaisedError
	if errors.As(err, &re) {
		msg = "raise_exception: " + re.Message
	}
	return &Error{Name: r.name, Line: r.line, Msg: msg, Err: err}
}

func (r *Renderer) limitErr(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrLimit}, a...)...)
}

// step counts one unit of work and checks the limits.
func (r *Renderer) step() error {
	if r.err != nil {
		return r.err
	}
	r.steps++
	if r.lim.MaxSteps > 0 && r.steps > r.lim.MaxSteps {
		return r.limitErr("more than %d loop iterations and calls", r.lim.MaxSteps)
	}
	// stop is set when the deadline passes or the context ends, so that
	// a render whose every step is slow still stops at its next one.
	if r.steps&1023 == 0 || r.stop.Load() {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		if !r.deadline.IsZero() && time.Now().After(r.deadline) {
			return r.limitErr("render took longer than %s", r.lim.Timeout)
		}
	}
	return nil
}

// checkValue bounds a string or list a function or filter produced.
func (r *Renderer) checkValue(v any) error {
	if r.err != nil {
		return r.err
	}
	switch x := v.(type) {
	case string:
		return r.build(len(x))
	case Markup:
		return r.build(len(x))
	case []any:
		return r.buildItems(len(x))
	case Tuple:
		return r.buildItems(len(x))
	}
	return nil
}

// build checks a string of n bytes that the render builds and counts it
// towards MaxBuilt.
func (r *Renderer) build(n int) error {
	if err := r.checkSize(n); err != nil {
		return err
	}
	return r.spend(n)
}

// buildItems is build for a list of n items, each counting for the
// 16 bytes of its slot.
func (r *Renderer) buildItems(n int) error {
	if err := r.checkItems(n); err != nil {
		return err
	}
	return r.spend(16 * n)
}

func (r *Renderer) spend(n int) error {
	r.built += n
	if r.lim.MaxBuilt > 0 && r.built > r.lim.MaxBuilt {
		return r.limitErr("built more than %d bytes of strings and lists", r.lim.MaxBuilt)
	}
	return nil
}

// maxItems bounds every list a render builds: 2^20 items take 16 MiB of
// item slots, as much memory as MaxOutput's default allows a string.
const maxItems = 1 << 20

func (r *Renderer) checkItems(n int) error {
	if r.lim.MaxOutput > 0 && n > min(r.lim.MaxOutput, maxItems) {
		return r.limitErr("list longer than %d items", min(r.lim.MaxOutput, maxItems))
	}
	return nil
}

func (r *Renderer) checkSize(n int) error {
	if r.lim.MaxOutput > 0 && n > r.lim.MaxOutput {
		return r.limitErr("output larger than %d bytes", r.lim.MaxOutput)
	}
	return nil
}

func (r *Renderer) write(w *strings.Builder, s string) error {
	if r.err != nil {
		return r.err
	}
	if err := r.checkSize(w.Len() + len(s)); err != nil {
		return err
	}
	w.WriteString(s)
	return nil
}

func (r *Renderer) exec(nodes []node, sc *scope, w *strings.Builder) (loopSignal, error) {
	for _, n := range nodes {
		sig, err := r.execNode(n, sc, w)
		if err != nil || sig != sigNone {
			return sig, err
		}
	}
	return sigNone, nil
}

func (r *Renderer) execNode(n node, sc *scope, w *strings.Builder) (loopSignal, error) {
	switch n := n.(type) {
	case *textNode:
		return sigNone, r.write(w, n.s)
	case *outputNode:
		r.line = n.line
		v, err := r.eval(n.x, sc)
		if err == nil && r.strict(v) != nil {
			err = fmt.Errorf("%w in {{ %s }}", r.strict(v), n.src)
		}
		if err != nil {
			return sigNone, err
		}
		return sigNone, r.write(w, r.str(v))
	case *ifNode:
		r.line = n.line
		for i, c := range n.conds {
			v, err := r.eval(c, sc)
			if err == nil {
				err = r.strict(v)
			}
			if err != nil {
				return sigNone, err
			}
			if truthy(v) {
				return r.exec(n.bodies[i], sc, w)
			}
		}
		return r.exec(n.els, sc, w)
	case *forNode:
		r.line = n.line
		return sigNone, r.execFor(n, sc, w, nil, 0)
	case *setNode:
		r.line = n.line
		v, err := r.eval(n.x, sc)
		if err != nil {
			return sigNone, err
		}
		return sigNone, r.assign(n.target, v, sc)
	case *setBlockNode:
		r.line = n.line
		var b strings.Builder
		if _, err := r.exec(n.body, &scope{parent: sc}, &b); err != nil {
			return sigNone, err
		}
		var v any = b.String()
		for _, f := range n.filters {
			var err error
			if v, err = r.applyFilter(f, v, sc); err != nil {
				return sigNone, err
			}
		}
		return sigNone, r.assign(n.target, v, sc)
	case *macroNode:
		sc.set(n.name, r.macro(n.name, n.params, n.defaults, n.body, sc))
		return sigNone, nil
	case *callBlockNode:
		r.line = n.line
		caller := r.macro("caller", n.params, n.defaults, n.body, sc)
		fn, err := r.eval(n.call.fn, sc)
		if err != nil {
			return sigNone, err
		}
		args, kw, err := r.evalArgs(n.call.args, sc)
		if err != nil {
			return sigNone, err
		}
		kw = append(kw, Kwarg{Name: "caller", Value: caller})
		v, err := r.call(fn, args, kw)
		if err != nil {
			return sigNone, err
		}
		return sigNone, r.write(w, r.str(v))
	case *filterBlockNode:
		r.line = n.line
		var b strings.Builder
		if _, err := r.exec(n.body, &scope{parent: sc}, &b); err != nil {
			return sigNone, err
		}
		var v any = b.String()
		for _, f := range n.filters {
			var err error
			if v, err = r.applyFilter(f, v, sc); err != nil {
				return sigNone, err
			}
		}
		return sigNone, r.write(w, r.str(v))
	case *withNode:
		inner := &scope{parent: sc}
		for i, name := range n.targets {
			v, err := r.eval(n.vals[i], sc)
			if err != nil {
				return sigNone, err
			}
			inner.set(name, v)
		}
		return r.exec(n.body, inner, w)
	case *loopCtlNode:
		if n.brk {
			return sigBreak, nil
		}
		return sigContinue, nil
	}
	return sigNone, fmt.Errorf("internal: unknown node %T", n)
}

func (r *Renderer) assign(target expr, v any, sc *scope) error {
	switch t := target.(type) {
	case *nameExpr:
		sc.set(t.name, v)
		return nil
	case *attrExpr:
		obj, err := r.eval(t.obj, sc)
		if err != nil {
			return err
		}
		ns, ok := obj.(*Namespace)
		if !ok {
			return fmt.Errorf("cannot assign attribute on non-namespace object")
		}
		ns.d.Set(t.name, v)
		return nil
	case *tupleExpr:
		items, err := r.iterate(v)
		if err != nil {
			return err
		}
		if len(items) != len(t.items) {
			return fmt.Errorf("cannot unpack %d values into %d names", len(items), len(t.items))
		}
		for i, it := range t.items {
			if err := r.assign(it, items[i], sc); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("cannot assign to this expression")
}

func (r *Renderer) execFor(n *forNode, sc *scope, w *strings.Builder, iterVal any, depth int) error {
	var it any
	var err error
	if depth == 0 {
		if it, err = r.eval(n.iter, sc); err != nil {
			return err
		}
	} else {
		it = iterVal
	}
	items, err := r.iterate(it)
	if err != nil {
		return err
	}
	if n.filter != nil {
		var kept []any
		for _, x := range items {
			if err := r.step(); err != nil {
				return err
			}
			fs := &scope{parent: sc}
			if err := r.assign(n.target, x, fs); err != nil {
				return err
			}
			c, err := r.eval(n.filter, fs)
			if err == nil {
				err = r.strict(c)
			}
			if err != nil {
				return err
			}
			if truthy(c) {
				kept = append(kept, x)
			}
		}
		items = kept
	}
	if len(items) == 0 {
		_, err := r.exec(n.els, sc, w)
		return err
	}
	lc := &loopCtx{items: items, depth: depth, n: n, sc: sc}
	for i, x := range items {
		if err := r.step(); err != nil {
			return err
		}
		inner := &scope{parent: sc}
		lc.i = i
		loop := lc
		inner.set("loop", loop)
		if err := r.assign(n.target, x, inner); err != nil {
			return err
		}
		sig, err := r.exec(n.body, inner, w)
		if err != nil {
			return err
		}
		if sig == sigBreak {
			break
		}
	}
	return nil
}

// loopCtx is the loop variable of a for loop.
type loopCtx struct {
	items       []any
	i, depth    int
	n           *forNode
	sc          *scope
	lastChanged any
	hasChanged  bool
}

func (l *loopCtx) attr(name string) (any, bool) {
	i, n := l.i, len(l.items)
	switch name {
	case "index":
		return int64(i + 1), true
	case "index0":
		return int64(i), true
	case "revindex":
		return int64(n - i), true
	case "revindex0":
		return int64(n - i - 1), true
	case "first":
		return i == 0, true
	case "last":
		return i == n-1, true
	case "length":
		return int64(n), true
	case "depth":
		return int64(l.depth + 1), true
	case "depth0":
		return int64(l.depth), true
	case "previtem":
		if i > 0 {
			return l.items[i-1], true
		}
		return Undefined{hint: "there is no previous item"}, true
	case "nextitem":
		if i < n-1 {
			return l.items[i+1], true
		}
		return Undefined{hint: "there is no next item"}, true
	case "cycle":
		return fn("cycle", func(r *Renderer, args []any, _ []Kwarg) (any, error) {
			if len(args) == 0 {
				return nil, fmt.Errorf("no items for cycling given")
			}
			return args[i%len(args)], nil
		}), true
	case "changed":
		return fn("changed", func(r *Renderer, args []any, _ []Kwarg) (any, error) {
			v := Tuple(args)
			if !l.hasChanged || !equal(l.lastChanged, v) {
				l.hasChanged, l.lastChanged = true, v
				return true, nil
			}
			return false, nil
		}), true
	}
	return nil, false
}

// iterate returns the items of an iterable: a dict yields its keys.
func (r *Renderer) iterate(v any) ([]any, error) {
	switch x := v.(type) {
	case []any:
		return x, nil
	case Tuple:
		return x, nil
	case *Dict:
		return append([]any(nil), x.keys...), nil
	case string:
		return chars(x), nil
	case Markup:
		return chars(string(x)), nil
	case Undefined:
		return nil, r.strict(x)
	case *Generator:
		if x.used {
			return nil, nil
		}
		x.used = true
		return x.items, nil
	}
	return nil, fmt.Errorf("'%s' object is not iterable", typeName(v))
}

func chars(s string) []any {
	out := make([]any, 0, len(s))
	for _, c := range s {
		out = append(out, string(c))
	}
	return out
}

// macro makes a callable from a macro body; the body sees the scope it
// was defined in.
func (r *Renderer) macro(name string, params []string, defaults []expr, body []node, def *scope) *Callable {
	return &Callable{Name: name, Fn: func(r *Renderer, args []any, kw []Kwarg) (any, error) {
		if err := r.step(); err != nil {
			return nil, err
		}
		r.depth++
		defer func() { r.depth-- }()
		if r.depth > maxDepth {
			return nil, r.limitErr("maximum recursion depth (%d) exceeded", maxDepth)
		}
		inner := &scope{parent: def}
		var varargs []any
		for i, p := range params {
			if i < len(args) {
				inner.set(p, args[i])
			}
		}
		if len(args) > len(params) {
			varargs = args[len(params):]
		}
		kwargs := NewDict()
		for _, k := range kw {
			found := false
			for _, p := range params {
				if p == k.Name {
					inner.set(p, k.Value)
					found = true
				}
			}
			if !found {
				if k.Name == "caller" {
					inner.set("caller", k.Value)
				} else {
					kwargs.Set(k.Name, k.Value)
				}
			}
		}
		for i, p := range params {
			if _, ok := inner.vars[p]; ok {
				continue
			}
			d := i - (len(params) - len(defaults))
			if d >= 0 {
				v, err := r.eval(defaults[d], inner)
				if err != nil {
					return nil, err
				}
				inner.set(p, v)
			} else {
				inner.set(p, Undefined{hint: fmt.Sprintf("parameter '%s' was not provided", p)})
			}
		}
		inner.set("varargs", Tuple(varargs))
		inner.set("kwargs", kwargs)
		var b strings.Builder
		saved := r.line
		if _, err := r.exec(body, inner, &b); err != nil {
			return nil, err
		}
		r.line = saved
		return b.String(), nil
	}}
}

// ---- expressions

func (r *Renderer) eval(x expr, sc *scope) (any, error) {
	switch x := x.(type) {
	case *constExpr:
		return x.v, nil
	case *nameExpr:
		if v, ok := sc.get(x.name); ok {
			return v, nil
		}
		return Undefined{hint: fmt.Sprintf("'%s' is undefined", x.name)}, nil
	case *listExpr:
		out := make([]any, len(x.items))
		for i, e := range x.items {
			v, err := r.eval(e, sc)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *tupleExpr:
		out := make(Tuple, len(x.items))
		for i, e := range x.items {
			v, err := r.eval(e, sc)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *dictExpr:
		d := NewDict()
		for i := range x.keys {
			k, err := r.eval(x.keys[i], sc)
			if err != nil {
				return nil, err
			}
			if !hashable(k) {
				return nil, fmt.Errorf("unhashable type: '%s'", typeName(k))
			}
			v, err := r.eval(x.vals[i], sc)
			if err != nil {
				return nil, err
			}
			d.Set(k, v)
		}
		return d, nil
	case *attrExpr:
		obj, err := r.eval(x.obj, sc)
		if err != nil {
			return nil, err
		}
		return r.getattr(obj, x.name)
	case *itemExpr:
		obj, err := r.eval(x.obj, sc)
		if err != nil {
			return nil, err
		}
		k, err := r.eval(x.key, sc)
		if err != nil {
			return nil, err
		}
		return r.getitem(obj, k)
	case *sliceExpr:
		return r.evalSlice(x, sc)
	case *callExpr:
		fn, err := r.eval(x.fn, sc)
		if err != nil {
			return nil, err
		}
		args, kw, err := r.evalArgs(x.args, sc)
		if err != nil {
			return nil, err
		}
		return r.call(fn, args, kw)
	case *filterExpr:
		v, err := r.eval(x.obj, sc)
		if err != nil {
			return nil, err
		}
		return r.applyFilter(x, v, sc)
	case *testExpr:
		v, err := r.eval(x.obj, sc)
		if err != nil {
			return nil, err
		}
		args, kw, err := r.evalArgs(x.args, sc)
		if err != nil {
			return nil, err
		}
		ok, err := r.test(x.name, v, args, kw, sc)
		if err != nil {
			return nil, err
		}
		return ok != x.neg, nil
	case *unaryExpr:
		v, err := r.eval(x.x, sc)
		if err == nil && x.op == "not" {
			err = r.strict(v)
		}
		if err != nil {
			return nil, err
		}
		switch x.op {
		case "not":
			return !truthy(v), nil
		case "-":
			switch n := v.(type) {
			case int64:
				return -n, nil
			case float64:
				return -n, nil
			case bool:
				return -boolInt(n), nil
			}
			return nil, fmt.Errorf("bad operand type for unary -: '%s'", typeName(v))
		case "+":
			switch n := v.(type) {
			case int64, float64:
				return n, nil
			case bool:
				return boolInt(n), nil
			}
			return nil, fmt.Errorf("bad operand type for unary +: '%s'", typeName(v))
		}
	case *binExpr:
		switch x.op {
		case "and":
			l, err := r.eval(x.l, sc)
			if err == nil {
				err = r.strict(l)
			}
			if err != nil || !truthy(l) {
				return l, err
			}
			return r.eval(x.r, sc)
		case "or":
			l, err := r.eval(x.l, sc)
			if err == nil {
				err = r.strict(l)
			}
			if err != nil || truthy(l) {
				return l, err
			}
			return r.eval(x.r, sc)
		}
		l, err := r.eval(x.l, sc)
		if err == nil {
			err = r.strict(l)
		}
		if err != nil {
			return nil, err
		}
		rv, err := r.eval(x.r, sc)
		if err == nil {
			err = r.strict(rv)
		}
		if err != nil {
			return nil, err
		}
		return r.binary(x.op, l, rv)
	case *condExpr:
		c, err := r.eval(x.cond, sc)
		if err == nil {
			err = r.strict(c)
		}
		if err != nil {
			return nil, err
		}
		if truthy(c) {
			return r.eval(x.a, sc)
		}
		if x.b == nil {
			return Undefined{hint: "the inline if-expression on line evaluated to false and no else section was defined."}, nil
		}
		return r.eval(x.b, sc)
	case *concatExpr:
		var b strings.Builder
		for _, e := range x.items {
			v, err := r.eval(e, sc)
			if err == nil {
				err = r.strict(v)
			}
			if err != nil {
				return nil, err
			}
			b.WriteString(r.str(v))
			if err := r.checkSize(b.Len()); err != nil {
				return nil, err
			}
		}
		return b.String(), r.build(b.Len())
	}
	return nil, fmt.Errorf("internal: unknown expression %T", x)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (r *Renderer) evalArgs(a callArgs, sc *scope) ([]any, []Kwarg, error) {
	args := make([]any, 0, len(a.pos))
	for _, e := range a.pos {
		v, err := r.eval(e, sc)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, v)
	}
	var kw []Kwarg
	for _, k := range a.kw {
		v, err := r.eval(k.v, sc)
		if err != nil {
			return nil, nil, err
		}
		kw = append(kw, Kwarg{Name: k.name, Value: v})
	}
	if a.star != nil {
		v, err := r.eval(a.star, sc)
		if err != nil {
			return nil, nil, err
		}
		items, err := r.iterate(v)
		if err != nil {
			return nil, nil, err
		}
		args = append(args, items...)
	}
	if a.starstr != nil {
		v, err := r.eval(a.starstr, sc)
		if err != nil {
			return nil, nil, err
		}
		d, ok := v.(*Dict)
		if !ok {
			return nil, nil, fmt.Errorf("argument after ** must be a mapping, not %s", typeName(v))
		}
		for _, k := range d.keys {
			val, _ := d.Get(k)
			kw = append(kw, Kwarg{Name: r.str(k), Value: val})
		}
	}
	return args, kw, nil
}

func (r *Renderer) call(fn any, args []any, kw []Kwarg) (any, error) {
	switch f := fn.(type) {
	case *Callable:
		if err := r.step(); err != nil {
			return nil, err
		}
		v, err := f.Fn(r, args, kw)
		if err == nil {
			err = r.checkValue(v)
		}
		return v, err
	case *Dict:
		if c, ok := f.Get("__call__"); ok {
			return r.call(c, args, kw)
		}
	case *loopCtx:
		if !f.n.recursive {
			return nil, fmt.Errorf("loop() is only callable in a recursive loop")
		}
		if len(args) != 1 {
			return nil, fmt.Errorf("loop() takes one iterable")
		}
		if f.depth+1 > maxDepth {
			return nil, r.limitErr("maximum recursion depth (%d) exceeded", maxDepth)
		}
		var b strings.Builder
		if err := r.execFor(f.n, f.sc, &b, args[0], f.depth+1); err != nil {
			return nil, err
		}
		return b.String(), nil
	case Undefined:
		if f.hint != "" {
			return nil, errors.New(f.hint)
		}
	}
	return nil, fmt.Errorf("'%s' object is not callable", typeName(fn))
}

func (r *Renderer) getattr(obj any, name string) (any, error) {
	switch o := obj.(type) {
	case Undefined:
		return nil, errors.New(o.undefinedMsg())
	case *Dict:
		if m := dictMethod(o, name); m != nil {
			return m, nil
		}
		if v, ok := o.Get(name); ok {
			return v, nil
		}
		return Undefined{hint: fmt.Sprintf("'dict object' has no attribute '%s'", name)}, nil
	case *Namespace:
		if v, ok := o.d.Get(name); ok {
			return v, nil
		}
	case *loopCtx:
		if v, ok := o.attr(name); ok {
			return v, nil
		}
	case string:
		if m := strMethod(o, name); m != nil {
			return m, nil
		}
	case Markup:
		if m := strMethod(string(o), name); m != nil {
			return m, nil
		}
	case []any:
		if m := listMethod(o, name); m != nil {
			return m, nil
		}
	case Tuple:
		if m := listMethod(o, name); m != nil {
			return m, nil
		}
	}
	return Undefined{hint: fmt.Sprintf("'%s object' has no attribute '%s'", typeName(obj), name)}, nil
}

// strict is the error jinja2's StrictUndefined raises when v is used and
// undefined; nil when v is defined or the environment is lenient.
func (r *Renderer) strict(v any) error {
	if u, ok := v.(Undefined); ok && r.env.StrictUndefined {
		return errors.New(u.undefinedMsg())
	}
	return nil
}

func (u Undefined) undefinedMsg() string {
	if u.hint == "" {
		return "value is undefined"
	}
	return u.hint
}

func (r *Renderer) getitem(obj, key any) (any, error) {
	switch o := obj.(type) {
	case Undefined:
		return nil, errors.New(o.undefinedMsg())
	case *Dict:
		if !hashable(key) {
			return nil, fmt.Errorf("unhashable type: '%s'", typeName(key))
		}
		if v, ok := o.Get(key); ok {
			return v, nil
		}
		if s, ok := key.(string); ok {
			if m := dictMethod(o, s); m != nil {
				return m, nil
			}
		}
		return Undefined{hint: fmt.Sprintf("'dict object' has no attribute %s", quoteStr(r.str(key)))}, nil
	case []any, Tuple, string, Markup:
		i, isInt := key.(int64)
		if b, ok := key.(bool); ok {
			i, isInt = boolInt(b), true
		}
		if isInt {
			var n int
			var get func(int) any
			switch o := o.(type) {
			case []any:
				n, get = len(o), func(j int) any { return o[j] }
			case Tuple:
				n, get = len(o), func(j int) any { return o[j] }
			case string:
				rs := []rune(o)
				n, get = len(rs), func(j int) any { return string(rs[j]) }
			case Markup:
				rs := []rune(string(o))
				n, get = len(rs), func(j int) any { return Markup(rs[j]) }
			}
			if i < 0 {
				i += int64(n)
			}
			if i >= 0 && i < int64(n) {
				return get(int(i)), nil
			}
			return Undefined{hint: fmt.Sprintf("%s object has no element %d", typeName(obj), key)}, nil
		}
		if s, ok := key.(string); ok {
			return r.getattr(obj, s)
		}
	case *Namespace:
		if s, ok := key.(string); ok {
			return r.getattr(obj, s)
		}
	}
	return Undefined{hint: fmt.Sprintf("'%s object' has no attribute %s", typeName(obj), r.repr(key))}, nil
}

func (r *Renderer) evalSlice(x *sliceExpr, sc *scope) (any, error) {
	obj, err := r.eval(x.obj, sc)
	if err != nil {
		return nil, err
	}
	var bounds [3]*int64
	for i, e := range []expr{x.start, x.stop, x.stp} {
		if e == nil {
			continue
		}
		v, err := r.eval(e, sc)
		if err != nil {
			return nil, err
		}
		if v == nil {
			continue
		}
		n, ok := v.(int64)
		if !ok {
			return nil, fmt.Errorf("slice indices must be integers or None")
		}
		bounds[i] = &n
	}
	var n int
	var items []any
	var rs []rune
	switch o := obj.(type) {
	case []any:
		items, n = o, len(o)
	case Tuple:
		items, n = o, len(o)
	case string:
		rs = []rune(o)
		n = len(rs)
	case Markup:
		rs = []rune(string(o))
		n = len(rs)
	case Undefined:
		return nil, errors.New(o.undefinedMsg())
	default:
		return nil, fmt.Errorf("'%s' object is not subscriptable", typeName(obj))
	}
	idx, err := sliceIndices(n, bounds)
	if err != nil {
		return nil, err
	}
	switch o := obj.(type) {
	case []any:
		out := make([]any, len(idx))
		for i, j := range idx {
			out[i] = items[j]
		}
		return out, nil
	case Tuple:
		out := make(Tuple, len(idx))
		for i, j := range idx {
			out[i] = items[j]
		}
		return out, nil
	case string, Markup:
		var b strings.Builder
		for _, j := range idx {
			b.WriteRune(rs[j])
		}
		if _, ok := o.(Markup); ok {
			return Markup(b.String()), nil
		}
		return b.String(), nil
	}
	return nil, nil
}

// sliceIndices is Python's slice.indices, expanded.
func sliceIndices(n int, b [3]*int64) ([]int, error) {
	step := int64(1)
	if b[2] != nil {
		step = *b[2]
		if step == 0 {
			return nil, fmt.Errorf("slice step cannot be zero")
		}
	}
	ln := int64(n)
	clamp := func(p *int64, def int64) int64 {
		if p == nil {
			return def
		}
		v := *p
		if v < 0 {
			v += ln
			if v < 0 {
				if step < 0 {
					return -1
				}
				return 0
			}
		}
		if v >= ln {
			if step < 0 {
				return ln - 1
			}
			return ln
		}
		return v
	}
	var start, stop int64
	if step > 0 {
		start, stop = clamp(b[0], 0), clamp(b[1], ln)
	} else {
		start, stop = clamp(b[0], ln-1), clamp(b[1], -1)
	}
	var out []int
	for i := start; step > 0 && i < stop || step < 0 && i > stop; i += step {
		out = append(out, int(i))
	}
	return out, nil
}

func (r *Renderer) binary(op string, l, rv any) (any, error) {
	switch op {
	case "==":
		return equal(l, rv), nil
	case "!=":
		return !equal(l, rv), nil
	case "<", ">", "<=", ">=":
		c, err := compare(l, rv)
		if err != nil {
			return nil, fmt.Errorf("'%s' not supported between instances of '%s' and '%s'", op, typeName(l), typeName(rv))
		}
		switch op {
		case "<":
			return c < 0, nil
		case ">":
			return c > 0, nil
		case "<=":
			return c <= 0, nil
		}
		return c >= 0, nil
	case "in":
		return contains(rv, l)
	case "not in":
		ok, err := contains(rv, l)
		return !ok, err
	case "+":
		return r.add(l, rv)
	case "*":
		return r.mul(l, rv)
	}
	return arith(op, l, rv)
}

func (r *Renderer) add(l, rv any) (any, error) {
	switch a := l.(type) {
	case string:
		switch b := rv.(type) {
		case string:
			if err := r.build(len(a) + len(b)); err != nil {
				return nil, err
			}
			return a + b, nil
		case Markup:
			return Markup(escapeHTML(a)) + b, nil
		}
	case Markup:
		switch b := rv.(type) {
		case string:
			return a + Markup(escapeHTML(b)), nil
		case Markup:
			return a + b, nil
		}
	case []any:
		switch b := rv.(type) {
		case []any:
			if err := r.buildItems(len(a) + len(b)); err != nil {
				return nil, err
			}
			out := make([]any, 0, len(a)+len(b))
			return append(append(out, a...), b...), nil
		}
	case Tuple:
		if b, ok := rv.(Tuple); ok {
			if err := r.buildItems(len(a) + len(b)); err != nil {
				return nil, err
			}
			out := make(Tuple, 0, len(a)+len(b))
			return append(append(out, a...), b...), nil
		}
	}
	if isNum(l) && isNum(rv) {
		return arith("+", l, rv)
	}
	return nil, fmt.Errorf("unsupported operand type(s) for +: '%s' and '%s'", typeName(l), typeName(rv))
}

func (r *Renderer) mul(l, rv any) (any, error) {
	if n, ok := rv.(int64); ok {
		switch a := l.(type) {
		case string:
			if n <= 0 {
				return "", nil
			}
			if err := r.build(len(a) * int(min(n, math.MaxInt32))); err != nil {
				return nil, err
			}
			return strings.Repeat(a, int(n)), nil
		case []any:
			if n <= 0 {
				return []any{}, nil
			}
			if err := r.buildItems(len(a) * int(min(n, math.MaxInt32))); err != nil {
				return nil, err
			}
			var out []any
			for range n {
				out = append(out, a...)
			}
			return out, nil
		}
	}
	if n, ok := l.(int64); ok {
		if _, ok := rv.(string); ok {
			return r.mul(rv, n)
		}
	}
	if isNum(l) && isNum(rv) {
		return arith("*", l, rv)
	}
	return nil, fmt.Errorf("unsupported operand type(s) for *: '%s' and '%s'", typeName(l), typeName(rv))
}

func isNum(v any) bool {
	switch v.(type) {
	case int64, float64, bool:
		return true
	}
	return false
}

func arith(op string, l, rv any) (any, error) {
	if !isNum(l) || !isNum(rv) {
		return nil, fmt.Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, typeName(l), typeName(rv))
	}
	if b, ok := l.(bool); ok {
		l = boolInt(b)
	}
	if b, ok := rv.(bool); ok {
		rv = boolInt(b)
	}
	ai, aInt := l.(int64)
	bi, bInt := rv.(int64)
	if aInt && bInt {
		return pyval.IntOp(op, ai, bi)
	}
	v, err := pyval.FloatOp(op, toFloat(l), toFloat(rv))
	if errors.Is(err, pyval.ErrOperator) {
		return nil, fmt.Errorf("unknown operator %s", op)
	}
	return v, err
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case bool:
		return float64(boolInt(x))
	}
	return 0
}

func equal(a, b any) bool {
	if isNum(a) && isNum(b) {
		return toFloat(a) == toFloat(b)
	}
	switch x := a.(type) {
	case nil:
		return b == nil
	case string:
		switch y := b.(type) {
		case string:
			return x == y
		case Markup:
			return x == string(y)
		}
		return false
	case Markup:
		return equal(string(x), b)
	case []any:
		y, ok := b.([]any)
		return ok && equalSeq(x, y)
	case Tuple:
		y, ok := b.(Tuple)
		return ok && equalSeq(x, y)
	case *Dict:
		y, ok := b.(*Dict)
		if !ok || x.Len() != y.Len() {
			return false
		}
		if x == y {
			return true
		}
		for _, k := range x.keys {
			v1, _ := x.Get(k)
			v2, ok := y.Get(k)
			if !ok || !equal(v1, v2) {
				return false
			}
		}
		return true
	case Undefined:
		_, ok := b.(Undefined)
		return ok
	}
	return a == b
}

func equalSeq(a, b []any) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 || &a[0] == &b[0] {
		return true // the same list, as Python's identity shortcut
	}
	for i := range a {
		if !equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func compare(a, b any) (int, error) {
	if isNum(a) && isNum(b) {
		x, y := toFloat(a), toFloat(b)
		switch {
		case x < y:
			return -1, nil
		case x > y:
			return 1, nil
		}
		return 0, nil
	}
	sa, ok1 := asStr(a)
	sb, ok2 := asStr(b)
	if ok1 && ok2 {
		return strings.Compare(sa, sb), nil
	}
	la, ok1 := asSeq(a)
	lb, ok2 := asSeq(b)
	if ok1 && ok2 && len(la) == len(lb) && equalSeq(la, lb) {
		return 0, nil
	}
	if ok1 && ok2 {
		for i := 0; i < len(la) && i < len(lb); i++ {
			if !equal(la[i], lb[i]) {
				return compare(la[i], lb[i])
			}
		}
		return len(la) - len(lb), nil
	}
	return 0, fmt.Errorf("not comparable")
}

func asStr(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case Markup:
		return string(x), true
	}
	return "", false
}

func asSeq(v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		return x, true
	case Tuple:
		return x, true
	}
	return nil, false
}

func contains(container, item any) (bool, error) {
	switch c := container.(type) {
	case string, Markup:
		s, _ := asStr(c)
		sub, ok := asStr(item)
		if !ok {
			return false, fmt.Errorf("'in <string>' requires string as left operand, not %s", typeName(item))
		}
		return strings.Contains(s, sub), nil
	case []any, Tuple:
		l, _ := asSeq(c)
		for _, x := range l {
			if equal(x, item) {
				return true, nil
			}
		}
		return false, nil
	case *Dict:
		_, ok := c.Get(item)
		return ok, nil
	case *Generator:
		items := c.items
		if c.used {
			items = nil
		}
		for i, x := range items {
			if equal(x, item) {
				c.items = items[i+1:]
				return true, nil
			}
		}
		c.used = true
		return false, nil
	case Undefined:
		return false, nil
	}
	return false, fmt.Errorf("argument of type '%s' is not iterable", typeName(container))
}
