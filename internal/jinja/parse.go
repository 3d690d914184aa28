package jinja

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// ---- tokens

const (
	tEOF = iota
	tName
	tString
	tInt
	tFloat
	tOp
)

type token struct {
	kind int
	s    string
	i    int64
	f    float64
}

var ops3 = []string{"**", "//", "==", "!=", "<=", ">="}

func tokenize(src string, line int) ([]token, error) {
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i + 1
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			toks = append(toks, token{kind: tName, s: src[i:j]})
			i = j
		case c >= '0' && c <= '9':
			j := i
			isFloat := false
			for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
				j++
			}
			if j+1 < len(src) && src[j] == '.' && src[j+1] >= '0' && src[j+1] <= '9' {
				isFloat = true
				j++
				for j < len(src) && (src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
					j++
				}
			}
			if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
				k := j + 1
				if k < len(src) && (src[k] == '+' || src[k] == '-') {
					k++
				}
				if k < len(src) && src[k] >= '0' && src[k] <= '9' {
					isFloat = true
					j = k
					for j < len(src) && src[j] >= '0' && src[j] <= '9' {
						j++
					}
				}
			}
			lit := strings.ReplaceAll(src[i:j], "_", "")
			if isFloat {
				f, err := strconv.ParseFloat(lit, 64)
				if err != nil {
					return nil, &Error{Line: line, Msg: "bad number " + lit}
				}
				toks = append(toks, token{kind: tFloat, f: f})
			} else {
				n, err := strconv.ParseInt(lit, 10, 64)
				if err != nil {
					return nil, &Error{Line: line, Msg: "integer " + lit + " is beyond 64 bits"}
				}
				toks = append(toks, token{kind: tInt, i: n})
			}
			i = j
		case c == '"' || c == '\'':
			// jinja2's string literals: no prefixes or triple quotes, line
			// breaks allowed, Python's escapes (unicode-escape).
			s, n, err := pyval.Unquote(src[i:], pyval.Quote{Newlines: true})
			if err != nil {
				return nil, &Error{Line: line, Msg: err.Error()}
			}
			toks = append(toks, token{kind: tString, s: s})
			i += n
		default:
			op := ""
			for _, o := range ops3 {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				if !strings.ContainsRune("+-*/%~()[]{}.,:|=<>!", rune(c)) {
					return nil, &Error{Line: line, Msg: fmt.Sprintf("unexpected character %q", c)}
				}
				op = string(c)
			}
			toks = append(toks, token{kind: tOp, s: op})
			i += len(op)
		}
	}
	return append(toks, token{kind: tEOF}), nil
}

// ---- AST

type expr interface{}

type (
	constExpr struct{ v any }
	nameExpr  struct{ name string }
	listExpr  struct{ items []expr }
	tupleExpr struct{ items []expr }
	dictExpr  struct{ keys, vals []expr }
	attrExpr  struct {
		obj  expr
		name string
	}
	itemExpr  struct{ obj, key expr }
	sliceExpr struct {
		obj              expr
		start, stop, stp expr
	}
	callExpr struct {
		fn   expr
		args callArgs
	}
	filterExpr struct {
		obj  expr // nil inside {% filter %}
		name string
		args callArgs
	}
	testExpr struct {
		obj  expr
		name string
		args callArgs
		neg  bool
	}
	unaryExpr struct {
		op string
		x  expr
	}
	binExpr struct {
		op   string
		l, r expr
	}
	condExpr   struct{ cond, a, b expr }
	concatExpr struct{ items []expr }
)

type callArgs struct {
	pos     []expr
	kw      []kwExpr
	star    expr // *args
	starstr expr // **kwargs
}

type kwExpr struct {
	name string
	v    expr
}

// ---- statements

type node interface{}

type (
	textNode   struct{ s string }
	outputNode struct {
		x    expr
		line int
		src  string // the tag's expression, for errors
	}
	ifNode struct {
		conds  []expr
		bodies [][]node
		els    []node
		line   int
	}
	forNode struct {
		target    expr
		iter      expr
		filter    expr
		body, els []node
		recursive bool
		line      int
	}
	setNode struct {
		target expr
		x      expr
		line   int
	}
	setBlockNode struct {
		target  expr
		filters []*filterExpr
		body    []node
		line    int
	}
	macroNode struct {
		name     string
		params   []string
		defaults []expr // aligned to the end of params
		body     []node
		line     int
	}
	callBlockNode struct {
		call     *callExpr
		params   []string
		defaults []expr
		body     []node
		line     int
	}
	filterBlockNode struct {
		filters []*filterExpr
		body    []node
		line    int
	}
	withNode struct {
		targets []string
		vals    []expr
		body    []node
		line    int
	}
	loopCtlNode struct {
		brk  bool
		line int
	}
)

