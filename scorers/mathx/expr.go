package mathx

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/cmplx"
	"sort"
	"strings"
)

// expr is a parsed arithmetic expression over complex numbers; free
// variables are looked up in env.
type expr func(env map[string]complex128) complex128

// parsedExpr is an expression with the set of free variables it uses.
type parsedExpr struct {
	eval expr
	vars []string // sorted
}

// errSyntax reports an expression outside what the evaluator understands.
var errSyntax = errors.New("unsupported expression")

// parseExpr parses a normalised LaTeX answer (no spaces) as arithmetic:
// numbers, + - * / ^ and implicit multiplication, \frac, \sqrt and
// \sqrt[n], \cdot, \times, \div, parentheses and braces, |x|, n!, \pi,
// \infty, i (the imaginary unit), e^ (Euler's number when raised to a
// power), trigonometric and logarithmic functions, and single-letter or
// Greek variables with optional subscripts.
func parseExpr(s string) (*parsedExpr, error) {
	toks, err := tokenize(s)
	if err != nil {
		return nil, err
	}
	p := &exprParser{toks: toks, vars: map[string]bool{}}
	e, err := p.parseSum()
	if err != nil {
		return nil, err
	}
	if p.pos != len(p.toks) {
		return nil, fmt.Errorf("%w: unexpected %q", errSyntax, p.toks[p.pos].text)
	}
	out := &parsedExpr{eval: e}
	for v := range p.vars {
		out.vars = append(out.vars, v)
	}
	sort.Strings(out.vars)
	return out, nil
}

type tokKind int

const (
	tokNum tokKind = iota
	tokVar
	tokCmd
	tokPunct
)

type token struct {
	kind tokKind
	text string
	num  float64
}

// knownCommands are the LaTeX commands the evaluator understands, longest
// first so that "\pir" (spaces already removed from "\pi r") reads as \pi r.
var knownCommands = func() []string {
	c := []string{
		"frac", "binom", "sqrt", "pi", "infty", "cdot", "times", "div", "sin", "cos", "tan",
		"sec", "csc", "cot", "arcsin", "arccos", "arctan", "ln", "log", "exp",
		"alpha", "beta", "gamma", "delta", "epsilon", "varepsilon", "zeta", "eta",
		"theta", "vartheta", "kappa", "lambda", "mu", "nu", "xi", "rho", "sigma",
		"tau", "phi", "varphi", "chi", "psi", "omega", "Gamma", "Delta", "Theta",
		"Lambda", "Xi", "Sigma", "Phi", "Psi", "Omega",
	}
	sort.Slice(c, func(i, j int) bool { return len(c[i]) > len(c[j]) })
	return c
}()

var funcs = map[string]func(complex128) complex128{
	"sin": cmplx.Sin, "cos": cmplx.Cos, "tan": cmplx.Tan,
	"sec":    func(z complex128) complex128 { return 1 / cmplx.Cos(z) },
	"csc":    func(z complex128) complex128 { return 1 / cmplx.Sin(z) },
	"cot":    func(z complex128) complex128 { return 1 / cmplx.Tan(z) },
	"arcsin": cmplx.Asin, "arccos": cmplx.Acos, "arctan": cmplx.Atan,
	"ln": cmplx.Log, "log": cmplx.Log10, "exp": cmplx.Exp,
}

func tokenize(s string) ([]token, error) {
	var toks []token
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= '0' && c <= '9' || c == '.':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
				j++
			}
			var f float64
			if _, err := fmt.Sscan(s[i:j], &f); err != nil {
				return nil, fmt.Errorf("%w: number %q", errSyntax, s[i:j])
			}
			toks = append(toks, token{kind: tokNum, text: s[i:j], num: f})
			i = j
		case isLetter(c):
			toks = append(toks, token{kind: tokVar, text: s[i : i+1]})
			i++
		case c == '\\':
			rest := s[i+1:]
			if rest != "" && (rest[0] == '{' || rest[0] == '}') {
				return nil, fmt.Errorf("%w: set braces", errSyntax)
			}
			name := ""
			for _, k := range knownCommands {
				if strings.HasPrefix(rest, k) {
					name = k
					break
				}
			}
			if name == "" {
				return nil, fmt.Errorf("%w: command at %q", errSyntax, s[i:])
			}
			toks = append(toks, token{kind: tokCmd, text: name})
			i += 1 + len(name)
		case strings.IndexByte("+-*/^(){}[]!|_", c) >= 0:
			toks = append(toks, token{kind: tokPunct, text: s[i : i+1]})
			i++
		default:
			return nil, fmt.Errorf("%w: character %q", errSyntax, c)
		}
	}
	return toks, nil
}

