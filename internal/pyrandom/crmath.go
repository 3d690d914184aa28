package pyrandom

import (
	"math"
	"math/big"
	"sync"
)

// Correctly rounded cos, sin and log for random.gauss.
//
// Each function first evaluates in double-double arithmetic (about 100
// correct bits) and returns the nearest double when that is unambiguous,
// which is every case except one in about 2^45; otherwise it recomputes the
// value with math/big at 320 bits. The double-double path is meant for the
// arguments gauss passes (cos and sin of [0, 2π), log of (0, 1]) and for
// moderate ones generally; larger arguments take the math/big path.

// dd is an unevaluated sum hi + lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return
}

func fastTwoSum(a, b float64) (s, e float64) {
	s = a + b
	e = b - (s - a)
	return
}

// twoProd returns p = fl(a·b) and its exact error e = a·b - p. The explicit
// float64 conversion is what makes p the rounded product: the Go spec lets a
// compiler fuse a product with a later sum, across statements and inlined
// calls, unless a conversion forces the rounding. Without it the arm64
// compiler turned twoSum(r, -p) and fastTwoSum(p, e) into fused
// multiply-adds that used the exact a·b, so the pair (p, e) no longer summed
// to the product and results came out an ulp off.
func twoProd(a, b float64) (p, e float64) {
	p = float64(a * b)
	e = math.FMA(a, b, -p)
	return
}

func ddAdd(a, b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	t, f := twoSum(a.lo, b.lo)
	e += t
	s, e = fastTwoSum(s, e)
	e += f
	s, e = fastTwoSum(s, e)
	return dd{s, e}
}

func ddMul(a, b dd) dd {
	p, e := twoProd(a.hi, b.hi)
	e += float64(a.hi*b.lo) + float64(a.lo*b.hi)
	p, e = fastTwoSum(p, e)
	return dd{p, e}
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

func ddDiv(a, b dd) dd {
	q1 := a.hi / b.hi
	r := ddAdd(a, ddNeg(ddMul(dd{q1, 0}, b)))
	q2 := r.hi / b.hi
	r = ddAdd(r, ddNeg(ddMul(dd{q2, 0}, b)))
	q3 := r.hi / b.hi
	s, e := fastTwoSum(q1, q2)
	return ddAdd(dd{s, e}, dd{q3, 0})
}

// bigPrec is the precision of the math/big fallback and of the constants.
const bigPrec = 320

// crConsts are the constants, computed from series so that no digit is
// typed by hand, once, on first use (not at package init: every command of
// the binary would pay for them).
type crConsts struct {
	bigPi, bigLn2 *big.Float
	// piOver2 and ln2 as sums of three doubles (about 159 bits).
	piOver2, ln2 [3]float64
	// invFact[i] = 1/i! and invOdd[k] = 1/(2k+1) in double-double.
	invFact [34]dd
	invOdd  [26]dd
}

var consts = sync.OnceValue(func() *crConsts {
	c := &crConsts{bigPi: machinPi(), bigLn2: bigLog2()}
	c.piOver2 = split3(new(big.Float).SetPrec(bigPrec).Quo(c.bigPi, big.NewFloat(2)))
	c.ln2 = split3(c.bigLn2)
	f := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	for i := range c.invFact {
		if i > 0 {
			f.Mul(f, new(big.Float).SetInt64(int64(i)))
		}
		c.invFact[i] = toDD(new(big.Float).SetPrec(bigPrec).Quo(big.NewFloat(1), f))
	}
	for k := range c.invOdd {
		c.invOdd[k] = toDD(new(big.Float).SetPrec(bigPrec).Quo(big.NewFloat(1), new(big.Float).SetInt64(int64(2*k+1))))
	}
	return c
})

func toDD(x *big.Float) dd {
	hi, _ := x.Float64()
	rest := new(big.Float).SetPrec(bigPrec).Sub(x, big.NewFloat(hi))
	lo, _ := rest.Float64()
	return dd{hi, lo}
}

func split3(x *big.Float) [3]float64 {
	var out [3]float64
	rest := new(big.Float).SetPrec(bigPrec).Set(x)
	for i := range out {
		out[i], _ = rest.Float64()
		rest.Sub(rest, big.NewFloat(out[i]))
	}
	return out
}

// atanhInv returns atanh(1/x) = sum 1/((2k+1) x^(2k+1)) at bigPrec.
func atanhInv(x int64) *big.Float { return inverseSeries(x, false) }

// atanInv returns atan(1/x) = sum (-1)^k / ((2k+1) x^(2k+1)).
func atanInv(x int64) *big.Float { return inverseSeries(x, true) }

func inverseSeries(x int64, alternate bool) *big.Float {
	sum := new(big.Float).SetPrec(bigPrec)
	pow := new(big.Float).SetPrec(bigPrec).Quo(big.NewFloat(1), new(big.Float).SetInt64(x))
	x2 := new(big.Float).SetPrec(bigPrec).SetInt64(x * x)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -bigPrec-8)
	for k := int64(0); ; k++ {
		term := new(big.Float).SetPrec(bigPrec).Quo(pow, new(big.Float).SetInt64(2*k+1))
		if alternate && k%2 == 1 {
			sum.Sub(sum, term)
		} else {
			sum.Add(sum, term)
		}
		if term.Cmp(eps) < 0 {
			return sum
		}
		pow.Quo(pow, x2)
	}
}

