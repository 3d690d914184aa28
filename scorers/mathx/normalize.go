package mathx

import (
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// Normalize rewrites a LaTeX answer into the canonical string form that
// Equivalent compares first. It follows the MATH benchmark's reference
// normaliser (strip_string in hendrycks/math) — \dfrac and \tfrac become
// \frac, \left/\right, degree marks, \%, \$ and trailing unit text are
// removed, "\frac12" becomes "\frac{1}{2}", ".5" becomes "0.5", a short
// "x =" prefix is dropped, spaces are removed — and extends it: math
// delimiters and \boxed are unwrapped, thin spaces (\! \, \;) and
// \displaystyle dropped, \text{…} unwrapped, thousands separators and
// trailing decimal zeros removed, single-character braces after ^ and _
// dropped, matrix environments unified, Unicode π √ ∞ ≤ ≥ spelled in LaTeX.
func Normalize(s string) string {
	s = FoldWidth(s)
	s = strings.TrimSpace(s)
	s = unwrapDelimiters(strings.TrimRight(s, " .。"))
	if b, ok := LastBoxed(s); ok {
		s = b
	}
	s = strings.TrimRight(s, " .。")
	s = strings.ReplaceAll(s, "\n", " ")
	for commaThinSpace.MatchString(s) { // "11,\! 111" is one number
		s = commaThinSpace.ReplaceAllString(s, "$1,$2")
	}
	s = strings.ReplaceAll(s, `\\`, "\x00") // protect row breaks from `\ `
	s = latexNoise.Replace(s)
	s = strings.ReplaceAll(s, "\x00", `\\`)
	s = leftRight.ReplaceAllStringFunc(s, func(m string) string {
		if last := m[len(m)-1]; !isLetter(last) && last != '.' {
			return m[len(m)-1:]
		}
		return ""
	})
	s = degrees.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, `\%`, "")
	s = strings.ReplaceAll(s, "%", "")
	s = strings.ReplaceAll(s, `\$`, "")
	s = strings.ReplaceAll(s, "$", "")
	s = removeRightUnits(s)
	s = unwrapText(s)
	s = plainUnits.ReplaceAllString(s, "$1")
	s = plainMath(s)
	s = strings.TrimSpace(s)
	if thousands.MatchString(s) {
		s = strings.ReplaceAll(s, ",", "")
	}
	s = dropVariablePrefix(s)
	s = strings.TrimRight(s, " .")
	s = strings.Join(strings.Fields(s), "")
	s = fixFracs(s)
	s = sqrtShort.ReplaceAllString(s, `\sqrt{$1}`)
	s = singleBrace.ReplaceAllString(s, "$1$2")
	s = leadingDot.ReplaceAllString(s, "${1}0.$2")
	s = trailingZeros.ReplaceAllStringFunc(s, trimDecimalZeros)
	if simpleSlash.MatchString(s) {
		m := simpleSlash.FindStringSubmatch(s)
		s = `\frac{` + m[1] + `}{` + m[2] + `}`
	}
	if m := choiceLetter.FindStringSubmatch(s); m != nil {
		s = strings.ToUpper(m[1])
	}
	if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && len(s) > 2 {
		if inner := s[1 : len(s)-1]; balanced(inner) && len(splitTop(inner, ",")) > 1 {
			s = `\{` + inner + `\}` // {1,2} is the set \{1,2\}
		}
	}
	return s
}

var (
	// plainFunc matches sqrt, pi, infinity… written without a backslash.
	plainFunc = lazyre.New(`(^|[^\\a-zA-Z])(sqrt|pi|infty|infinity|inf)([^a-zA-Z]|$)`)
	// plainUnion matches "(0,1) U (2,3)".
	plainUnion = lazyre.New(`([\)\]])\s*U\s*([\(\[])`)
	// listWords matches "and"/"or" joining the items of an answer list.
	listWords = lazyre.New(`\s*,?\s+(?:and|or)\s+`)
)

