package jinja

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
