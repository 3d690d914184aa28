package mathx

import (
	"math"
	"math/big"
	"regexp"
	"strings"
)

// widthFolder maps full-width digits and number punctuation, and the
// typographic minus signs, to ASCII.
var widthFolder = strings.NewReplacer(
	"０", "0", "１", "1", "２", "2", "３", "3", "４", "4",
	"５", "5", "６", "6", "７", "7", "８", "8", "９", "9",
	"．", ".", "，", ",", "－", "-", "−", "-", "–", "-", "＄", "$",
	"％", "%", "／", "/", "＋", "+", "＝", "=", "：", ":",
	"\u00a0", " ", "\u2009", " ", "\u202f", " ",
)

// FoldWidth rewrites full-width digits and punctuation (０-９，．－：…) and
// Unicode minus signs to their ASCII forms, so that "１，２００元" reads as
// "1,200元".
func FoldWidth(s string) string { return widthFolder.Replace(s) }

// numberPattern matches one number as written in prose: an optional sign,
// an optional currency sign, digits with optional thousands separators
// (comma, or a space-free run), an optional decimal part, and an optional
// "/denominator" for simple fractions. Trailing sentence punctuation is not
// part of the match ("18." → "18").
const numberPattern = `-?(?:\$\s?)?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:/\d+(?:\.\d+)?)?|-?\$?\.\d+`

var numberRe = regexp.MustCompile(numberPattern)

// Number is a parsed numeric answer.
type Number struct {
	r *big.Rat
}

// String renders the number in canonical form: an integer when integral,
// else the shortest exact decimal, else a fraction a/b.
func (n Number) String() string {
	if n.r == nil {
		return ""
	}
	if n.r.IsInt() {
		return n.r.Num().String()
	}
	if s, exact := n.r.FloatPrec(); exact {
		return n.r.FloatString(s)
	}
	return n.r.String()
}

// Equal reports whether two numbers are equal: integers exactly, other
// values exactly or (for decimals that approximate the same value, such as
// 266.6666666667 and 266.66666666666666) within a relative 1e-9.
func (n Number) Equal(m Number) bool {
	if n.r == nil || m.r == nil {
		return false
	}
	if n.r.Cmp(m.r) == 0 {
		return true
	}
	if n.r.IsInt() && m.r.IsInt() {
		return false // integers compare exactly, however large
	}
	a, _ := n.r.Float64()
	b, _ := m.r.Float64()
	scale := math.Max(math.Abs(a), math.Abs(b))
	return math.Abs(a-b) <= 1e-9*scale
}

// ParseNumber reads a numeric answer, tolerating what models and datasets
// put around it: currency ($, \$), thousands separators (1,000 and
// full-width １，０００), trailing zeros (5.00), percent signs, trailing
// units or words ("18 dollars", "5元"), surrounding punctuation, and
// simple fractions ("3/4"). It reports false when no number is present.
func ParseNumber(s string) (Number, bool) {
	s = FoldWidth(s)
	s = strings.ReplaceAll(s, `\$`, "$")
	s = strings.ReplaceAll(s, `\%`, "%")
	s = strings.ReplaceAll(s, `{,}`, ",")
	m := numberRe.FindString(s)
	if m == "" {
		return Number{}, false
	}
	return parseNumberToken(m)
}

// parseNumberToken parses one numberRe match.
func parseNumberToken(tok string) (Number, bool) {
	t := strings.ReplaceAll(tok, "$", "")
	t = strings.ReplaceAll(t, " ", "")
	t = strings.ReplaceAll(t, ",", "")
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	var r *big.Rat
	if num, den, ok := strings.Cut(t, "/"); ok {
		a, ok1 := new(big.Rat).SetString(num)
		b, ok2 := new(big.Rat).SetString(den)
		if !ok1 || !ok2 || b.Sign() == 0 {
			return Number{}, false
		}
		r = a.Quo(a, b)
	} else {
		var ok bool
		r, ok = new(big.Rat).SetString(t)
		if !ok {
			return Number{}, false
		}
	}
	if neg {
		r.Neg(r)
	}
	return Number{r: r}, true
}

// numberSpan is a number found in text with its byte offsets.
type numberSpan struct {
	n          Number
	start, end int
}

// findNumbers returns every number in s (already width-folded) in order.
func findNumbers(s string) []numberSpan {
	var out []numberSpan
	for _, loc := range numberRe.FindAllStringIndex(s, -1) {
		tok := s[loc[0]:loc[1]]
		// A hyphen glued to a preceding word or digit is a dash ("3-4",
		// "well-known"), not a minus sign.
		if strings.HasPrefix(tok, "-") && loc[0] > 0 {
			prev := s[loc[0]-1]
			if isWordByte(prev) {
				tok = tok[1:]
				loc[0]++
			}
		}
		if n, ok := parseNumberToken(tok); ok {
			out = append(out, numberSpan{n: n, start: loc[0], end: loc[1]})
		}
	}
	return out
}

func isWordByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// LastNumber returns the last number in s, the lm-eval "flexible-extract"
// fallback.
func LastNumber(s string) (Number, bool) {
	nums := findNumbers(cleanForNumbers(s))
	if len(nums) == 0 {
		return Number{}, false
	}
	return nums[len(nums)-1].n, true
}

// calcAnnotation matches GSM8K calculator annotations "<<48/2=24>>".
var calcAnnotation = regexp.MustCompile(`<<[^<>]*>>`)

// latexNumberNoise are LaTeX fragments that sit inside or between numbers
// without changing them.
var latexNumberNoise = strings.NewReplacer(
	`\$`, "$", `\%`, "%", `{,}`, ",", `\!`, "", `\,`, "", `\;`, " ",
	`\left`, "", `\right`, "", `\dfrac`, `\frac`, `\tfrac`, `\frac`,
)

// narrowThousands matches a no-break or thin space used as a thousands
// separator (French, Russian: "1 000").
var narrowThousands = regexp.MustCompile(`(\d)[\x{00a0}\x{202f}\x{2009}](\d{3})`)

// texFrac matches \frac{a}{b} with numeric a and b.
var texFrac = regexp.MustCompile(`(-?)\\frac\{\s*(-?\d+(?:\.\d+)?)\s*\}\{\s*(\d+(?:\.\d+)?)\s*\}`)

// texFracShort matches \frac12.
var texFracShort = regexp.MustCompile(`\\frac(\d)(\d)`)

// cleanForNumbers prepares free text for number scanning: width folding,
// calculator annotations removed, LaTeX fractions of literals turned into
// a/b, LaTeX spacing removed.
func cleanForNumbers(s string) string {
	for narrowThousands.MatchString(s) {
		s = narrowThousands.ReplaceAllString(s, "$1$2")
	}
	s = FoldWidth(s)
	s = hanziToDigits(s)
	s = calcAnnotation.ReplaceAllString(s, "")
	s = latexNumberNoise.Replace(s)
	s = texFracShort.ReplaceAllString(s, `\frac{$1}{$2}`)
	s = texFrac.ReplaceAllString(s, "$1$2/$3")
	return s
}