// ---- parser

type parser struct {
	nest int // expression nesting, bounded as Python's parser bounds it
	segs []segment
	si   int
	toks []token
	ti   int
	line int
}

func parseTemplate(segs []segment) ([]node, error) {
	p := &parser{segs: segs}
	nodes, end, err := p.parseBody(nil)
	if err != nil {
		return nil, err
	}
	if end != "" {
		return nil, p.errf("unexpected '%s'", end)
	}
	return nodes, nil
}

func (p *parser) errf(format string, a ...any) error {
	return &Error{Line: p.line, Msg: fmt.Sprintf(format, a...)}
}

// parseBody parses nodes until a block tag whose first word is in ends;
// it returns that word (the tag's tokens are left for the caller).
func (p *parser) parseBody(ends []string) ([]node, string, error) {
	var nodes []node
	for p.si < len(p.segs) {
		s := p.segs[p.si]
		p.si++
		p.line = s.line
		switch s.kind {
		case segText:
			nodes = append(nodes, &textNode{s: s.text})
		case segVar:
			if err := p.start(s); err != nil {
				return nil, "", err
			}
			x, err := p.expr()
			if err != nil {
				return nil, "", err
			}
			if err := p.end(); err != nil {
				return nil, "", err
			}
			nodes = append(nodes, &outputNode{x: x, line: s.line, src: strings.TrimSpace(s.text)})
		case segBlock:
			if err := p.start(s); err != nil {
				return nil, "", err
			}
			t := p.peek()
			if t.kind != tName {
				return nil, "", p.errf("tag name expected")
			}
			for _, e := range ends {
				if t.s == e {
					p.ti++
					return nodes, e, nil
				}
			}
			n, err := p.statement()
			if err != nil {
				return nil, "", err
			}
			nodes = append(nodes, n)
		}
	}
	if len(ends) > 0 {
		return nil, "", p.errf("unexpected end of template, expected '%s'", ends[len(ends)-1])
	}
	return nodes, "", nil
}

func (p *parser) start(s segment) error {
	toks, err := tokenize(s.text, s.line)
	if err != nil {
		return err
	}
	p.toks, p.ti, p.line = toks, 0, s.line
	return nil
}

func (p *parser) peek() token { return p.toks[p.ti] }

func (p *parser) next() token {
	t := p.toks[p.ti]
	if t.kind != tEOF {
		p.ti++
	}
	return t
}

func (p *parser) isOp(s string) bool {
	t := p.peek()
	return t.kind == tOp && t.s == s
}

func (p *parser) isName(s string) bool {
	t := p.peek()
	return t.kind == tName && t.s == s
}

func (p *parser) acceptOp(s string) bool {
	if p.isOp(s) {
		p.ti++
		return true
	}
	return false
}

func (p *parser) acceptName(s string) bool {
	if p.isName(s) {
		p.ti++
		return true
	}
	return false
}

func (p *parser) expectOp(s string) error {
	if !p.acceptOp(s) {
		return p.errf("expected '%s', got %s", s, describe(p.peek()))
	}
	return nil
}

func (p *parser) expectName() (string, error) {
	t := p.next()
	if t.kind != tName {
		return "", p.errf("expected a name, got %s", describe(t))
	}
	return t.s, nil
}

func describe(t token) string {
	switch t.kind {
	case tEOF:
		return "end of tag"
	case tString:
		return "string " + quoteStr(t.s)
	case tInt:
		return "integer"
	case tFloat:
		return "float"
	}
	return "'" + t.s + "'"
}

func (p *parser) end() error {
	if p.peek().kind != tEOF {
		return p.errf("unexpected %s", describe(p.peek()))
	}
	return nil
}