type exprParser struct {
	toks []token
	pos  int
	vars map[string]bool
}

func (p *exprParser) peek() (token, bool) {
	if p.pos >= len(p.toks) {
		return token{}, false
	}
	return p.toks[p.pos], true
}

func (p *exprParser) isPunct(s string) bool {
	t, ok := p.peek()
	return ok && t.kind == tokPunct && t.text == s
}

func (p *exprParser) isCmd(s string) bool {
	t, ok := p.peek()
	return ok && t.kind == tokCmd && t.text == s
}

func (p *exprParser) expect(s string) error {
	if !p.isPunct(s) {
		return fmt.Errorf("%w: want %q", errSyntax, s)
	}
	p.pos++
	return nil
}

func (p *exprParser) parseSum() (expr, error) {
	left, err := p.parseProduct()
	if err != nil {
		return nil, err
	}
	for p.isPunct("+") || p.isPunct("-") {
		op := p.toks[p.pos].text
		p.pos++
		right, err := p.parseProduct()
		if err != nil {
			return nil, err
		}
		l := left
		if op == "+" {
			left = func(env map[string]complex128) complex128 { return l(env) + right(env) }
		} else {
			left = func(env map[string]complex128) complex128 { return l(env) - right(env) }
		}
	}
	return left, nil
}

// startsPrimary reports whether the next token can begin an implicitly
// multiplied factor.
func (p *exprParser) startsPrimary() bool {
	t, ok := p.peek()
	if !ok {
		return false
	}
	switch t.kind {
	case tokNum, tokVar:
		return true
	case tokCmd:
		return t.text != "cdot" && t.text != "times" && t.text != "div"
	default:
		return t.text == "(" || t.text == "{"
	}
}

func (p *exprParser) parseProduct() (expr, error) {
	left, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	for {
		div := false
		switch {
		case p.isPunct("*") || p.isCmd("cdot") || p.isCmd("times"):
			p.pos++
		case p.isPunct("/") || p.isCmd("div"):
			p.pos++
			div = true
		case p.startsPrimary():
		default:
			return left, nil
		}
		right, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		l := left
		if div {
			left = func(env map[string]complex128) complex128 { return l(env) / right(env) }
		} else {
			left = func(env map[string]complex128) complex128 { return l(env) * right(env) }
		}
	}
}

func (p *exprParser) parseUnary() (expr, error) {
	if p.isPunct("-") || p.isPunct("+") {
		neg := p.toks[p.pos].text == "-"
		p.pos++
		e, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		if neg {
			return func(env map[string]complex128) complex128 {
				v := -e(env)
				// -0 imaginary parts would put \sqrt{-2} on the wrong branch.
				return complex(real(v), imag(v)+0)
			}, nil
		}
		return e, nil
	}
	return p.parsePower()
}

func (p *exprParser) parsePower() (expr, error) {
	base, err := p.parsePostfix()
	if err != nil {
		return nil, err
	}
	if !p.isPunct("^") {
		return base, nil
	}
	p.pos++
	exp, err := p.parseUnary()
	if err != nil {
		return nil, err
	}
	return func(env map[string]complex128) complex128 { return power(base(env), exp(env)) }, nil
}

func power(b, e complex128) complex128 {
	if imag(e) == 0 && real(e) == math.Trunc(real(e)) && math.Abs(real(e)) <= 64 {
		n := int(real(e))
		r := complex(1, 0)
		x := b
		if n < 0 {
			x, n = 1/b, -n
		}
		for ; n > 0; n-- {
			r *= x
		}
		return r
	}
	if imag(b) == 0 && real(b) < 0 && imag(e) == 0 {
		// Real odd roots of negative numbers: (-8)^(1/3) = -2.
		if q := 1 / real(e); math.Abs(q-math.Round(q)) < 1e-12 && int(math.Round(q))%2 != 0 {
			return complex(-math.Pow(-real(b), real(e)), 0)
		}
	}
	return cmplx.Pow(b, e)
}

func (p *exprParser) parsePostfix() (expr, error) {
	e, err := p.parsePrimary()
	if err != nil {
		return nil, err
	}
	for p.isPunct("!") {
		p.pos++
		inner := e
		e = func(env map[string]complex128) complex128 {
			v := inner(env)
			if imag(v) != 0 || real(v) < 0 || real(v) != math.Trunc(real(v)) {
				return cmplx.NaN()
			}
			return complex(math.Gamma(real(v)+1), 0)
		}
	}
	return e, nil
}

