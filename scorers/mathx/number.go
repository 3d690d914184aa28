package mathx

import (
	"math"
	"math/big"
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
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
func FoldWidth(s string) string {
	// Every character folded is encoded with a first byte C2, E2 or EF:
	// a text without one is returned as it is, unscanned by the
	// replacer.
	if !hasFoldLead(s) {
		return s
	}
	return widthFolder.Replace(s)
}

// hasFoldLead reports whether s holds a byte C2, E2 or EF, the first
// byte of every character widthFolder replaces.
func hasFoldLead(s string) bool {
	return strings.IndexByte(s, 0xEF) >= 0 || strings.IndexByte(s, 0xE2) >= 0 || strings.IndexByte(s, 0xC2) >= 0
}

// numberPattern matches one number as written in prose: an optional sign,
// an optional currency sign, digits with optional thousands separators
// (comma, or a space-free run), an optional decimal part, and an optional
// "/denominator" for simple fractions. Trailing sentence punctuation is not
// part of the match ("18." → "18").
const numberPattern = `-?(?:\$\s?)?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:/\d+(?:\.\d+)?)?|-?\$?\.\d+`

var numberRe = lazyre.New(numberPattern)

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

// lastNumber returns the last number numberRe finds in s (already
// cleaned by cleanForNumbers) that parses, the same number as scanning s
// from the start and keeping the last match.
//
// It reads only the end of s. Every match ends with a digit, so the last
// match holds the last digit; and a match is made only of digits, "-",
// "$", ",", ".", "/" and ASCII blanks, so a match never spans a byte
// outside that set. Scanning from just after such a byte therefore finds
// the same matches as scanning from the start. lastNumber takes the run of
// those bytes around the last digit, scans it, and moves to the run before
// it only when no match in it parses. The regexp thus sees the final run
// only instead of the whole text, which is what made a long response slow.
func lastNumber(s string) (Number, bool) {
	end := len(s)
	for end > 0 {
		d := strings.LastIndexAny(s[:end], "0123456789")
		if d < 0 {
			return Number{}, false
		}
		start := d
		for start > 0 && inNumberRun(s[start-1]) {
			start--
		}
		locs := numberRe.FindAllStringIndex(s[start:d+1], -1)
		for i := len(locs) - 1; i >= 0; i-- {
			a, b := start+locs[i][0], start+locs[i][1]
			tok := s[a:b]
			// A hyphen glued to a preceding word or digit is a dash ("3-4",
			// "well-known"), not a minus sign.
			if strings.HasPrefix(tok, "-") && a > 0 && isWordByte(s[a-1]) {
				tok = tok[1:]
			}
			if n, ok := parseNumberToken(tok); ok {
				return n, true
			}
		}
		end = start
	}
	return Number{}, false
}

// inNumberRun reports whether b can be part of a numberRe match: a digit,
// a sign, a separator or an ASCII blank (RE2's \s).
func inNumberRun(b byte) bool {
	switch b {
	case '-', '$', ',', '.', '/', ' ', '\t', '\n', '\f', '\r':
		return true
	}
	return b >= '0' && b <= '9'
}

func isWordByte(b byte) bool {
	return b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// LastNumber returns the last number in s, the lm-eval "flexible-extract"
// fallback.
func LastNumber(s string) (Number, bool) {
	return lastNumber(cleanForNumbers(s))
}

// calcAnnotation matches GSM8K calculator annotations "<<48/2=24>>".
var calcAnnotation = lazyre.New(`<<[^<>]*>>`)

// latexNumberNoise are LaTeX fragments that sit inside or between numbers
// without changing them.
var latexNumberNoise = strings.NewReplacer(
	`\$`, "$", `\%`, "%", `{,}`, ",", `\!`, "", `\,`, "", `\;`, " ",
	`\left`, "", `\right`, "", `\dfrac`, `\frac`, `\tfrac`, `\frac`,
)

// narrowThousands matches a no-break or thin space used as a thousands
// separator (French, Russian: "1 000").
var narrowThousands = lazyre.New(`(\d)[\x{00a0}\x{202f}\x{2009}](\d{3})`)

// texFrac matches \frac{a}{b} with numeric a and b.
var texFrac = lazyre.New(`(-?)\\frac\{\s*(-?\d+(?:\.\d+)?)\s*\}\{\s*(\d+(?:\.\d+)?)\s*\}`)

// texFracShort matches \frac12.
var texFracShort = lazyre.New(`\\frac(\d)(\d)`)

// cleanForNumbers prepares free text for number scanning: width folding,
// calculator annotations removed, LaTeX fractions of literals turned into
// a/b, LaTeX spacing removed.
//
// Each regexp runs only when the literal text it needs is present (a
// narrow space, "答案", "<<", `\frac`): the result is the same, and
// ordinary prose is not run through them.
func cleanForNumbers(s string) string {
	if strings.Contains(s, "\u00a0") || strings.Contains(s, "\u202f") || strings.Contains(s, "\u2009") {
		for narrowThousands.MatchString(s) {
			s = narrowThousands.ReplaceAllString(s, "$1$2")
		}
	}
	s = FoldWidth(s)
	if strings.Contains(s, "答案") {
		s = hanziToDigits(s)
	}
	if strings.Contains(s, "<<") {
		s = calcAnnotation.ReplaceAllString(s, "")
	}
	// Every fragment latexNumberNoise replaces starts with \ or {.
	if strings.IndexByte(s, '\\') >= 0 || strings.IndexByte(s, '{') >= 0 {
		s = latexNumberNoise.Replace(s)
	}
	if strings.Contains(s, `\frac`) {
		s = texFracShort.ReplaceAllString(s, `\frac{$1}{$2}`)
		s = texFrac.ReplaceAllString(s, "$1$2/$3")
	}
	return s
}