func (p *parser) statement() (node, error) {
	line := p.line
	kw := p.next().s
	switch kw {
	case "if":
		n := &ifNode{line: line}
		for {
			c, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.end(); err != nil {
				return nil, err
			}
			body, end, err := p.parseBody([]string{"elif", "else", "endif"})
			if err != nil {
				return nil, err
			}
			n.conds = append(n.conds, c)
			n.bodies = append(n.bodies, body)
			switch end {
			case "elif":
				continue
			case "else":
				if err := p.end(); err != nil {
					return nil, err
				}
				n.els, _, err = p.parseBody([]string{"endif"})
				if err != nil {
					return nil, err
				}
			}
			return n, p.end()
		}
	case "for":
		n := &forNode{line: line}
		var err error
		if n.target, err = p.assignTarget(false); err != nil {
			return nil, err
		}
		if !p.acceptName("in") {
			return nil, p.errf("expected 'in'")
		}
		if n.iter, err = p.tuple(false, true); err != nil {
			return nil, err
		}
		if p.acceptName("if") {
			if n.filter, err = p.expr(); err != nil {
				return nil, err
			}
		}
		n.recursive = p.acceptName("recursive")
		if err := p.end(); err != nil {
			return nil, err
		}
		body, end, err := p.parseBody([]string{"else", "endfor"})
		if err != nil {
			return nil, err
		}
		n.body = body
		if end == "else" {
			if err := p.end(); err != nil {
				return nil, err
			}
			if n.els, _, err = p.parseBody([]string{"endfor"}); err != nil {
				return nil, err
			}
		}
		return n, p.end()
	case "set":
		target, err := p.assignTarget(true)
		if err != nil {
			return nil, err
		}
		if p.acceptOp("=") {
			x, err := p.tuple(false, false)
			if err != nil {
				return nil, err
			}
			return &setNode{target: target, x: x, line: line}, p.end()
		}
		n := &setBlockNode{target: target, line: line}
		for p.acceptOp("|") {
			f, err := p.filterCall(nil)
			if err != nil {
				return nil, err
			}
			n.filters = append(n.filters, f)
		}
		if err := p.end(); err != nil {
			return nil, err
		}
		if n.body, _, err = p.parseBody([]string{"endset"}); err != nil {
			return nil, err
		}
		return n, p.end()
	case "macro":
		name, err := p.expectName()
		if err != nil {
			return nil, err
		}
		params, defaults, err := p.signature()
		if err != nil {
			return nil, err
		}
		if err := p.end(); err != nil {
			return nil, err
		}
		body, _, err := p.parseBody([]string{"endmacro"})
		if err != nil {
			return nil, err
		}
		return &macroNode{name: name, params: params, defaults: defaults, body: body, line: line}, p.end()
	case "call":
		n := &callBlockNode{line: line}
		var err error
		if p.isOp("(") {
			if n.params, n.defaults, err = p.signature(); err != nil {
				return nil, err
			}
		}
		x, err := p.expr()
		if err != nil {
			return nil, err
		}
		c, ok := x.(*callExpr)
		if !ok {
			return nil, p.errf("expected a call")
		}
		n.call = c
		if err := p.end(); err != nil {
			return nil, err
		}
		if n.body, _, err = p.parseBody([]string{"endcall"}); err != nil {
			return nil, err
		}
		return n, p.end()
	case "filter":
		n := &filterBlockNode{line: line}
		for {
			f, err := p.filterCall(nil)
			if err != nil {
				return nil, err
			}
			n.filters = append(n.filters, f)
			if !p.acceptOp("|") {
				break
			}
		}
		if err := p.end(); err != nil {
			return nil, err
		}
		var err error
		if n.body, _, err = p.parseBody([]string{"endfilter"}); err != nil {
			return nil, err
		}
		return n, p.end()
	case "with":
		n := &withNode{line: line}
		for p.peek().kind != tEOF {
			if len(n.targets) > 0 {
				if err := p.expectOp(","); err != nil {
					return nil, err
				}
			}
			name, err := p.expectName()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp("="); err != nil {
				return nil, err
			}
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			n.targets = append(n.targets, name)
			n.vals = append(n.vals, v)
		}
		var err error
		if n.body, _, err = p.parseBody([]string{"endwith"}); err != nil {
			return nil, err
		}
		return n, p.end()
	case "generation":
		// transformers' assistant-mask tag: renders its body
		if err := p.end(); err != nil {
			return nil, err
		}
		body, _, err := p.parseBody([]string{"endgeneration"})
		if err != nil {
			return nil, err
		}
		return &withNode{body: body, line: line}, p.end()
	case "break", "continue":
		return &loopCtlNode{brk: kw == "break", line: line}, p.end()
	}
	return nil, p.errf("unknown or unsupported tag '%s'", kw)
}