// machinPi is 16 atan(1/5) - 4 atan(1/239).
func machinPi() *big.Float {
	a := new(big.Float).SetPrec(bigPrec).Mul(big.NewFloat(16), atanInv(5))
	b := new(big.Float).SetPrec(bigPrec).Mul(big.NewFloat(4), atanInv(239))
	return a.Sub(a, b)
}

// bigLog2 is ln 2 = 2 atanh(1/3).
func bigLog2() *big.Float {
	return new(big.Float).SetPrec(bigPrec).Mul(big.NewFloat(2), atanhInv(3))
}

// roundDD returns the double nearest to the value v approximates with
// relative error below 2^-95, and false when v is too close to the midpoint
// between two doubles for that to be certain.
func roundDD(v dd) (float64, bool) {
	h, l := v.hi+v.lo, 0.0
	l = v.lo - (h - v.hi)
	if h == 0 || math.IsInf(h, 0) || math.IsNaN(h) || math.Abs(h) < 0x1p-1000 {
		return h, false
	}
	if l == 0 {
		// The approximation is a double; the true value is within 2^-95
		// relative of it, far closer than half an ulp.
		return h, true
	}
	next := math.Nextafter(h, math.Copysign(math.Inf(1), l))
	half := float64(math.Abs(next-h) / 2) // the compiler may make /2 a *0.5; keep it unfused
	errBound := math.Abs(h) * 0x1p-95
	if math.Abs(math.Abs(l)-half) <= errBound {
		return 0, false
	}
	return h, true
}

// reduce returns r = x - k·π/2 in double-double, with k = round(x / (π/2)),
// for |x| <= 64.
func reduce(x float64) (dd, int) {
	k := math.Round(x * (2 / math.Pi))
	r := dd{x, 0}
	for _, c := range consts().piOver2 {
		p, e := twoProd(k, c)
		r = ddAdd(r, dd{-p, -e})
	}
	return r, int(k)
}

// sinCosDD returns sin(r) and cos(r) for |r| <= π/4 + a little.
func sinCosDD(r dd) (dd, dd) {
	invFact := &consts().invFact
	r2 := ddMul(r, r)
	// sin r = r (1 - r²/3! + r⁴/5! - ...), cos r = 1 - r²/2! + r⁴/4! - ...
	s := invFact[33]
	for i := 31; i >= 1; i -= 2 {
		s = ddMul(s, r2)
		s = ddNeg(s)
		s = ddAdd(s, invFact[i])
	}
	s = ddMul(s, r)
	c := invFact[32]
	for i := 30; i >= 0; i -= 2 {
		c = ddMul(c, r2)
		c = ddNeg(c)
		c = ddAdd(c, invFact[i])
	}
	return s, c
}

// Cos is the correctly rounded cosine.
func Cos(x float64) float64 {
	if x == 0 {
		return 1
	}
	return sinShifted(x, 1)
}

// Sin is the correctly rounded sine.
func Sin(x float64) float64 {
	if x == 0 {
		return x
	}
	return sinShifted(x, 0)
}

// sinShifted returns sin(x + shift·π/2): the sine for shift 0, the cosine
// for shift 1.
func sinShifted(x float64, shift int) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return math.NaN()
	}
	if math.Abs(x) <= 64 {
		r, k := reduce(x)
		s, c := sinCosDD(r)
		if f, ok := roundDD(quadrant(k+shift, s, c, ddNeg)); ok {
			return f
		}
	}
	return bigSinShifted(x, shift)
}

// quadrant returns sin(r + k·π/2) from s = sin r and c = cos r.
func quadrant[T any](k int, s, c T, neg func(T) T) T {
	switch k & 3 {
	case 0:
		return s
	case 1:
		return c
	case 2:
		return neg(s)
	}
	return neg(c)
}