// plainMath rewrites plain-text math into LaTeX: "5 sqrt(2)", "pi/2",
// "(-inf, 3]", "(0,1) U (2,3)", "1, 2 and 3".
func plainMath(s string) string {
	for i := 0; i < 4 && plainFunc.MatchString(s); i++ {
		s = plainFunc.ReplaceAllStringFunc(s, func(m string) string {
			sub := plainFunc.FindStringSubmatch(m)
			name := sub[2]
			if name == "inf" || name == "infinity" {
				name = "infty"
			}
			return sub[1] + `\` + name + sub[3]
		})
	}
	s = plainUnion.ReplaceAllString(s, `$1\cup$2`)
	return listWords.ReplaceAllString(s, ",")
}

// latexNoise are spacing and style commands that never change an answer,
// and Unicode symbols with a LaTeX spelling.
var latexNoise = strings.NewReplacer(
	`\displaystyle`, "", `\textstyle`, "", `\!`, "", `\,`, " ", `\;`, " ", `\:`, " ",
	`\quad`, " ", `\qquad`, " ", `\ `, " ", "~", " ",
	`\dfrac`, `\frac`, `\tfrac`, `\frac`, `\cfrac`, `\frac`,
	`{,}`, ",", `\dots`, `\ldots`, `\cdots`, `\ldots`,
	`\bmatrix`, `\pmatrix`,
	`\begin{bmatrix}`, `\begin{pmatrix}`, `\end{bmatrix}`, `\end{pmatrix}`,
	`\begin{matrix}`, `\begin{pmatrix}`, `\end{matrix}`, `\end{pmatrix}`,
	`\begin{vmatrix}`, `\begin{pmatrix}`, `\end{vmatrix}`, `\end{pmatrix}`,
	`\begin{array}{cc}`, `\begin{pmatrix}`, `\begin{array}{c}`, `\begin{pmatrix}`, `\end{array}`, `\end{pmatrix}`,
	`\le `, `\leq `, `\ge `, `\geq `, `\leqslant`, `\leq`, `\geqslant`, `\geq`,
	"≤", `\leq`, "≥", `\geq`, "≠", `\neq`, `\ne `, `\neq `,
	"²", "^2", "³", "^3", `\dbinom`, `\binom`, `\tbinom`, `\binom`,
	"π", `\pi`, "∞", `\infty`, "√", `\sqrt`, "∪", `\cup`, "×", `\times`, "·", `\cdot`,
	`\infinity`, `\infty`, `\mathbf`, "", `\boldsymbol`, "", `\bf `, "",
	`\bigl`, "", `\bigr`, "", `\Bigl`, "", `\Bigr`, "",
)

var (
	// leftRight matches sizing commands (not \leftarrow, \rightarrow).
	leftRight = lazyre.New(`\\(?:left|right|bigg|Bigg|big|Big)(?:[^a-zA-Z]|$)`)
	degrees   = lazyre.New(`\^\s*\{?\s*\\circ\s*\}?|°|\\degree|\^\{\s*\\text\{\s*o\s*\}\s*\}`)
	// rightUnits matches trailing unit text after a numeric answer:
	// "5 \text{ cm}^2", "4\mbox{ inches}".
	rightUnits = lazyre.New(`^(.*[\d}a-zA-Z)])\s*\\(?:text|textbf|textit|mbox|textrm|mathrm)\s*\{\s*[a-zA-Z][a-zA-Z .]*\}(?:\s*\^\s*\{?\d\}?)?\s*$`)
	// plainUnits matches unit words after a number written without \text.
	plainUnits     = lazyre.New(`^(-?[\d.,/]+)\s+(?:(?:square|sq\.?|cubic)\s+)?(?:cm|mm|km|m|in|inch|inches|ft|feet|foot|yd|yards?|miles?|meters?|metres?|centimeters?|units?|degrees?|dollars?|cents?|hours?|minutes?|seconds?|days?|weeks?|years?|mph|pounds?|lbs?|ounces?|oz|gallons?|liters?|people|students|ways|percent|sq|cubic)(?:\s*\^\s*\{?[23]\}?)?\.?$`)
	commaThinSpace = lazyre.New(`(\d),\\!(?:\\[,;:!]|\s)*(\d{3})`)
	textCmd        = lazyre.New(`\\(?:text|textbf|textit|textrm|mbox|mathrm|mathit|mathsf|operatorname|hbox)\s*\{`)
	thousands      = lazyre.New(`^-?\d{1,3}(?:,\d{3})+(?:\.\d+)?$`)
	sqrtShort      = lazyre.New(`\\sqrt([0-9a-zA-Z])`)
	// singleBrace drops braces around one character after ^ or _.
	singleBrace   = lazyre.New(`([\^_])\{([0-9a-zA-Z])\}`)
	leadingDot    = lazyre.New(`(^|[^0-9])\.([0-9])`)
	trailingZeros = lazyre.New(`\d+\.\d*0+(?:[^0-9]|$)|\d+\.(?:[^0-9]|$)`)
	simpleSlash   = lazyre.New(`^(-?\d+)/(\d+)$`)
	choiceLetter  = lazyre.New(`^\(([A-Za-z])\)$`)
	varPrefix     = lazyre.New(`^\s*(?:[a-zA-Z]|\\[a-zA-Z]+)(?:_\{?\w+\}?)?(?:\([a-zA-Z]\))?\s*=\s*`)
)

// unwrapDelimiters removes math-mode delimiters around the whole answer.
func unwrapDelimiters(s string) string {
	for {
		t := strings.TrimSpace(s)
		switch {
		case len(t) >= 2 && strings.HasPrefix(t, "$$") && strings.HasSuffix(t, "$$") && len(t) >= 4:
			t = t[2 : len(t)-2]
		case len(t) >= 2 && t[0] == '$' && t[len(t)-1] == '$':
			t = t[1 : len(t)-1]
		case strings.HasPrefix(t, `\(`) && strings.HasSuffix(t, `\)`):
			t = t[2 : len(t)-2]
		case strings.HasPrefix(t, `\[`) && strings.HasSuffix(t, `\]`):
			t = t[2 : len(t)-2]
		}
		if t == s {
			return t
		}
		s = t
	}
}

// removeRightUnits drops unit text after an answer, as MATH's reference
// normaliser does for "\text{ …}" suffixes.
func removeRightUnits(s string) string {
	for {
		m := rightUnits.FindStringSubmatch(s)
		if m == nil {
			return s
		}
		s = strings.TrimSpace(m[1])
	}
}

// unwrapText replaces \text{…} and similar wrappers by their content.
func unwrapText(s string) string {
	for {
		loc := textCmd.FindStringIndex(s)
		if loc == nil {
			return s
		}
		open := loc[1] - 1
		body, ok := braced(s[open:])
		if !ok {
			return s
		}
		s = s[:loc[0]] + body + s[open+len(body)+2:]
	}
}

// dropVariablePrefix removes "x =", "k=", "f(x) =" or "\theta =" in front of
// an answer, when the rest holds no other "=".
func dropVariablePrefix(s string) string {
	if strings.Count(s, "=") != 1 {
		return s
	}
	loc := varPrefix.FindStringIndex(s)
	if loc == nil {
		return s
	}
	return s[loc[1]:]
}

// fixFracs turns \frac12, \frac1{x} and \frac{a}b into fully braced form.
func fixFracs(s string) string {
	const cmd = `\frac`
	var b strings.Builder
	for {
		i := strings.Index(s, cmd)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i+len(cmd)])
		s = s[i+len(cmd):]
		for arg := 0; arg < 2; arg++ {
			if s == "" {
				break
			}
			if s[0] == '{' {
				body, ok := braced(s)
				if !ok {
					break
				}
				b.WriteString("{" + fixFracs(body) + "}")
				s = s[len(body)+2:]
				continue
			}
			if s[0] == '\\' {
				break // a command argument such as \frac\pi2 is left alone
			}
			b.WriteString("{" + s[:1] + "}")
			s = s[1:]
		}
	}
}

// trimDecimalZeros turns "2.50" into "2.5" and "3.0" or "3." into "3",
// keeping whatever non-digit followed the number.
func trimDecimalZeros(m string) string {
	tail := ""
	if last := m[len(m)-1]; last < '0' || last > '9' {
		tail = m[len(m)-1:]
		m = m[:len(m)-1]
	}
	m = strings.TrimRight(m, "0")
	m = strings.TrimSuffix(m, ".")
	return m + tail
}