// signature parses "(a, b=1, ...)".
func (p *parser) signature() ([]string, []expr, error) {
	if err := p.expectOp("("); err != nil {
		return nil, nil, err
	}
	var params []string
	var defaults []expr
	for !p.acceptOp(")") {
		if len(params) > 0 {
			if err := p.expectOp(","); err != nil {
				return nil, nil, err
			}
			if p.acceptOp(")") {
				break
			}
		}
		name, err := p.expectName()
		if err != nil {
			return nil, nil, err
		}
		params = append(params, name)
		if p.acceptOp("=") {
			d, err := p.expr()
			if err != nil {
				return nil, nil, err
			}
			defaults = append(defaults, d)
		} else if len(defaults) > 0 {
			return nil, nil, p.errf("non-default argument follows default argument")
		}
	}
	return params, defaults, nil
}

// assignTarget parses a name, a tuple of names, or (for set) ns.attr.
func (p *parser) assignTarget(allowAttr bool) (expr, error) {
	paren := p.acceptOp("(")
	var names []expr
	for {
		name, err := p.expectName()
		if err != nil {
			return nil, err
		}
		var t expr = &nameExpr{name: name}
		if allowAttr && p.acceptOp(".") {
			attr, err := p.expectName()
			if err != nil {
				return nil, err
			}
			t = &attrExpr{obj: t, name: attr}
		}
		names = append(names, t)
		if !p.acceptOp(",") {
			break
		}
		if paren && p.isOp(")") || p.isName("in") || p.isOp("=") {
			break
		}
	}
	if paren {
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	}
	if len(names) == 1 && !paren {
		return names[0], nil
	}
	return &tupleExpr{items: names}, nil
}

// tuple parses an expression list; a bare comma list makes a tuple.
func (p *parser) tuple(simplified, noCond bool) (expr, error) {
	var items []expr
	comma := false
	for {
		if len(items) > 0 {
			if !p.acceptOp(",") {
				break
			}
			comma = true
			if t := p.peek(); t.kind == tEOF || t.kind == tOp && (t.s == ")" || t.s == "]" || t.s == "}") || p.isName("if") || p.isName("recursive") {
				break
			}
		}
		var x expr
		var err error
		if noCond {
			x, err = p.or()
		} else {
			x, err = p.expr()
		}
		if err != nil {
			return nil, err
		}
		items = append(items, x)
	}
	if !comma && len(items) == 1 {
		return items[0], nil
	}
	return &tupleExpr{items: items}, nil
}

func (p *parser) expr() (expr, error) {
	x, err := p.or()
	if err != nil {
		return nil, err
	}
	for p.acceptName("if") {
		c, err := p.or()
		if err != nil {
			return nil, err
		}
		var b expr
		if p.acceptName("else") {
			if b, err = p.expr(); err != nil {
				return nil, err
			}
		}
		x = &condExpr{cond: c, a: x, b: b}
	}
	return x, nil
}

func (p *parser) or() (expr, error) {
	x, err := p.and()
	for err == nil && p.acceptName("or") {
		var r expr
		r, err = p.and()
		x = &binExpr{op: "or", l: x, r: r}
	}
	return x, err
}

func (p *parser) and() (expr, error) {
	x, err := p.not()
	for err == nil && p.acceptName("and") {
		var r expr
		r, err = p.not()
		x = &binExpr{op: "and", l: x, r: r}
	}
	return x, err
}

func (p *parser) not() (expr, error) {
	if p.acceptName("not") {
		x, err := p.not()
		return &unaryExpr{op: "not", x: x}, err
	}
	return p.compare()
}

func (p *parser) compare() (expr, error) {
	x, err := p.math1()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		var op string
		switch {
		case t.kind == tOp && (t.s == "==" || t.s == "!=" || t.s == "<" || t.s == ">" || t.s == "<=" || t.s == ">="):
			op = t.s
			p.ti++
		case p.isName("in"):
			op = "in"
			p.ti++
		case p.isName("not") && p.toks[p.ti+1].kind == tName && p.toks[p.ti+1].s == "in":
			op = "not in"
			p.ti += 2
		default:
			return x, nil
		}
		r, err := p.math1()
		if err != nil {
			return nil, err
		}
		// chained comparisons a < b < c are rare in templates: left-assoc
		x = &binExpr{op: op, l: x, r: r}
	}
}

