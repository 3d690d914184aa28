package jinja

import (
	"fmt"
	"strings"
	"unicode"
)

// ---- tests

func (r *Renderer) test(name string, v any, args []any, kw []Kwarg, sc *scope) (bool, error) {
	arg := func() (any, error) {
		if len(args) > 0 {
			return args[0], nil
		}
		if len(kw) > 0 {
			return kw[0].Value, nil
		}
		return nil, fmt.Errorf("test '%s' needs an argument", name)
	}
	switch name {
	case "defined":
		_, u := v.(Undefined)
		return !u, nil
	case "undefined":
		_, u := v.(Undefined)
		return u, nil
	case "none":
		return v == nil, nil
	case "true":
		b, ok := v.(bool)
		return ok && b, nil
	case "false":
		b, ok := v.(bool)
		return ok && !b, nil
	case "boolean":
		_, ok := v.(bool)
		return ok, nil
	case "integer":
		_, ok := v.(int64)
		return ok, nil
	case "float":
		_, ok := v.(float64)
		return ok, nil
	case "number":
		return isNum(v), nil
	case "string":
		_, ok := asStr(v)
		return ok, nil
	case "mapping":
		_, ok := v.(*Dict)
		return ok, nil
	case "sequence":
		switch v.(type) {
		case string, Markup, []any, Tuple, *Dict:
			return true, nil
		}
		return false, nil
	case "iterable":
		switch v.(type) {
		case string, Markup, []any, Tuple, *Dict, Undefined:
			return true, nil
		}
		return false, nil
	case "callable":
		_, ok := v.(*Callable)
		return ok, nil
	case "odd", "even":
		n, ok := v.(int64)
		if !ok {
			return false, fmt.Errorf("test '%s' needs an integer", name)
		}
		return (n%2 != 0) == (name == "odd"), nil
	case "divisibleby":
		a, err := arg()
		if err != nil {
			return false, err
		}
		m, err := arith("%", v, a)
		if err != nil {
			return false, err
		}
		return toFloat(m) == 0, nil
	case "eq", "equalto", "==":
		a, err := arg()
		return err == nil && r.equal(v, a), err
	case "ne", "!=":
		a, err := arg()
		return err == nil && !r.equal(v, a), err
	case "lt", "lessthan", "<", "le", "<=", "gt", "greaterthan", ">", "ge", ">=":
		a, err := arg()
		if err != nil {
			return false, err
		}
		op := map[string]string{"lt": "<", "lessthan": "<", "le": "<=", "gt": ">", "greaterthan": ">", "ge": ">="}[name]
		if op == "" {
			op = name
		}
		res, err := r.binary(op, v, a)
		if err != nil {
			return false, err
		}
		return res.(bool), nil
	case "in":
		a, err := arg()
		if err != nil {
			return false, err
		}
		return r.contains(a, v)
	case "sameas":
		a, err := arg()
		if err != nil {
			return false, err
		}
		return sameAs(v, a), nil
	case "lower":
		s := r.str(v)
		return s == strings.ToLower(s) && hasCased(s), nil
	case "upper":
		s := r.str(v)
		return s == strings.ToUpper(s) && hasCased(s), nil
	case "escaped":
		_, ok := v.(Markup)
		return ok, nil
	case "filter":
		_, ok := filters[r.str(v)]
		if _, added := r.env.Filters[r.str(v)]; added {
			ok = true
		}
		return ok, nil
	case "test":
		switch r.str(v) {
		case "defined", "undefined", "none", "true", "false", "boolean", "integer", "float", "number", "string", "mapping", "sequence", "iterable", "callable", "odd", "even", "divisibleby", "eq", "equalto", "ne", "lt", "le", "gt", "ge", "in", "sameas", "lower", "upper", "escaped", "filter", "test":
			return true, nil
		}
		return false, nil
	}
	return false, fmt.Errorf("no test named '%s'", name)
}

func sameAs(a, b any) bool {
	switch a.(type) {
	case nil, bool:
		return a == b
	}
	switch x := a.(type) {
	case *Dict:
		y, ok := b.(*Dict)
		return ok && x == y
	}
	return false
}

func hasCased(s string) bool {
	for _, c := range s {
		if unicode.IsUpper(c) || unicode.IsLower(c) {
			return true
		}
	}
	return false
}