// parseGroup parses a braced group or, LaTeX-style, a single token
// argument (\frac12, \sqrt2).
func (p *exprParser) parseArg() (expr, error) {
	if p.isPunct("{") {
		p.pos++
		e, err := p.parseSum()
		if err != nil {
			return nil, err
		}
		return e, p.expect("}")
	}
	return p.parsePower()
}

func (p *exprParser) parsePrimary() (expr, error) {
	t, ok := p.peek()
	if !ok {
		return nil, fmt.Errorf("%w: unexpected end", errSyntax)
	}
	p.pos++
	switch t.kind {
	case tokNum:
		v := complex(t.num, 0)
		if mixed, ok := p.mixedFraction(t); ok {
			v = mixed
		}
		return func(map[string]complex128) complex128 { return v }, nil
	case tokVar:
		name := t.text
		if name == "i" {
			return func(map[string]complex128) complex128 { return 1i }, nil
		}
		if name == "e" && p.isPunct("^") {
			return func(map[string]complex128) complex128 { return complex(math.E, 0) }, nil
		}
		return p.variable(name)
	case tokCmd:
		return p.command(t.text)
	}
	switch t.text {
	case "(", "[":
		closer := map[string]string{"(": ")", "[": "]"}[t.text]
		e, err := p.parseSum()
		if err != nil {
			return nil, err
		}
		return e, p.expect(closer)
	case "{":
		e, err := p.parseSum()
		if err != nil {
			return nil, err
		}
		return e, p.expect("}")
	case "|":
		e, err := p.parseSum()
		if err != nil {
			return nil, err
		}
		if err := p.expect("|"); err != nil {
			return nil, err
		}
		return func(env map[string]complex128) complex128 { return complex(cmplx.Abs(e(env)), 0) }, nil
	}
	return nil, fmt.Errorf("%w: unexpected %q", errSyntax, t.text)
}

// mixedFraction reads "2\frac{1}{2}" (an integer directly followed by a
// fraction of integer literals) as the mixed number 2½.
func (p *exprParser) mixedFraction(whole token) (complex128, bool) {
	if strings.Contains(whole.text, ".") || p.pos+7 > len(p.toks) {
		return 0, false
	}
	w := p.toks[p.pos : p.pos+7]
	if w[0].kind != tokCmd || w[0].text != "frac" || w[1].text != "{" || w[2].kind != tokNum ||
		w[3].text != "}" || w[4].text != "{" || w[5].kind != tokNum || w[6].text != "}" {
		return 0, false
	}
	if w[5].num == 0 || w[2].num >= w[5].num {
		return 0, false
	}
	p.pos += 7
	return complex(whole.num+w[2].num/w[5].num, 0), true
}

func (p *exprParser) variable(name string) (expr, error) {
	if p.isPunct("_") {
		p.pos++
		t, ok := p.peek()
		if !ok {
			return nil, fmt.Errorf("%w: subscript", errSyntax)
		}
		if t.text == "{" {
			end := p.pos
			for end < len(p.toks) && p.toks[end].text != "}" {
				end++
			}
			if end == len(p.toks) {
				return nil, fmt.Errorf("%w: subscript", errSyntax)
			}
			for _, s := range p.toks[p.pos+1 : end] {
				name += "_" + s.text
			}
			p.pos = end + 1
		} else {
			name += "_" + t.text
			p.pos++
		}
	}
	p.vars[name] = true
	return func(env map[string]complex128) complex128 { return env[name] }, nil
}