func (p *parser) math1() (expr, error) {
	x, err := p.concat()
	for err == nil && (p.isOp("+") || p.isOp("-")) {
		op := p.next().s
		var r expr
		r, err = p.concat()
		x = &binExpr{op: op, l: x, r: r}
	}
	return x, err
}

func (p *parser) concat() (expr, error) {
	x, err := p.math2()
	if err != nil || !p.isOp("~") {
		return x, err
	}
	items := []expr{x}
	for p.acceptOp("~") {
		r, err := p.math2()
		if err != nil {
			return nil, err
		}
		items = append(items, r)
	}
	return &concatExpr{items: items}, nil
}

func (p *parser) math2() (expr, error) {
	x, err := p.pow()
	for err == nil && (p.isOp("*") || p.isOp("/") || p.isOp("//") || p.isOp("%")) {
		op := p.next().s
		var r expr
		r, err = p.pow()
		x = &binExpr{op: op, l: x, r: r}
	}
	return x, err
}

func (p *parser) pow() (expr, error) {
	x, err := p.unary(true)
	for err == nil && p.acceptOp("**") {
		var r expr
		r, err = p.unary(true)
		x = &binExpr{op: "**", l: x, r: r}
	}
	return x, err
}

func (p *parser) unary(withFilter bool) (expr, error) {
	p.nest++
	defer func() { p.nest-- }()
	if p.nest > 200 {
		return nil, p.errf("expression nested too deeply")
	}
	var x expr
	var err error
	switch {
	case p.acceptOp("-"):
		var y expr
		y, err = p.unary(false)
		x = &unaryExpr{op: "-", x: y}
	case p.acceptOp("+"):
		var y expr
		y, err = p.unary(false)
		x = &unaryExpr{op: "+", x: y}
	default:
		x, err = p.primary()
	}
	if err != nil {
		return nil, err
	}
	if x, err = p.postfix(x); err != nil {
		return nil, err
	}
	if withFilter {
		return p.filterTests(x)
	}
	return x, nil
}

func (p *parser) primary() (expr, error) {
	t := p.next()
	switch t.kind {
	case tName:
		switch t.s {
		case "true", "True":
			return &constExpr{v: true}, nil
		case "false", "False":
			return &constExpr{v: false}, nil
		case "none", "None":
			return &constExpr{v: nil}, nil
		}
		return &nameExpr{name: t.s}, nil
	case tString:
		s := t.s
		for p.peek().kind == tString { // adjacent literals concatenate
			s += p.next().s
		}
		return &constExpr{v: s}, nil
	case tInt:
		return &constExpr{v: t.i}, nil
	case tFloat:
		return &constExpr{v: t.f}, nil
	case tOp:
		switch t.s {
		case "(":
			if p.acceptOp(")") {
				return &tupleExpr{}, nil
			}
			x, err := p.tuple(false, false)
			if err != nil {
				return nil, err
			}
			return x, p.expectOp(")")
		case "[":
			l := &listExpr{}
			for !p.acceptOp("]") {
				if len(l.items) > 0 {
					if err := p.expectOp(","); err != nil {
						return nil, err
					}
					if p.acceptOp("]") {
						break
					}
				}
				x, err := p.expr()
				if err != nil {
					return nil, err
				}
				l.items = append(l.items, x)
			}
			return l, nil
		case "{":
			d := &dictExpr{}
			for !p.acceptOp("}") {
				if len(d.keys) > 0 {
					if err := p.expectOp(","); err != nil {
						return nil, err
					}
					if p.acceptOp("}") {
						break
					}
				}
				k, err := p.expr()
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(":"); err != nil {
					return nil, err
				}
				v, err := p.expr()
				if err != nil {
					return nil, err
				}
				d.keys = append(d.keys, k)
				d.vals = append(d.vals, v)
			}
			return d, nil
		}
	}
	return nil, p.errf("unexpected %s", describe(t))
}

func (p *parser) postfix(x expr) (expr, error) {
	for {
		switch {
		case p.acceptOp("."):
			t := p.next()
			switch t.kind {
			case tName:
				x = &attrExpr{obj: x, name: t.s}
			case tInt:
				x = &itemExpr{obj: x, key: &constExpr{v: t.i}}
			default:
				return nil, p.errf("expected an attribute name after '.'")
			}
		case p.acceptOp("["):
			var err error
			if x, err = p.subscript(x); err != nil {
				return nil, err
			}
		case p.isOp("("):
			args, err := p.callArgs()
			if err != nil {
				return nil, err
			}
			x = &callExpr{fn: x, args: args}
		default:
			return x, nil
		}
	}
}

