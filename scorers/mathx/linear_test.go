package mathx

import (
	"reflect"
	"strings"
	"testing"
)

// The reference implementations below are the straightforward forms that
// lastNumber and AllBoxed replaced (each number parsed, each box's braces
// matched on their own). They are quadratic or slow on long responses, and
// are kept here as the specification the fast forms must agree with.

func lastNumberReference(s string) (Number, bool) {
	var last *Number
	for _, loc := range numberRe.FindAllStringIndex(s, -1) {
		tok := s[loc[0]:loc[1]]
		if strings.HasPrefix(tok, "-") && loc[0] > 0 && isWordByte(s[loc[0]-1]) {
			tok = tok[1:]
		}
		if n, ok := parseNumberToken(tok); ok {
			last = &n
		}
	}
	if last == nil {
		return Number{}, false
	}
	return *last, true
}

func allBoxedReference(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		at, cmd := -1, ""
		for _, c := range boxCommands {
			if j := strings.Index(s[i:], c); j >= 0 && (at < 0 || i+j < at) {
				at, cmd = i+j, c
			}
		}
		if at < 0 {
			break
		}
		rest := s[at+len(cmd):]
		if rest != "" && isLetter(rest[0]) {
			i = at + len(cmd)
			continue
		}
		trimmed := strings.TrimLeft(rest, " \t")
		skip := len(rest) - len(trimmed)
		var n int
		switch {
		case trimmed == "" || trimmed[0] != '{':
			arg, m, ok := bracelessArgument(rest)
			if ok {
				out = append(out, arg)
			}
			n = m
		default:
			if body, ok := braced(trimmed); ok {
				out = append(out, strings.TrimSpace(body))
				n = skip + len(body) + 2
			} else {
				n = skip + 1
			}
		}
		i = at + len(cmd) + n
	}
	return out
}

var linearSeeds = []string{
	"", "5", "-5", "a-5", "3-4", "$ 5", "$\t5", "1,000,000.5/2", "5/0 then 7/0", "x 5/0",
	"1 000", ".5", "-$.5", "12.34.56", "1,00", "18.", "cost: $1,200 each, 3-4 days",
	`\boxed{18}`, `\boxed{\frac{1}{2}}`, `\boxed 5$`, `\boxed{`, `\boxed{ \boxed{5}`,
	`\boxed{a\}b}`, `\\boxed{x}`, `\boxedfoo{1}`, `\fbox{2} \boxed{3}`, `\boxed{\boxed{1}}`,
	"\\boxed\t{4}", `\boxed {}}{`, `}}\boxed{1}`, `\boxed{{}`, `\boxed\{1}`, `\fbox`, `\boxed`,
}

func checkLinearForms(t *testing.T, s string) {
	t.Helper()
	gn, gok := lastNumber(s)
	wn, wok := lastNumberReference(s)
	if gok != wok || gok && gn.String() != wn.String() {
		t.Errorf("lastNumber(%q) = %q %v, reference %q %v", s, gn.String(), gok, wn.String(), wok)
	}
	if got, want := AllBoxed(s), allBoxedReference(s); !reflect.DeepEqual(got, want) {
		t.Errorf("AllBoxed(%q) = %q, reference %q", s, got, want)
	}
}

func TestLinearFormsMatchReference(t *testing.T) {
	t.Parallel()
	for _, s := range linearSeeds {
		checkLinearForms(t, s)
	}
	// Every pair of seeds, so that runs, boxes and braces meet.
	for _, a := range linearSeeds {
		for _, b := range linearSeeds {
			checkLinearForms(t, a+b)
			checkLinearForms(t, a+" x "+b)
		}
	}
}

// FuzzLinearForms: the linear lastNumber and AllBoxed agree with the
// reference forms on any input.
func FuzzLinearForms(f *testing.F) {
	for _, s := range linearSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return // the references are quadratic
		}
		checkLinearForms(t, s)
	})
}

