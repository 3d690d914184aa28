package bfcl

import (
	"fmt"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// This file parses a Python expression as ast.parse(s, mode="eval") does
// (the grammar's expression part: every valid expression is accepted,
// anything else is a syntax error) into a small AST, for BFCL's decoder.

type pnode interface{}

type (
	pConst struct{ v any } // Ellipsis is pEllipsis
	pName  struct{ id string }
	pAttr  struct {
		value pnode
		attr  string
	}
	pCall struct {
		fn   pnode
		args []pnode
		kw   []pKeyword
	}
	pKeyword struct {
		arg string // "" for **x
		v   pnode
	}
	pList  struct{ elts []pnode }
	pTuple struct{ elts []pnode }
	pSet   struct{ elts []pnode }
	pDict  struct{ keys, vals []pnode } // nil key: **x
	pUnary struct {
		op string
		x  pnode
	}
	pBin struct {
		op   string
		l, r pnode
	}
	pSubscript struct{ value, slice pnode }
	pSlice     struct{ lo, hi, step pnode }
	pStarred   struct{ x pnode }
	// pOther is a node BFCL's resolver does not support (Compare, BoolOp,
	// IfExp, Lambda, JoinedStr, comprehensions, ...).
	pOther struct{ kind string }
)

type pEllipsis struct{}

type pyParser struct {
	toks []pyval.Token
	i    int
	nest int
}

// maxIntDigits is Python 3.11's sys.int_info.default_max_str_digits: a
// longer decimal integer literal is a SyntaxError, a longer JSON integer
// a ValueError.
const maxIntDigits = 4300

// pyParse parses s as ast.parse(s, mode="eval").
func pyParse(s string) (pnode, error) {
	toks, err := pyval.Tokenize(s, pyval.TokenizeOptions{MaxDecimalDigits: maxIntDigits})
	if err != nil {
		return nil, err
	}
	// trailing newlines end the input; any other newline is an error
	for len(toks) > 1 && toks[len(toks)-2].Kind == pyval.TokNewline {
		toks = append(toks[:len(toks)-2], toks[len(toks)-1])
	}
	p := &pyParser{toks: toks}
	if p.peek().Kind == pyval.TokEOF {
		return nil, fmt.Errorf("invalid syntax (empty input)")
	}
	n, err := p.starExprs()
	if err != nil {
		return nil, err
	}
	if p.peek().Kind != pyval.TokEOF {
		return nil, fmt.Errorf("invalid syntax near %q", p.peek().S)
	}
	return n, nil
}

func (p *pyParser) peek() pyval.Token { return p.toks[p.i] }
func (p *pyParser) next() pyval.Token {
	t := p.toks[p.i]
	if t.Kind != pyval.TokEOF {
		p.i++
	}
	return t
}
func (p *pyParser) isOp(s string) bool { t := p.peek(); return t.Kind == pyval.TokOp && t.S == s }
func (p *pyParser) isKw(s string) bool { t := p.peek(); return t.Kind == pyval.TokName && t.S == s }
func (p *pyParser) accept(s string) bool {
	if p.isOp(s) || p.isKw(s) {
		p.i++
		return true
	}
	return false
}
func (p *pyParser) expect(s string) error {
	if !p.accept(s) {
		return fmt.Errorf("invalid syntax: expected '%s'", s)
	}
	return nil
}

// starExprs: a comma list (a tuple) or one expression.
func (p *pyParser) starExprs() (pnode, error) {
	first, err := p.starOrExpr()
	if err != nil {
		return nil, err
	}
	if !p.isOp(",") {
		if _, ok := first.(*pStarred); ok {
			return nil, fmt.Errorf("can't use starred expression here")
		}
		return first, nil
	}
	elts := []pnode{first}
	for p.accept(",") {
		if p.endOfList() {
			break
		}
		e, err := p.starOrExpr()
		if err != nil {
			return nil, err
		}
		elts = append(elts, e)
	}
	return &pTuple{elts: elts}, nil
}

func (p *pyParser) endOfList() bool {
	t := p.peek()
	return t.Kind == pyval.TokEOF || t.Kind == pyval.TokNewline || t.Kind == pyval.TokOp && (t.S == ")" || t.S == "]" || t.S == "}" || t.S == "=" || t.S == ":")
}

func (p *pyParser) starOrExpr() (pnode, error) {
	if p.accept("*") {
		x, err := p.bitOr()
		return &pStarred{x: x}, err
	}
	return p.namedExpr()
}

func (p *pyParser) namedExpr() (pnode, error) {
	x, err := p.expr()
	if err != nil {
		return nil, err
	}
	if p.isOp(":=") {
		if _, ok := x.(*pName); !ok {
			return nil, fmt.Errorf("cannot use assignment expressions with this target")
		}
		p.i++
		if _, err := p.expr(); err != nil {
			return nil, err
		}
		return &pOther{kind: "NamedExpr"}, nil
	}
	return x, nil
}

// expr: lambda or a conditional expression.
func (p *pyParser) expr() (pnode, error) {
	p.nest++
	defer func() { p.nest-- }()
	if p.nest > 200 {
		return nil, fmt.Errorf("too many nested parentheses")
	}
	if p.accept("lambda") {
		for !p.isOp(":") {
			t := p.next()
			if t.Kind == pyval.TokEOF || t.Kind == pyval.TokNewline {
				return nil, fmt.Errorf("invalid syntax in lambda")
			}
		}
		p.i++
		if _, err := p.expr(); err != nil {
			return nil, err
		}
		return &pOther{kind: "Lambda"}, nil
	}
	x, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.accept("if") {
		if _, err := p.or(); err != nil {
			return nil, err
		}
		if err := p.expect("else"); err != nil {
			return nil, err
		}
		if _, err := p.expr(); err != nil {
			return nil, err
		}
		return &pOther{kind: "IfExp"}, nil
	}
	return x, nil
}

func (p *pyParser) or() (pnode, error) {
	x, err := p.and()
	if err != nil || !p.isKw("or") {
		return x, err
	}
	for p.accept("or") {
		if _, err := p.and(); err != nil {
			return nil, err
		}
	}
	return &pOther{kind: "BoolOp"}, nil
}

func (p *pyParser) and() (pnode, error) {
	x, err := p.not()
	if err != nil || !p.isKw("and") {
		return x, err
	}
	for p.accept("and") {
		if _, err := p.not(); err != nil {
			return nil, err
		}
	}
	return &pOther{kind: "BoolOp"}, nil
}

func (p *pyParser) not() (pnode, error) {
	if p.accept("not") {
		p.nest++
		defer func() { p.nest-- }()
		if p.nest > maxASTDepth {
			return nil, errASTDepth
		}
		x, err := p.not()
		return &pUnary{op: "not", x: x}, err
	}
	return p.comparison()
}

func (p *pyParser) comparison() (pnode, error) {
	x, err := p.bitOr()
	if err != nil {
		return nil, err
	}
	cmp := false
	for {
		t := p.peek()
		switch {
		case t.Kind == pyval.TokOp && (t.S == "<" || t.S == ">" || t.S == "==" || t.S == ">=" || t.S == "<=" || t.S == "!="):
			p.i++
		case p.isKw("in"):
			p.i++
		case p.isKw("not") && p.toks[p.i+1].Kind == pyval.TokName && p.toks[p.i+1].S == "in":
			p.i += 2
		case p.isKw("is"):
			p.i++
			p.accept("not")
		default:
			if cmp {
				return &pOther{kind: "Compare"}, nil
			}
			return x, nil
		}
		cmp = true
		if _, err := p.bitOr(); err != nil {
			return nil, err
		}
	}
}

func (p *pyParser) binLevel(ops []string, next func() (pnode, error)) (pnode, error) {
	x, err := next()
	if err != nil {
		return nil, err
	}
	for {
		t := p.peek()
		found := ""
		for _, o := range ops {
			if t.Kind == pyval.TokOp && t.S == o {
				found = o
			}
		}
		if found == "" {
			return x, nil
		}
		p.i++
		r, err := next()
		if err != nil {
			return nil, err
		}
		x = &pBin{op: found, l: x, r: r}
	}
}

func (p *pyParser) bitOr() (pnode, error)  { return p.binLevel([]string{"|"}, p.bitXor) }
func (p *pyParser) bitXor() (pnode, error) { return p.binLevel([]string{"^"}, p.bitAnd) }
func (p *pyParser) bitAnd() (pnode, error) { return p.binLevel([]string{"&"}, p.shift) }
func (p *pyParser) shift() (pnode, error)  { return p.binLevel([]string{"<<", ">>"}, p.arith) }
func (p *pyParser) arith() (pnode, error)  { return p.binLevel([]string{"+", "-"}, p.term) }
func (p *pyParser) term() (pnode, error) {
	return p.binLevel([]string{"*", "/", "//", "%", "@"}, p.factor)
}

func (p *pyParser) factor() (pnode, error) {
	for _, op := range []string{"-", "+", "~"} {
		if p.accept(op) {
			p.nest++
			defer func() { p.nest-- }()
			if p.nest > 200 {
				return nil, fmt.Errorf("too many nested operators")
			}
			x, err := p.factor()
			return &pUnary{op: op, x: x}, err
		}
	}
	return p.power()
}

func (p *pyParser) power() (pnode, error) {
	if p.accept("await") {
		if _, err := p.primary(); err != nil {
			return nil, err
		}
		return &pOther{kind: "Await"}, nil
	}
	x, err := p.primary()
	if err != nil {
		return nil, err
	}
	if p.accept("**") {
		r, err := p.factor()
		if err != nil {
			return nil, err
		}
		return &pBin{op: "**", l: x, r: r}, nil
	}
	return x, nil
}

func (p *pyParser) primary() (pnode, error) {
	x, err := p.atom()
	if err != nil {
		return nil, err
	}
	for {
		switch {
		case p.accept("."):
			t := p.next()
			if t.Kind != pyval.TokName || pyval.IsKeyword(t.S) {
				return nil, fmt.Errorf("invalid syntax after '.'")
			}
			x = &pAttr{value: x, attr: t.S}
		case p.accept("("):
			c, err := p.callArgs(x)
			if err != nil {
				return nil, err
			}
			x = c
		case p.accept("["):
			sl, err := p.slices()
			if err != nil {
				return nil, err
			}
			x = &pSubscript{value: x, slice: sl}
		default:
			return x, nil
		}
	}
}

func (p *pyParser) callArgs(fn pnode) (pnode, error) {
	c := &pCall{fn: fn}
	for !p.accept(")") {
		if len(c.args)+len(c.kw) > 0 {
			if err := p.expect(","); err != nil {
				return nil, err
			}
			if p.accept(")") {
				break
			}
		}
		switch {
		case p.accept("**"):
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			c.kw = append(c.kw, pKeyword{v: x})
		case p.accept("*"):
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			c.args = append(c.args, &pStarred{x: x})
		case p.peek().Kind == pyval.TokName && p.toks[p.i+1].Kind == pyval.TokOp && p.toks[p.i+1].S == "=":
			name := p.next().S
			if pyval.IsKeyword(name) {
				return nil, fmt.Errorf("invalid syntax: keyword %s as an argument name", name)
			}
			// a repeated keyword is the compiler's error, not ast.parse's
			// (Python 3.9 and later): f(a=1, a=2) parses, the last value wins
			p.i++
			x, err := p.expr()
			if err != nil {
				return nil, err
			}
			c.kw = append(c.kw, pKeyword{arg: name, v: x})
		default:
			x, err := p.namedExpr()
			if err != nil {
				return nil, err
			}
			if p.isKw("for") || p.isKw("async") {
				if len(c.args)+len(c.kw) > 0 || !p.comprehension() {
					return nil, fmt.Errorf("invalid syntax: generator expression must be parenthesized")
				}
				x = &pOther{kind: "GeneratorExp"}
			}
			for _, k := range c.kw {
				if k.arg == "" {
					return nil, fmt.Errorf("positional argument follows keyword argument unpacking")
				}
			}
			if len(c.kw) > 0 {
				return nil, fmt.Errorf("positional argument follows keyword argument")
			}
			c.args = append(c.args, x)
		}
	}
	return c, nil
}

// comprehension parses "for x in y [if c]..." (after the element).
func (p *pyParser) comprehension() bool {
	for p.isKw("for") || p.isKw("async") {
		p.accept("async")
		if !p.accept("for") {
			return false
		}
		for !p.isKw("in") {
			t := p.next()
			if t.Kind == pyval.TokEOF || t.Kind == pyval.TokNewline {
				return false
			}
		}
		p.i++
		if _, err := p.or(); err != nil {
			return false
		}
		for p.accept("if") {
			if _, err := p.or(); err != nil {
				return false
			}
		}
	}
	return true
}

func (p *pyParser) slices() (pnode, error) {
	var items []pnode
	for {
		var item pnode
		var lo pnode
		var err error
		if !p.isOp(":") {
			if lo, err = p.starOrExpr(); err != nil {
				return nil, err
			}
		}
		if p.accept(":") {
			sl := &pSlice{lo: lo}
			if !p.isOp(":") && !p.isOp("]") && !p.isOp(",") {
				if sl.hi, err = p.expr(); err != nil {
					return nil, err
				}
			}
			if p.accept(":") && !p.isOp("]") && !p.isOp(",") {
				if sl.step, err = p.expr(); err != nil {
					return nil, err
				}
			}
			item = sl
		} else {
			item = lo
		}
		items = append(items, item)
		if p.accept("]") {
			break
		}
		if err := p.expect(","); err != nil {
			return nil, err
		}
		if p.accept("]") {
			items = append(items, nil) // trailing comma: a tuple
			break
		}
	}
	if len(items) == 1 {
		return items[0], nil
	}
	if items[len(items)-1] == nil {
		items = items[:len(items)-1]
	}
	return &pTuple{elts: items}, nil
}

func (p *pyParser) atom() (pnode, error) {
	t := p.next()
	switch t.Kind {
	case pyval.TokName:
		switch t.S {
		case "True":
			return &pConst{v: true}, nil
		case "False":
			return &pConst{v: false}, nil
		case "None":
			return &pConst{v: nil}, nil
		}
		if pyval.IsKeyword(t.S) {
			return nil, fmt.Errorf("invalid syntax at keyword %s", t.S)
		}
		return &pName{id: t.S}, nil
	case pyval.TokNumber:
		return &pConst{v: t.V}, nil
	case pyval.TokString:
		s, isBytes, fstr := t.V.(string), t.Bytes, t.FString
		for p.peek().Kind == pyval.TokString {
			n := p.next()
			if n.Bytes != isBytes {
				return nil, fmt.Errorf("cannot mix bytes and nonbytes literals")
			}
			s += n.V.(string)
			fstr = fstr || n.FString
		}
		switch {
		case fstr:
			return &pOther{kind: "JoinedStr"}, nil
		case isBytes:
			return &pConst{v: Bytes(s)}, nil
		}
		return &pConst{v: s}, nil
	case pyval.TokOp:
		switch t.S {
		case "...":
			return &pConst{v: pEllipsis{}}, nil
		case "(":
			if p.accept(")") {
				return &pTuple{}, nil
			}
			if p.isKw("yield") {
				return nil, fmt.Errorf("'yield' outside function")
			}
			first, err := p.starOrExpr()
			if err != nil {
				return nil, err
			}
			if p.isKw("for") || p.isKw("async") {
				if !p.comprehension() {
					return nil, fmt.Errorf("invalid syntax in generator expression")
				}
				return &pOther{kind: "GeneratorExp"}, p.expect(")")
			}
			if p.accept(")") {
				if _, ok := first.(*pStarred); ok {
					return nil, fmt.Errorf("cannot use starred expression here")
				}
				return first, nil
			}
			elts := []pnode{first}
			for p.accept(",") {
				if p.isOp(")") {
					break
				}
				e, err := p.starOrExpr()
				if err != nil {
					return nil, err
				}
				elts = append(elts, e)
			}
			return &pTuple{elts: elts}, p.expect(")")
		case "[":
			l := &pList{}
			for !p.accept("]") {
				if len(l.elts) > 0 {
					if err := p.expect(","); err != nil {
						return nil, err
					}
					if p.accept("]") {
						break
					}
				}
				e, err := p.starOrExpr()
				if err != nil {
					return nil, err
				}
				if len(l.elts) == 0 && (p.isKw("for") || p.isKw("async")) {
					if !p.comprehension() {
						return nil, fmt.Errorf("invalid syntax in list comprehension")
					}
					return &pOther{kind: "ListComp"}, p.expect("]")
				}
				l.elts = append(l.elts, e)
			}
			return l, nil
		case "{":
			return p.dictOrSet()
		}
	}
	return nil, fmt.Errorf("invalid syntax")
}

func (p *pyParser) dictOrSet() (pnode, error) {
	if p.accept("}") {
		return &pDict{}, nil
	}
	d := &pDict{}
	set := &pSet{}
	isDict := false
	first := true
	for {
		if !first {
			if p.accept("}") {
				break
			}
			if err := p.expect(","); err != nil {
				return nil, err
			}
			if p.accept("}") {
				break
			}
		}
		if p.accept("**") {
			if !first && !isDict {
				return nil, fmt.Errorf("invalid syntax in set display")
			}
			isDict = true
			v, err := p.bitOr()
			if err != nil {
				return nil, err
			}
			d.keys = append(d.keys, nil)
			d.vals = append(d.vals, v)
			first = false
			continue
		}
		k, err := p.starOrExpr()
		if err != nil {
			return nil, err
		}
		if p.accept(":") {
			if !first && !isDict {
				return nil, fmt.Errorf("invalid syntax in set display")
			}
			isDict = true
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			if first && (p.isKw("for") || p.isKw("async")) {
				if !p.comprehension() {
					return nil, fmt.Errorf("invalid syntax in dict comprehension")
				}
				return &pOther{kind: "DictComp"}, p.expect("}")
			}
			d.keys = append(d.keys, k)
			d.vals = append(d.vals, v)
		} else {
			if isDict {
				return nil, fmt.Errorf("invalid syntax in dict display")
			}
			if first && (p.isKw("for") || p.isKw("async")) {
				if !p.comprehension() {
					return nil, fmt.Errorf("invalid syntax in set comprehension")
				}
				return &pOther{kind: "SetComp"}, p.expect("}")
			}
			set.elts = append(set.elts, k)
		}
		first = false
	}
	if isDict {
		return d, nil
	}
	return set, nil
}