// Log is the correctly rounded natural logarithm.
func Log(y float64) float64 {
	switch {
	case y == 1:
		return 0
	case y == 0:
		return math.Inf(-1)
	case y < 0 || math.IsNaN(y):
		return math.NaN()
	case math.IsInf(y, 1):
		return y
	}
	frac, exp := math.Frexp(y) // y = frac · 2^exp, frac in [0.5, 1)
	if frac < math.Sqrt2/2 {
		frac *= 2
		exp--
	}
	// log y = exp·ln2 + 2 atanh(z), z = (frac-1)/(frac+1), |z| < 0.172.
	num := dd{frac - 1, 0} // exact (Sterbenz)
	den := dd{}
	den.hi, den.lo = twoSum(frac, 1)
	z := ddDiv(num, den)
	z2 := ddMul(z, z)
	invOdd := &consts().invOdd
	t := invOdd[len(invOdd)-1]
	for k := len(invOdd) - 2; k >= 0; k-- {
		t = ddAdd(ddMul(t, z2), invOdd[k])
	}
	v := ddMul(ddMul(t, z), dd{2, 0})
	if exp != 0 {
		e := float64(exp)
		for _, c := range consts().ln2 {
			p, pe := twoProd(e, c)
			v = ddAdd(v, dd{p, pe})
		}
	}
	if f, ok := roundDD(v); ok {
		return f
	}
	return bigLog(y)
}

// The math/big fallbacks.

func bigEps() *big.Float { return new(big.Float).SetMantExp(big.NewFloat(1), -bigPrec-16) }

// bigSinCos returns sin and cos of r by their Taylor series.
func bigSinCos(r *big.Float) (*big.Float, *big.Float) {
	r2 := new(big.Float).SetPrec(bigPrec).Mul(r, r)
	sin := new(big.Float).SetPrec(bigPrec).Set(r)
	cos := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	term := new(big.Float).SetPrec(bigPrec).Set(r) // r^n / n!, n odd
	cterm := new(big.Float).SetPrec(bigPrec).SetInt64(1)
	eps := bigEps()
	for n := int64(1); ; n += 2 {
		// cos: term r^(n+1)/(n+1)!; sin: r^(n+2)/(n+2)!
		cterm.Mul(cterm, r2)
		cterm.Quo(cterm, new(big.Float).SetInt64(n*(n+1)))
		cterm.Neg(cterm)
		cos.Add(cos, cterm)
		term.Mul(term, r2)
		term.Quo(term, new(big.Float).SetInt64((n+1)*(n+2)))
		term.Neg(term)
		sin.Add(sin, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 && new(big.Float).Abs(cterm).Cmp(eps) < 0 {
			return sin, cos
		}
	}
}

// bigReduce returns x - k·π/2 and k mod 4 at bigPrec (|x| up to 2^40).
func bigReduce(x float64) (*big.Float, int) {
	bx := new(big.Float).SetPrec(bigPrec).SetFloat64(x)
	halfPi := new(big.Float).SetPrec(bigPrec).Quo(consts().bigPi, big.NewFloat(2))
	q := new(big.Float).SetPrec(bigPrec).Quo(bx, halfPi)
	q.Add(q, big.NewFloat(0.5))
	ki, _ := q.Int(nil)
	if q.Sign() < 0 && !q.IsInt() {
		ki.Sub(ki, big.NewInt(1)) // floor for negatives
	}
	kf := new(big.Float).SetPrec(bigPrec).SetInt(ki)
	r := new(big.Float).SetPrec(bigPrec).Mul(kf, halfPi)
	r.Sub(bx, r)
	k := new(big.Int).Mod(ki, big.NewInt(4)).Int64()
	return r, int(k)
}

func bigCos(x float64) float64 { return bigSinShifted(x, 1) }

func bigSin(x float64) float64 { return bigSinShifted(x, 0) }

func bigSinShifted(x float64, shift int) float64 {
	r, k := bigReduce(x)
	s, c := bigSinCos(r)
	f, _ := quadrant(k+shift, s, c, func(v *big.Float) *big.Float { return v.Neg(v) }).Float64()
	return f
}

func bigLog(y float64) float64 {
	by := new(big.Float).SetPrec(bigPrec).SetFloat64(y)
	m := new(big.Float).SetPrec(bigPrec)
	exp := by.MantExp(m) // y = m · 2^exp, m in [0.5, 1)
	// log m = 2 atanh((m-1)/(m+1))
	num := new(big.Float).SetPrec(bigPrec).Sub(m, big.NewFloat(1))
	den := new(big.Float).SetPrec(bigPrec).Add(m, big.NewFloat(1))
	z := new(big.Float).SetPrec(bigPrec).Quo(num, den)
	z2 := new(big.Float).SetPrec(bigPrec).Mul(z, z)
	sum := new(big.Float).SetPrec(bigPrec)
	pow := new(big.Float).SetPrec(bigPrec).Set(z)
	eps := bigEps()
	for k := int64(0); ; k++ {
		term := new(big.Float).SetPrec(bigPrec).Quo(pow, new(big.Float).SetInt64(2*k+1))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
		pow.Mul(pow, z2)
	}
	sum.Mul(sum, big.NewFloat(2))
	e := new(big.Float).SetPrec(bigPrec).Mul(new(big.Float).SetInt64(int64(exp)), consts().bigLn2)
	sum.Add(sum, e)
	f, _ := sum.Float64()
	return f
}