func (p *exprParser) command(name string) (expr, error) {
	switch name {
	case "pi":
		return func(map[string]complex128) complex128 { return math.Pi }, nil
	case "infty":
		return func(map[string]complex128) complex128 { return complex(math.Inf(1), 0) }, nil
	case "frac":
		num, err := p.parseArg()
		if err != nil {
			return nil, err
		}
		den, err := p.parseArg()
		if err != nil {
			return nil, err
		}
		return func(env map[string]complex128) complex128 { return num(env) / den(env) }, nil
	case "binom":
		n, err := p.parseArg()
		if err != nil {
			return nil, err
		}
		k, err := p.parseArg()
		if err != nil {
			return nil, err
		}
		return func(env map[string]complex128) complex128 { return binomial(n(env), k(env)) }, nil
	case "sqrt":
		var index expr
		if p.isPunct("[") {
			p.pos++
			var err error
			if index, err = p.parseSum(); err != nil {
				return nil, err
			}
			if err := p.expect("]"); err != nil {
				return nil, err
			}
		}
		arg, err := p.parseArg()
		if err != nil {
			return nil, err
		}
		if index == nil {
			return func(env map[string]complex128) complex128 { return cmplx.Sqrt(arg(env)) }, nil
		}
		return func(env map[string]complex128) complex128 { return power(arg(env), 1/index(env)) }, nil
	case "cdot", "times", "div":
		return nil, fmt.Errorf("%w: operator %s without operand", errSyntax, name)
	}
	if f, ok := funcs[name]; ok {
		var exp expr
		if p.isPunct("^") {
			p.pos++
			var err error
			if exp, err = p.parseArg(); err != nil {
				return nil, err
			}
		}
		arg, err := p.parsePower()
		if err != nil {
			return nil, err
		}
		if exp == nil {
			return func(env map[string]complex128) complex128 { return f(arg(env)) }, nil
		}
		return func(env map[string]complex128) complex128 { return power(f(arg(env)), exp(env)) }, nil
	}
	return p.variable(`\` + name)
}

// variableValue is a deterministic, irrational-looking value for variable
// name in trial k, so that polynomials that differ anywhere differ here.
func variableValue(name string, k int) complex128 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", name, k)
	u := float64(h.Sum64()%1_000_003) / 1_000_003
	return complex(0.37+1.9*u+0.001*math.Sqrt2*float64(k+1), 0)
}

// sameValue compares two evaluated answers: integral values exactly, others
// within relTolerance; infinities compare by sign.
func sameValue(a, b complex128) bool {
	if cmplx.IsNaN(a) || cmplx.IsNaN(b) {
		return false
	}
	if cmplx.IsInf(a) || cmplx.IsInf(b) {
		return cmplx.IsInf(a) && cmplx.IsInf(b) &&
			math.Signbit(real(a)) == math.Signbit(real(b)) && math.Signbit(imag(a)) == math.Signbit(imag(b))
	}
	if imag(a) == 0 && imag(b) == 0 {
		// Integral values compare exactly: a tolerance would let a large
		// integer pass for its neighbour (11111111100 vs 11111111101).
		ra, rb := math.Round(real(a)), math.Round(real(b))
		if math.Abs(real(a)-ra) <= 1e-9 && math.Abs(real(b)-rb) <= 1e-9 && math.Abs(ra) < 1<<53 && math.Abs(rb) < 1<<53 {
			return ra == rb
		}
	}
	diff := cmplx.Abs(a - b)
	scale := math.Max(cmplx.Abs(a), cmplx.Abs(b))
	return diff <= relTolerance*scale || diff <= 1e-15
}

// relTolerance is the relative difference below which two evaluated
// answers are the same number. It absorbs float64 rounding in expressions
// computed different ways (about 1e-15) and nothing a person would write:
// 0.3333333333 is not 1/3.
const relTolerance = 1e-12

// numericallyEqual evaluates both answers and compares them; with free
// variables it compares at several points. ok is false when either side
// is not an expression the evaluator understands.
func numericallyEqual(a, b string) (equal, ok bool) {
	ea, err := parseExpr(a)
	if err != nil {
		return false, false
	}
	eb, err := parseExpr(b)
	if err != nil {
		return false, false
	}
	if strings.Join(ea.vars, ",") != strings.Join(eb.vars, ",") {
		return false, true
	}
	trials := 1
	if len(ea.vars) > 0 {
		trials = 3
	}
	for k := 0; k < trials; k++ {
		env := map[string]complex128{}
		for _, v := range ea.vars {
			env[v] = variableValue(v, k)
		}
		if !sameValue(ea.eval(env), eb.eval(env)) {
			return false, true
		}
	}
	return true, true
}

// binomial is C(n, k) for real n and integral k ≥ 0 (NaN otherwise).
func binomial(n, k complex128) complex128 {
	if imag(n) != 0 || imag(k) != 0 || real(k) < 0 || real(k) != math.Trunc(real(k)) || real(k) > 1000 {
		return cmplx.NaN()
	}
	r := complex(1, 0)
	for i := 0.0; i < real(k); i++ {
		r *= (n - complex(i, 0)) / complex(i+1, 0)
	}
	return r
}