func (p *parser) subscript(x expr) (expr, error) {
	var parts [3]expr
	n := 0
	isSlice := false
	for {
		if p.isOp(":") {
			p.ti++
			isSlice = true
			n++
			if n > 2 {
				return nil, p.errf("bad slice")
			}
			continue
		}
		if p.acceptOp("]") {
			break
		}
		if parts[n] != nil {
			return nil, p.errf("expected ']'")
		}
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if !isSlice && p.isOp(",") { // a[1, 2]: tuple key
			items := []expr{e}
			for p.acceptOp(",") && !p.isOp("]") {
				e2, err := p.expr()
				if err != nil {
					return nil, err
				}
				items = append(items, e2)
			}
			e = &tupleExpr{items: items}
		}
		parts[n] = e
	}
	if !isSlice {
		if parts[0] == nil {
			return nil, p.errf("empty subscript")
		}
		return &itemExpr{obj: x, key: parts[0]}, nil
	}
	return &sliceExpr{obj: x, start: parts[0], stop: parts[1], stp: parts[2]}, nil
}

func (p *parser) callArgs() (callArgs, error) {
	var a callArgs
	if err := p.expectOp("("); err != nil {
		return a, err
	}
	first := true
	for !p.acceptOp(")") {
		if !first {
			if err := p.expectOp(","); err != nil {
				return a, err
			}
			if p.acceptOp(")") {
				break
			}
		}
		first = false
		switch {
		case p.acceptOp("**"):
			x, err := p.expr()
			if err != nil {
				return a, err
			}
			a.starstr = x
		case p.acceptOp("*"):
			x, err := p.expr()
			if err != nil {
				return a, err
			}
			a.star = x
		case p.peek().kind == tName && p.toks[p.ti+1].kind == tOp && p.toks[p.ti+1].s == "=":
			name := p.next().s
			p.ti++
			x, err := p.expr()
			if err != nil {
				return a, err
			}
			a.kw = append(a.kw, kwExpr{name: name, v: x})
		default:
			if len(a.kw) > 0 || a.star != nil || a.starstr != nil {
				return a, p.errf("positional argument follows keyword argument")
			}
			x, err := p.expr()
			if err != nil {
				return a, err
			}
			a.pos = append(a.pos, x)
		}
	}
	return a, nil
}

func (p *parser) filterCall(obj expr) (*filterExpr, error) {
	name, err := p.expectName()
	if err != nil {
		return nil, err
	}
	for p.acceptOp(".") { // dotted filter names
		n2, err := p.expectName()
		if err != nil {
			return nil, err
		}
		name += "." + n2
	}
	f := &filterExpr{obj: obj, name: name}
	if p.isOp("(") {
		if f.args, err = p.callArgs(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (p *parser) filterTests(x expr) (expr, error) {
	for {
		switch {
		case p.acceptOp("|"):
			f, err := p.filterCall(x)
			if err != nil {
				return nil, err
			}
			x = f
		case p.acceptName("is"):
			neg := p.acceptName("not")
			name, err := p.expectName()
			if err != nil {
				return nil, err
			}
			for p.acceptOp(".") {
				n2, err := p.expectName()
				if err != nil {
					return nil, err
				}
				name += "." + n2
			}
			t := &testExpr{obj: x, name: name, neg: neg}
			nt := p.peek()
			switch {
			case p.isOp("("):
				if t.args, err = p.callArgs(); err != nil {
					return nil, err
				}
			case nt.kind == tString || nt.kind == tInt || nt.kind == tFloat || nt.kind == tOp && (nt.s == "[" || nt.s == "{") ||
				nt.kind == tName && nt.s != "else" && nt.s != "or" && nt.s != "and" && nt.s != "if" && nt.s != "in" && nt.s != "not" && nt.s != "is":
				arg, err := p.primary()
				if err != nil {
					return nil, err
				}
				if arg, err = p.postfix(arg); err != nil {
					return nil, err
				}
				t.args.pos = []expr{arg}
			}
			x = t
		case p.isOp("("):
			args, err := p.callArgs()
			if err != nil {
				return nil, err
			}
			x = &callExpr{fn: x, args: args}
		default:
			return x, nil
		}
	}
}
