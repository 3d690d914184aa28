package jinja

import (
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
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
		return "string " + pyval.StringRepr(t.s)
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
