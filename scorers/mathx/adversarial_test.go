package mathx

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

func math500Answers(t *testing.T) []string {
	t.Helper()
	path := filepath.Join(sharedtest.Datasets(t), "math500", "test.jsonl")
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("MATH-500 not found at %s (set POCKETEVAL_DATA)", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for line := 1; sc.Scan(); line++ {
		var rec struct {
			Answer string `json:"answer"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, rec.Answer)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// pair is one adversarial case: a rewrite of gold that is (or is not) the
// same answer, with the rule that produced it.
type pair struct {
	gold, cand, rule string
}

var (
	simpleFracRe  = regexp.MustCompile(`^(-?)\\d?frac\{(\d+)\}\{(\d+)\}$`)
	intRe         = regexp.MustCompile(`^-?\d+$`)
	decimalRe     = regexp.MustCompile(`^-?\d*\.\d+$`)
	implicitPi    = regexp.MustCompile(`(\d) ?\\pi`)
	caretDigit    = regexp.MustCompile(`\^(\d)`)
	generalFracRe = regexp.MustCompile(`^(-?)\\d?frac\{([^{}]+)\}\{([^{}]+)\}$`)
	unitExponent  = regexp.MustCompile(`(\})\^\d$`) // "\text{ cm}^2": a unit's power, not the answer
	digitRe       = regexp.MustCompile(`\d`)
	denomRe       = regexp.MustCompile(`(\\d?frac\{[^{}]*\}\{)(\d+)(\})`)
	thousandsGold = regexp.MustCompile(`^(?:\\\$)?\d{1,3}(?:,(?:\\!)? ?\d{3})+$`)
	textWordRe    = regexp.MustCompile(`^\\text\{([A-Za-z]+)\}$`)
	choiceRe      = regexp.MustCompile(`^\\text\{\(([A-E])\)\}$`)
)

// equalRewrites returns forms of gold that any grader should accept.
func equalRewrites(gold string) []pair {
	var out []pair
	add := func(rule, cand string) {
		if cand != gold {
			out = append(out, pair{gold, cand, rule})
		}
	}
	add("math-delimiters", "$"+gold+"$")
	add("no-spaces", strings.ReplaceAll(gold, " ", ""))
	if !thousandsGold.MatchString(gold) {
		add("extra-spaces", strings.NewReplacer(",", ", ", "+", " + ", "=", " = ").Replace(gold))
	}
	add("dfrac", strings.ReplaceAll(strings.ReplaceAll(gold, `\dfrac`, `\frac`), `\frac`, `\dfrac`))
	add("tfrac", strings.ReplaceAll(strings.ReplaceAll(gold, `\dfrac`, `\frac`), `\frac`, `\tfrac`))
	add("sqrt-short", regexp.MustCompile(`\\sqrt\{(\d)\}`).ReplaceAllString(gold, `\sqrt$1`))
	add("thin-space", strings.ReplaceAll(gold, " ", `\,`))
	add("boxed", `\boxed{`+gold+`}`)
	add("trailing-period", gold+".")
	add("cdot-products", implicitPi.ReplaceAllString(gold, `$1 \cdot \pi`))
	add("unicode", strings.NewReplacer(`\pi`, "π", `\infty`, "∞").Replace(gold))
	add("braced-powers", caretDigit.ReplaceAllString(gold, "^{$1}"))
	if strings.Contains(gold, `\text{`) {
		add("textbf", strings.ReplaceAll(gold, `\text{`, `\textbf{`))
		add("mbox", strings.ReplaceAll(gold, `\text{`, `\mbox{`))
	}
	if strings.Contains(gold, `\%`) {
		add("bare-percent", strings.ReplaceAll(gold, `\%`, "%"))
	}
	if strings.Contains(gold, `^\circ`) {
		add("degrees-word", strings.ReplaceAll(gold, `^\circ`, ` degrees`))
	}
	if m := generalFracRe.FindStringSubmatch(gold); m != nil && !strings.Contains(gold, ",") {
		add("general-slash", m[1]+"("+m[2]+")/("+m[3]+")")
	}
	if m := simpleFracRe.FindStringSubmatch(gold); m != nil {
		add("slash", m[1]+m[2]+"/"+m[3])
		if len(m[2]) == 1 && len(m[3]) == 1 {
			add("frac-short", m[1]+`\frac`+m[2]+m[3])
		}
		num, _ := strconv.Atoi(m[2])
		den, _ := strconv.Atoi(m[3])
		if d := terminatingDecimal(num, den); d != "" {
			add("decimal", m[1]+d)
		}
		add("scaled", fmt.Sprintf(`%s\frac{%d}{%d}`, m[1], 2*num, 2*den))
	}
	if intRe.MatchString(gold) {
		add("point-zero", gold+".0")
		add("x-equals", "x = "+gold)
		add("units", gold+`\text{ units}`)
		n, _ := strconv.Atoi(strings.TrimPrefix(gold, "-"))
		if n >= 1000 {
			add("thousands", withThousands(gold))
		}
	}
	if decimalRe.MatchString(gold) {
		add("trailing-zero", gold+"0")
		if strings.HasPrefix(gold, ".") {
			add("leading-zero", "0"+gold)
		}
	}
	if strings.Contains(gold, `^\circ`) {
		add("no-degree", strings.ReplaceAll(gold, `^\circ`, ""))
		add("degree-braces", strings.ReplaceAll(gold, `^\circ`, `^{\circ}`))
	}
	if strings.Contains(gold, `\left`) {
		add("no-left-right", strings.NewReplacer(`\left`, "", `\right`, "").Replace(gold))
	} else if isTupleLike(gold) {
		add("left-right", `\left`+gold[:1]+gold[1:len(gold)-1]+`\right`+gold[len(gold)-1:])
	}
	if m := textWordRe.FindStringSubmatch(gold); m != nil {
		add("unwrapped-text", m[1])
		add("lowercase-text", strings.ToLower(m[1]))
	}
	if m := choiceRe.FindStringSubmatch(gold); m != nil {
		add("bare-choice", m[1])
		add("paren-choice", "("+m[1]+")")
	}
	if parts := splitTop(strings.ReplaceAll(gold, " ", ""), ","); len(parts) > 1 && !thousandsGold.MatchString(gold) && !isTupleLike(gold) && !strings.HasPrefix(gold, `\{`) {
		rev := make([]string, len(parts))
		for i := range parts {
			rev[len(parts)-1-i] = parts[i]
		}
		add("reordered-list", strings.Join(rev, ", "))
	}
	return out
}

// nearMisses returns forms of gold that differ from it as an answer.
func nearMisses(gold string) []pair {
	var out []pair
	add := func(rule, cand string) {
		if cand != gold {
			out = append(out, pair{gold, cand, rule})
		}
	}
	// Change one digit: the last one, and the first one.
	if locs := digitRe.FindAllStringIndex(unitExponent.ReplaceAllString(gold, "$1  "), -1); len(locs) > 0 {
		for _, loc := range [][]int{locs[len(locs)-1], locs[0]} {
			d := gold[loc[0]]
			nd := byte('0' + (d-'0'+1)%10)
			cand := gold[:loc[0]] + string(nd) + gold[loc[1]:]
			add("digit", cand)
		}
	}
	// Flip the sign of the answer or of its first element.
	if isTupleLike(gold) {
		parts := splitTop(gold[1:len(gold)-1], ",")
		if first := strings.TrimSpace(parts[0]); first != "0" && !strings.Contains(first, `\infty`) {
			parts[0] = negate(first)
			add("sign", gold[:1]+strings.Join(parts, ",")+gold[len(gold)-1:])
		}
	} else if n := Normalize(gold); n != "0" && !strings.Contains(gold, `\infty`) && !strings.Contains(gold, `\text`) && !strings.Contains(gold, ",") {
		add("sign", negate(gold))
	}
	if m := simpleFracRe.FindStringSubmatch(gold); m != nil && m[2] != m[3] {
		add("reciprocal", m[1]+`\frac{`+m[3]+`}{`+m[2]+`}`)
	}
	if decimalRe.MatchString(gold) {
		add("decimal-shift", strings.Replace(gold, ".", "", 1)+"0")
	}
	if parts := splitTop(gold, "+"); len(parts) > 1 && !strings.Contains(gold, ",") {
		add("dropped-term", strings.Join(parts[:len(parts)-1], "+"))
		add("plus-to-minus", strings.Replace(gold, "+", "-", 1))
	}
	if m := denomRe.FindStringSubmatchIndex(gold); m != nil {
		den, _ := strconv.Atoi(gold[m[4]:m[5]])
		add("denominator", gold[:m[4]]+strconv.Itoa(den+1)+gold[m[5]:])
	}
	if isTupleLike(gold) {
		swap := map[byte]string{'(': "[", '[': "(", ')': "]", ']': ")"}
		add("open-bracket", swap[gold[0]]+gold[1:])
		add("close-bracket", gold[:len(gold)-1]+swap[gold[len(gold)-1]])
		parts := splitTop(gold[1:len(gold)-1], ",")
		add("missing-element", gold[:1]+strings.Join(parts[:len(parts)-1], ",")+gold[len(gold)-1:])
	} else if parts := splitTop(gold, ","); len(parts) > 1 {
		add("missing-element", strings.Join(parts[:len(parts)-1], ","))
	}
	if strings.Contains(gold, `\sqrt`) {
		add("dropped-sqrt", strings.Replace(gold, `\sqrt`, "", 1))
	}
	if strings.Contains(gold, `\pi`) {
		add("dropped-pi", strings.Replace(gold, `\pi`, "", 1))
	}
	if m := textWordRe.FindStringSubmatch(gold); m != nil {
		w := []byte(m[1])
		w[len(w)-1] = 'a' + (w[len(w)-1]-'a'+1)%26
		add("text-typo", string(w))
	}
	if m := choiceRe.FindStringSubmatch(gold); m != nil {
		add("other-choice", `\text{(`+string('A'+(m[1][0]-'A'+1)%5)+`)}`)
	}
	return out
}

func negate(s string) string {
	if strings.HasPrefix(s, "-") {
		return s[1:]
	}
	if strings.ContainsAny(s, "+-") {
		return "-(" + s + ")"
	}
	return "-" + s
}

func isTupleLike(s string) bool {
	_, _, _, ok := tuple(Normalize(s))
	return ok && (s[0] == '(' || s[0] == '[') && (s[len(s)-1] == ')' || s[len(s)-1] == ']')
}

func terminatingDecimal(num, den int) string {
	if den == 0 {
		return ""
	}
	for _, p := range []int{1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 40, 50, 64, 80, 100, 125, 200, 250, 500, 1000} {
		if p%den == 0 {
			scaled := num * (p / den)
			s := strconv.FormatFloat(float64(scaled)/float64(p), 'f', -1, 64)
			return s
		}
	}
	return ""
}

func withThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// TestEquivalentAdversarialMATH500 builds, for every MATH-500 gold answer,
// rewrites that must be accepted and near misses that must be rejected,
// and requires ≥95% acceptance and ≥99% rejection.
func TestEquivalentAdversarialMATH500(t *testing.T) {
	t.Parallel()
	golds := math500Answers(t)
	var equal, near []pair
	for _, g := range golds {
		equal = append(equal, equalRewrites(g)...)
		near = append(near, nearMisses(g)...)
	}
	accepted, rejected := 0, 0
	var missedEq, missedNear []pair
	for _, p := range equal {
		if Equivalent(p.gold, p.cand) {
			accepted++
		} else {
			missedEq = append(missedEq, p)
		}
	}
	for _, p := range near {
		if !Equivalent(p.gold, p.cand) {
			rejected++
		} else {
			missedNear = append(missedNear, p)
		}
	}
	acc := float64(accepted) / float64(len(equal))
	rej := float64(rejected) / float64(len(near))
	t.Logf("equal forms accepted: %d/%d (%.2f%%); near misses rejected: %d/%d (%.2f%%)",
		accepted, len(equal), 100*acc, rejected, len(near), 100*rej)
	for _, p := range missedEq {
		t.Logf("rejected equal form [%s]: %q vs %q", p.rule, p.gold, p.cand)
	}
	for _, p := range missedNear {
		t.Logf("accepted near miss [%s]: %q vs %q", p.rule, p.gold, p.cand)
	}
	if len(equal) < 1000 || len(near) < 1000 {
		t.Fatalf("generator too small: %d equal, %d near", len(equal), len(near))
	}
	if acc < 0.95 {
		t.Errorf("accepted %.2f%% of equal forms, want ≥ 95%%", 100*acc)
	}
	if rej < 0.99 {
		t.Errorf("rejected %.2f%% of near misses, want ≥ 99%%", 100*rej)
	}
}
