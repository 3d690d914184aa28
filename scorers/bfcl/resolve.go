package bfcl

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/internal/pyval"
)

// resolveCall is BFCL's resolve_ast_call: {dotted name: {keyword: value}};
// positional arguments are ignored, as BFCL ignores them.
func resolveCall(b *budget, c *pCall) (*Dict, error) {
	var parts []string
	f := c.fn
	for {
		a, ok := f.(*pAttr)
		if !ok {
			break
		}
		parts = append(parts, a.attr)
		f = a.value
	}
	if n, ok := f.(*pName); ok {
		parts = append(parts, n.id)
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	args := &Dict{}
	for _, k := range c.kw {
		v, err := resolveValue(b, k.v)
		if err != nil {
			return nil, err
		}
		var key any = k.arg
		if k.arg == "" {
			key = nil // **x: Python's keyword arg is None
		}
		args.Set(key, v)
	}
	out := &Dict{}
	out.Set(strings.Join(parts, "."), args)
	return out, nil
}

var errUnsupported = errors.New("unsupported AST type")

// resolveValue is BFCL's resolve_ast_by_type.
func resolveValue(b *budget, n pnode) (any, error) {
	switch x := n.(type) {
	case *pConst:
		if _, ok := x.v.(pEllipsis); ok {
			return "...", nil
		}
		return x.v, nil
	case *pUnary:
		// BFCL computes -operand.value whatever the operator: only a
		// constant operand has a value (an attribute or subscript has a
		// node there, which cannot be negated).
		c, ok := x.x.(*pConst)
		if !ok {
			switch x.x.(type) {
			case *pAttr, *pSubscript, *pStarred:
				return nil, fmt.Errorf("bad operand type for unary -: 'Node'")
			}
			return nil, fmt.Errorf("'%T' object has no attribute 'value'", x.x)
		}
		return negate(c.v)
	case *pList:
		out := make([]any, len(x.elts))
		for i, e := range x.elts {
			v, err := resolveValue(b, e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *pTuple:
		out := make(Tuple, len(x.elts))
		for i, e := range x.elts {
			v, err := resolveValue(b, e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *pDict:
		d := &Dict{}
		for i, k := range x.keys {
			if k == nil {
				return nil, errUnsupported
			}
			kv, err := resolveValue(b, k)
			if err != nil {
				return nil, err
			}
			if !hashable(kv) {
				return nil, fmt.Errorf("unhashable type: '%s'", pyType(kv))
			}
			v, err := resolveValue(b, x.vals[i])
			if err != nil {
				return nil, err
			}
			d.Set(kv, v)
		}
		return d, nil
	case *pBin:
		// BFCL evaluates the expression (eval(ast.unparse(value)));
		// ast.unparse recurses once per level
		if astDepth(x, maxUnparseDepth) > maxUnparseDepth {
			return nil, errUnparseDepth
		}
		return pyEval(b, x)
	case *pName:
		return x.id, nil
	case *pCall:
		if len(x.kw) == 0 {
			if astDepth(x, maxUnparseDepth) > maxUnparseDepth {
				return nil, errUnparseDepth
			}
			return unparse(x), nil
		}
		return resolveCall(b, x)
	case *pSubscript:
		if astDepth(x, maxUnparseDepth+1) > maxUnparseDepth+1 {
			return nil, errUnparseDepth
		}
		return unparse(x.value) + "[" + unparse(x.slice) + "]", nil
	case *pOther:
		if x.kind == "Lambda" {
			return nil, fmt.Errorf("'Lambda' object is not subscriptable")
		}
	}
	return nil, errUnsupported
}

func hashable(v any) bool {
	switch x := v.(type) {
	case []any, *Dict:
		return false
	case Tuple:
		for _, e := range x {
			if !hashable(e) {
				return false
			}
		}
	}
	return true
}

func negate(v any) (any, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return int64(-1), nil
		}
		return int64(0), nil
	case int64:
		if x == math.MinInt64 {
			return new(big.Int).Neg(big.NewInt(x)), nil
		}
		return -x, nil
	case *big.Int:
		return pyval.Int(new(big.Int).Neg(x)), nil
	case Oversized:
		if x.Type == "int" {
			return x, nil
		}
	case float64:
		return -x, nil
	case complex128:
		return -x, nil
	}
	return nil, fmt.Errorf("bad operand type for unary -: '%s'", pyType(v))
}

// pyEval evaluates a constant expression as Python's eval does; names and
// calls are not evaluated (an error, as a NameError would be for all but
// Python's builtins).
func pyEval(b *budget, n pnode) (any, error) {
	switch x := n.(type) {
	case *pConst:
		if _, ok := x.v.(pEllipsis); ok {
			return nil, fmt.Errorf("Ellipsis in an expression")
		}
		return x.v, nil
	case *pUnary:
		v, err := pyEval(b, x.x)
		if err != nil {
			return nil, err
		}
		switch x.op {
		case "-":
			return negate(v)
		case "+":
			if !isNumber(v) {
				return nil, fmt.Errorf("bad operand type for unary +")
			}
			if b, ok := v.(bool); ok {
				i, _ := intOf(b)
				return i, nil
			}
			return v, nil
		case "~":
			i, ok := intOf(v)
			if !ok {
				return nil, fmt.Errorf("bad operand type for unary ~")
			}
			return ^i, nil
		case "not":
			return !truthy(v), nil
		}
	case *pList, *pTuple:
		var elts []pnode
		if l, ok := x.(*pList); ok {
			elts = l.elts
		} else {
			elts = x.(*pTuple).elts
		}
		out := make([]any, len(elts))
		for i, e := range elts {
			v, err := pyEval(b, e)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		if _, ok := x.(*pTuple); ok {
			return Tuple(out), nil
		}
		return out, nil
	case *pBin:
		l, err := pyEval(b, x.l)
		if err != nil {
			return nil, err
		}
		r, err := pyEval(b, x.r)
		if err != nil {
			return nil, err
		}
		return binop(b, x.op, l, r)
	case *pName:
		return nil, fmt.Errorf("name '%s' is not defined", x.id)
	}
	return nil, fmt.Errorf("cannot evaluate this expression")
}

func truthy(v any) bool {
	t, known := pyval.Truth(v)
	return t || !known
}

func binop(bud *budget, op string, l, r any) (any, error) {
	bad := fmt.Errorf("unsupported operand type(s) for %s: '%s' and '%s'", op, pyType(l), pyType(r))
	li, lInt := intOf(l)
	ri, rInt := intOf(r)
	if (isBigOver(l) || isBigOver(r)) && (isNumber(l) || isBigOver(l)) && (isNumber(r) || isBigOver(r)) {
		// Arithmetic on an int not built: Python's result is an int
		// past the bound too, or a float it cannot convert it to.
		switch op {
		case "/", "**", "<<", ">>", "//", "%":
			if op == "/" || isBigOver(r) || op != "**" && op != "<<" {
				return nil, fmt.Errorf("int too large to convert to float")
			}
		}
		return bud.oversizedInt(), nil
	}
	lb, lBig := l.(*big.Int)
	rb, rBig := r.(*big.Int)
	switch {
	case lInt && rInt:
		v, err := pyval.IntOp(op, li, ri)
		if errors.Is(err, pyval.ErrIntOverflow) {
			return bigOp(bud, op, big.NewInt(li), big.NewInt(ri))
		}
		return v, err
	case (lBig || lInt) && (rBig || rInt):
		if !lBig {
			lb = big.NewInt(li)
		}
		if !rBig {
			rb = big.NewInt(ri)
		}
		return bigOp(bud, op, lb, rb)
	case (lBig || rBig) && isNumber(l) && isNumber(r):
		// int past 64 bits with a float or complex: float(int) first, as
		// Python does (OverflowError past the float range).
		for _, n := range []*big.Int{lb, rb} {
			if n != nil {
				if _, err := pyval.IntFloat(n); err != nil {
					return nil, err
				}
			}
		}
		fallthrough
	case isNumber(l) && isNumber(r):
		_, lc := l.(complex128)
		_, rc := r.(complex128)
		if lc || rc {
			v, err := pyval.ComplexOp(op, toComplex(l), toComplex(r))
			if errors.Is(err, pyval.ErrOperator) {
				return nil, bad
			}
			return v, err
		}
		v, err := pyval.FloatOp(op, real(toComplex(l)), real(toComplex(r)))
		if errors.Is(err, pyval.ErrOperator) {
			return nil, bad
		}
		return v, err
	}
	if v, ok := bud.sized(op, l, r); ok {
		return v, nil
	}
	switch a := l.(type) {
	case string:
		switch op {
		case "+":
			if b, ok := r.(string); ok {
				return a + b, nil
			}
		case "*":
			if n, ok := intOf(r); ok {
				return strings.Repeat(a, int(max(n, 0))), nil
			}
		case "%":
			return nil, fmt.Errorf("string formatting is not evaluated")
		}
	case []any, Tuple:
		items, _ := seqOf(l)
		switch op {
		case "+":
			if b, ok := seqOf(r); ok && pyType(l) == pyType(r) {
				out := append(append([]any{}, items...), b...)
				if _, t := l.(Tuple); t {
					return Tuple(out), nil
				}
				return out, nil
			}
		case "*":
			if n, ok := intOf(r); ok {
				var out []any
				for range max(n, 0) {
					out = append(out, items...)
				}
				if out == nil {
					out = []any{}
				}
				if _, t := l.(Tuple); t {
					return Tuple(out), nil
				}
				return out, nil
			}
		}
	}
	if _, ok := intOf(l); ok && op == "*" {
		switch r.(type) {
		case string, []any, Tuple, Oversized:
			return binop(bud, op, r, l)
		}
	}
	return nil, bad
}

func seqOf(v any) ([]any, bool) { return pyval.Seq(v) }

// maxIntBits bounds an int an answer's arithmetic builds: as many
// decimal digits as MaxBuilt characters (Python builds any; no possible
// answer holds such a number).
const maxIntBits = MaxBuilt * 332 / 100

// bigOp is int arithmetic past 64 bits; a result past maxIntBits is not
// built but recorded as an oversized int, as a sequence past MaxBuilt is.
func bigOp(bud *budget, op string, a, b *big.Int) (any, error) {
	v, err := pyval.BigIntOp(op, a, b, maxIntBits)
	if errors.Is(err, pyval.ErrIntTooLarge) {
		return bud.oversizedInt(), nil
	}
	return v, err
}

// oversizedInt records an int too large to build.
func (bud *budget) oversizedInt() Oversized {
	if bud.over == 0 {
		bud.over = MaxBuilt + 1
	}
	return Oversized{Type: "int", Size: MaxBuilt + 1}
}

// isBigOver reports whether v is an int not built.
func isBigOver(v any) bool {
	o, ok := v.(Oversized)
	return ok && o.Type == "int"
}

// unparse is Python's ast.unparse for the nodes BFCL turns into text.
func unparse(n pnode) string {
	switch x := n.(type) {
	case nil:
		return ""
	case *pConst:
		if _, ok := x.v.(pEllipsis); ok {
			return "..."
		}
		if c, ok := x.v.(complex128); ok && real(c) == 0 {
			return formatFloatShort(imag(c)) + "j"
		}
		return repr(x.v)
	case *pName:
		return x.id
	case *pAttr:
		return unparse(x.value) + "." + x.attr
	case *pCall:
		var parts []string
		for _, a := range x.args {
			parts = append(parts, unparse(a))
		}
		for _, k := range x.kw {
			if k.arg == "" {
				parts = append(parts, "**"+unparse(k.v))
			} else {
				parts = append(parts, k.arg+"="+unparse(k.v))
			}
		}
		return unparse(x.fn) + "(" + strings.Join(parts, ", ") + ")"
	case *pStarred:
		return "*" + unparse(x.x)
	case *pList:
		return "[" + joinNodes(x.elts) + "]"
	case *pTuple:
		if len(x.elts) == 1 {
			return "(" + unparse(x.elts[0]) + ",)"
		}
		return "(" + joinNodes(x.elts) + ")"
	case *pSet:
		return "{" + joinNodes(x.elts) + "}"
	case *pDict:
		var parts []string
		for i, k := range x.keys {
			if k == nil {
				parts = append(parts, "**"+unparse(x.vals[i]))
			} else {
				parts = append(parts, unparse(k)+": "+unparse(x.vals[i]))
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case *pUnary:
		if x.op == "not" {
			return "not " + unparse(x.x)
		}
		return x.op + unparse(x.x)
	case *pBin:
		return unparse(x.l) + " " + x.op + " " + unparse(x.r)
	case *pSubscript:
		s := unparse(x.slice)
		if t, ok := x.slice.(*pTuple); ok && len(t.elts) > 0 {
			s = joinNodes(t.elts)
		}
		return unparse(x.value) + "[" + s + "]"
	case *pSlice:
		s := unparse(x.lo) + ":" + unparse(x.hi)
		if x.step != nil {
			s += ":" + unparse(x.step)
		}
		return s
	}
	return "..."
}

func formatFloatShort(f float64) string {
	s := pyval.FloatRepr(f)
	return strings.TrimSuffix(s, ".0")
}

func joinNodes(ns []pnode) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = unparse(n)
	}
	return strings.Join(parts, ", ")
}

var _ = strconv.Itoa