// TestLongResponseBounded scores 16 MB responses (a model looping on its
// reasoning, on boxes, on a box it never closes, on answer cues). Each must
// give the answer at its end, and give exactly what the examined window
// gives: extraction reads at most MaxExamined bytes of the answer part, so
// its time is bounded whatever the response's length. Before the window a
// 16 MB response took about a minute, and one of unclosed boxes hours; the
// test's timeout is the guard. Issue 21.
func TestLongResponseBounded(t *testing.T) {
	t.Parallel()
	const size = 16 << 20
	ex := NewNumericExtractor("The answer is")
	for _, kind := range []string{"prose", "boxes", "openbox", "cues", "zh"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			resp := longResponse(kind, size)
			same := func(a, b Extraction) bool {
				return a.Answer == b.Answer && a.Method == b.Method && a.OK == b.OK && a.FromThinking == b.FromThinking
			}
			if f := ex.Flexible(resp); f.Answer != "18" || !same(f, ex.Flexible(tail(resp))) {
				t.Errorf("Flexible = %+v, want 18 as from the last %d bytes", f, MaxExamined)
			}
			if s, w := ex.Strict(resp), ex.Strict(head(resp)); !same(s, w) {
				t.Errorf("Strict = %+v, want %+v as from the first %d bytes", s, w, MaxExamined)
			}
			if a := MathStrict(resp); a.Text != "18" {
				t.Errorf("MathStrict = %+v, want 18", a)
			}
			if a := MathFlexible(resp); a.Text != "18" {
				t.Errorf("MathFlexible = %+v, want 18", a)
			}
			// With a reasoning section, the answer part is what is capped.
			think := "<think>" + resp + "</think>\nThe answer is 7."
			if f := ex.Flexible(think); f.Answer != "7" || f.FromThinking {
				t.Errorf("after long thinking: Flexible = %+v, want 7", f)
			}
			if s := ex.Strict(think); s.Answer != "7" {
				t.Errorf("after long thinking: Strict = %+v, want 7", s)
			}
		})
	}
}

// TestExaminedWindow pins what the window means: a response up to
// MaxExamined bytes is read whole (first cue for strict, last box for
// flexible, however far apart); beyond it, strict reads the beginning and
// flexible the end.
func TestExaminedWindow(t *testing.T) {
	t.Parallel()
	ex := NewNumericExtractor("The answer is")
	check := func(resp, strict, flex string) {
		t.Helper()
		if s := ex.Strict(resp); s.Answer != strict {
			t.Errorf("len %d: Strict = %q, want %q", len(resp), s.Answer, strict)
		}
		if f := ex.Flexible(resp); f.Answer != flex {
			t.Errorf("len %d: Flexible = %q, want %q", len(resp), f.Answer, flex)
		}
	}
	filler := func(n int) string { return strings.Repeat("x", n) }
	first, last := "The answer is 5. ", ` so \boxed{9}`
	fits := first + filler(MaxExamined-len(first)-len(last)) + last
	check(fits, "5", "9")
	check("x"+fits, "5", "9") // the cue at the start, the number at the end: both windows hold one
	late := filler(MaxExamined) + first + filler(10) + last
	check(late, "", "9") // strict's first cue lies past the first MaxExamined bytes
	early := first + filler(MaxExamined) + " no number here"
	check(early, "5", "") // flexible's last cue lies before the last MaxExamined bytes
	// The cut never splits a rune.
	zh := strings.Repeat("九", MaxExamined/3+1) + "答案是 8"
	if h, tl := head(zh), tail(zh); !strings.HasPrefix(zh, h) || !strings.HasSuffix(zh, tl) || len(h) > MaxExamined || len(tl) > MaxExamined ||
		!strings.HasPrefix(tl, "九") || !strings.HasSuffix(h, "九") {
		t.Errorf("head/tail split a rune: head ends %q, tail starts %q", h[len(h)-3:], tl[:3])
	}
}
