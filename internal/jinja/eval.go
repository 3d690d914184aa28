package jinja

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
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
	compared int // values compared (see tick)
	// err is a limit a conversion to text ran into (r.str, r.repr), or
	// the stop a comparison ran into (tick): those return a cut string or
	// a provisional answer rather than an error, and every later check
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
		return r.checkStop()
	}
	return nil
}

// checkStop is the render's context error, or ErrLimit once its deadline
// has passed.
func (r *Renderer) checkStop() error {
	if err := r.ctx.Err(); err != nil {
		return err
	}
	if !r.deadline.IsZero() && time.Now().After(r.deadline) {
		return r.limitErr("render took longer than %s", r.lim.Timeout)
	}
	return nil
}

// tick counts one value compared by ==, <, in and the filters and
// methods that compare (comparisons over large or aliased containers
// build nothing, but may compare billions of items). It checks, as step
// does, the deadline and the context, and reports false once the render
// must stop: r.err is then set (a limit already hit, the deadline's
// ErrLimit or the context's error), so the comparison's answer never
// reaches the output. A nil r (no render) has no limit.
func (r *Renderer) tick() bool {
	if r == nil {
		return true
	}
	if r.err != nil {
		return false
	}
	r.compared++
	if r.compared&1023 == 0 || r.stop.Load() {
		if err := r.checkStop(); err != nil {
			r.err = err
			return false
		}
	}
	return true
}

// stopped is r.err (nil for a nil r): what a comparison that tick
// stopped returns.
func (r *Renderer) stopped() error {
	if r == nil {
		return nil
	}
	return r.err
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
			if !l.hasChanged || !r.equal(l.lastChanged, v) {
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
		return append([]any(nil), x.Keys()...), nil
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
