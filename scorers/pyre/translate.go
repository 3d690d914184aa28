package pyre

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/scorers/textstats"
)

// translator rewrites a Python str pattern into the syntax of regexp2's
// default (.NET) mode with the same meaning. It parses the pattern once,
// left to right, and rewrites only what the two dialects spell or mean
// differently; everything else is copied.
type translator struct {
	src   string
	i     int
	out   strings.Builder
	ascii bool // re.ASCII: \w, \d, \s, \b are ASCII-only
	// groups counts capturing groups, for backreference validation.
	groups int
	names  map[string]bool
}

func (t *translator) errorf(format string, args ...any) error {
	return &SyntaxError{Pattern: t.src, Pos: t.i, Msg: fmt.Sprintf(format, args...)}
}

// SyntaxError is a pattern Python's re would reject, or one this package
// cannot translate faithfully.
type SyntaxError struct {
	Pattern string
	Pos     int // byte offset in Pattern
	Msg     string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("regular expression %q at position %d: %s", e.Pattern, e.Pos, e.Msg)
}

// Classes with Python 3.11's Unicode meaning (str patterns). `\w` is
// letters, numbers and the underscore (textstats.IsWordRune, which knows
// the Unicode 14.0 tables of Python 3.11); `\d` decimal digits; `\s`
// str.isspace(). They are built once from the predicates, as class bodies
// without the brackets.
// They are computed on first use (a scan of every code point).
var unicodeBodies = sync.OnceValue(func() [3]string {
	return [3]string{
		classBody(textstats.IsWordRune),
		classBody(func(r rune) bool {
			return unicode.Is(unicode.Nd, r) && (r < 0x80 || textstats.IsWordRune(r))
		}),
		classBody(textstats.IsSpace),
	}
})

const (
	asciiWord  = `0-9A-Z_a-z`
	asciiDigit = `0-9`
	asciiSpace = `\t\n\v\f\r `
)

// classBody lists the code points where in(r) holds as class ranges.
func classBody(in func(rune) bool) string {
	var b strings.Builder
	lo := rune(-1)
	flush := func(hi rune) {
		writeClassRune(&b, lo)
		if hi > lo {
			if hi > lo+1 {
				b.WriteByte('-')
			}
			writeClassRune(&b, hi)
		}
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		ok := (r < 0xd800 || r > 0xdfff) && in(r)
		switch {
		case ok && lo < 0:
			lo = r
		case !ok && lo >= 0:
			flush(r - 1)
			lo = -1
		}
	}
	if lo >= 0 {
		flush(unicode.MaxRune)
	}
	return b.String()
}

// writeClassRune writes r so that it stands for itself inside a class.
func writeClassRune(b *strings.Builder, r rune) {
	switch {
	case r < 0x20 || r == 0x7f:
		fmt.Fprintf(b, `\x%02X`, r)
	case r < 0x80 && strings.ContainsRune(`\]-[^`, r):
		b.WriteByte('\\')
		b.WriteRune(r)
	case r >= 0x80 && r <= 0xffff:
		fmt.Fprintf(b, `\u%04X`, r)
	default:
		b.WriteRune(r)
	}
}

// writeLiteral writes r so that it matches itself outside a class.
func writeLiteral(b *strings.Builder, r rune) {
	switch {
	case r < 0x20 || r == 0x7f:
		fmt.Fprintf(b, `\x%02X`, r)
	case r < 0x80 && strings.ContainsRune(`\^$.|?*+()[]{}# `, r):
		b.WriteByte('\\')
		b.WriteRune(r)
	default:
		b.WriteRune(r)
	}
}

func (t *translator) bodies() (word, digit, space string) {
	if t.ascii {
		return asciiWord, asciiDigit, asciiSpace
	}
	b := unicodeBodies()
	return b[0], b[1], b[2]
}

// translate runs the translator over the whole pattern.
func (t *translator) translate() (string, error) {
	for t.i < len(t.src) {
		if err := t.atom(); err != nil {
			return "", err
		}
	}
	return t.out.String(), nil
}

func (t *translator) next() rune {
	r, w := utf8.DecodeRuneInString(t.src[t.i:])
	t.i += w
	return r
}

func (t *translator) peek() rune {
	if t.i >= len(t.src) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(t.src[t.i:])
	return r
}

// atom translates one element outside a class.
func (t *translator) atom() error {
	start := t.i
	r := t.next()
	switch r {
	case '\\':
		return t.escape(false)
	case '[':
		return t.class()
	case '(':
		return t.group(start)
	case '{':
		// A brace that does not start a valid {m,n} quantifier is a
		// literal in Python; .NET agrees, but say so explicitly.
		if q, ok := quantifier(t.src[start:]); ok {
			t.out.WriteString(q)
			t.i = start + len(q)
			return nil
		}
		t.out.WriteString(`\{`)
	case '}':
		t.out.WriteString(`\}`)
	case '#', ' ':
		// Literal here (no verbose mode); escaped so that no .NET option
		// could read them otherwise.
		writeLiteral(&t.out, r)
	default:
		if r == utf8.RuneError && t.i-start == 1 {
			return t.errorf("invalid UTF-8")
		}
		t.out.WriteRune(r)
	}
	return nil
}

// quantifier returns the {m}, {m,}, {,n} or {m,n} at the start of s.
func quantifier(s string) (string, bool) {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return "", false
	}
	body := s[1:end]
	lo, hi, comma := strings.Cut(body, ",")
	digits := func(x string) bool {
		for _, c := range x {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	if !digits(lo) || !digits(hi) || (lo == "" && (!comma || hi == "")) {
		if lo == "" && comma && hi == "" {
			return "", false // "{,}" is a literal in Python
		}
		if !(lo == "" && comma && hi != "" && digits(hi)) {
			return "", false
		}
	}
	if lo == "" {
		// Python reads {,n} as {0,n}; .NET would read it literally.
		return "{0," + hi + "}", true
	}
	return s[:end+1], true
}

// group translates what follows an opening parenthesis.
func (t *translator) group(start int) error {
	if t.peek() != '?' {
		t.groups++
		t.out.WriteByte('(')
		return nil
	}
	t.i++ // '?'
	rest := t.src[t.i:]
	switch {
	case strings.HasPrefix(rest, "P<"):
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			return t.errorf("missing >, unterminated name")
		}
		name := rest[2:end]
		if !isIdent(name) {
			return t.errorf("bad character in group name %q", name)
		}
		if t.names[name] {
			return t.errorf("redefinition of group name %q", name)
		}
		t.names[name] = true
		t.groups++
		t.out.WriteString("(?<" + name + ">")
		t.i += end + 1
	case strings.HasPrefix(rest, "P="):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return t.errorf("missing ), unterminated name")
		}
		name := rest[2:end]
		if !t.names[name] {
			return t.errorf("unknown group name %q", name)
		}
		t.out.WriteString(`\k<` + name + ">")
		t.i += end + 1
	case strings.HasPrefix(rest, "#"):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return t.errorf("missing ), unterminated comment")
		}
		t.i += end + 1
	case strings.HasPrefix(rest, ":"), strings.HasPrefix(rest, "="), strings.HasPrefix(rest, "!"),
		strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, ">"):
		n := 1
		if rest[0] == '<' {
			n = 2
		}
		t.out.WriteString("(?" + rest[:n])
		t.i += n
	case strings.HasPrefix(rest, "("):
		// Conditional: (?(1)yes|no) or (?(name)yes|no).
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return t.errorf("missing ), unterminated name")
		}
		ref := rest[1:end]
		if n, err := strconv.Atoi(ref); err == nil {
			if n < 1 || n > t.groups {
				return t.errorf("invalid group reference %d", n)
			}
		} else if !t.names[ref] {
			return t.errorf("unknown group name %q", ref)
		}
		t.out.WriteString("(?(" + ref + ")")
		t.i += end + 1
	default:
		return t.flags(start)
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

// flags translates (?aimsx) at the start of the pattern and (?ims-ims:...)
// scoped groups.
func (t *translator) flags(start int) error {
	j := t.i
	for j < len(t.src) && strings.IndexByte("aiLmsux-", t.src[j]) >= 0 {
		j++
	}
	if j >= len(t.src) || (t.src[j] != ')' && t.src[j] != ':') {
		return t.errorf("unknown extension ?%s", t.src[t.i:min(j+1, len(t.src))])
	}
	on, off, _ := strings.Cut(t.src[t.i:j], "-")
	scoped := t.src[j] == ':'
	if !scoped {
		if off != "" || start != 0 && !t.leadingFlags(start) {
			return t.errorf("global flags not at the start of the expression")
		}
	}
	var keep strings.Builder
	for _, f := range on {
		switch f {
		case 'a':
			if scoped {
				return t.errorf("the ASCII flag in a scoped group is not supported")
			}
			t.ascii = true
		case 'L':
			return t.errorf("bad inline flags: cannot use 'L' flag with a str pattern")
		case 'u':
		case 'x':
			return t.errorf("verbose patterns (?x) are not supported")
		default:
			keep.WriteRune(f)
		}
	}
	for _, f := range off {
		if !strings.ContainsRune("ims", f) {
			return t.errorf("bad inline flags: cannot turn off flag %q", f)
		}
	}
	t.i = j + 1
	switch {
	case scoped && off != "":
		t.out.WriteString("(?" + keep.String() + "-" + off + ":")
	case scoped:
		t.out.WriteString("(?" + keep.String() + ":")
	case keep.Len() > 0:
		t.out.WriteString("(?" + keep.String() + ")")
	}
	return nil
}

// leadingFlags reports whether everything before start is global flags.
func (t *translator) leadingFlags(start int) bool {
	s := t.src[:start]
	for s != "" {
		if !strings.HasPrefix(s, "(?") {
			return false
		}
		end := strings.IndexByte(s, ')')
		if end < 0 {
			return false
		}
		for _, c := range s[2:end] {
			if !strings.ContainsRune("aiLmsux", c) {
				return false
			}
		}
		s = s[end+1:]
	}
	return true
}

// escape translates the escape after a backslash, outside or inside a
// class.
func (t *translator) escape(inClass bool) error {
	if t.i >= len(t.src) {
		return t.errorf("bad escape (end of pattern)")
	}
	r := t.next()
	word, digit, space := t.bodies()
	set := func(body string, negate bool) {
		switch {
		case inClass && negate:
			// Filled in by class(), which knows the other members.
			t.out.WriteString("\x00" + string(r))
		case inClass:
			t.out.WriteString(body)
		case negate:
			t.out.WriteString("[^" + body + "]")
		default:
			t.out.WriteString("[" + body + "]")
		}
	}
	switch r {
	case 'w':
		set(word, false)
	case 'W':
		set(word, true)
	case 'd':
		set(digit, false)
	case 'D':
		set(digit, true)
	case 's':
		set(space, false)
	case 'S':
		set(space, true)
	case 'b':
		if inClass {
			t.out.WriteString(`\x08`)
			return nil
		}
		w := "[" + word + "]"
		t.out.WriteString("(?:(?<=" + w + ")(?!" + w + ")|(?<!" + w + ")(?=" + w + "))")
	case 'B':
		if inClass {
			return t.errorf("bad escape \\B")
		}
		w := "[" + word + "]"
		t.out.WriteString("(?:(?<=" + w + ")(?=" + w + ")|(?<!" + w + ")(?!" + w + "))")
	case 'A':
		if inClass {
			return t.errorf("bad escape \\A")
		}
		t.out.WriteString(`\A`)
	case 'Z':
		if inClass {
			return t.errorf("bad escape \\Z")
		}
		// Python's \Z is the very end; .NET's \Z also allows a final \n.
		t.out.WriteString(`\z`)
	case 'a':
		t.lit(inClass, 0x07)
	case 'f':
		t.lit(inClass, '\f')
	case 'n':
		t.lit(inClass, '\n')
	case 'r':
		t.lit(inClass, '\r')
	case 't':
		t.lit(inClass, '\t')
	case 'v':
		t.lit(inClass, '\v')
	case 'x':
		return t.hexEscape(inClass, 2, "x")
	case 'u':
		return t.hexEscape(inClass, 4, "u")
	case 'U':
		return t.hexEscape(inClass, 8, "U")
	case 'N':
		return t.errorf("named Unicode escapes \\N{...} are not supported")
	case '0':
		// Octal: \0 plus up to two more octal digits.
		v := 0
		for k := 0; k < 2 && t.i < len(t.src) && t.src[t.i] >= '0' && t.src[t.i] <= '7'; k++ {
			v = v*8 + int(t.src[t.i]-'0')
			t.i++
		}
		t.lit(inClass, rune(v))
	case '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return t.numericEscape(inClass, r)
	default:
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return t.errorf("bad escape \\%c", r)
		}
		t.lit(inClass, r)
	}
	return nil
}

func (t *translator) lit(inClass bool, r rune) {
	if inClass {
		writeClassRune(&t.out, r)
	} else {
		writeLiteral(&t.out, r)
	}
}

func (t *translator) hexEscape(inClass bool, n int, name string) error {
	if t.i+n > len(t.src) {
		return t.errorf("incomplete escape \\%s", name)
	}
	v, err := strconv.ParseUint(t.src[t.i:t.i+n], 16, 32)
	if err != nil || strings.ContainsAny(t.src[t.i:t.i+n], "+-") {
		return t.errorf("incomplete escape \\%s%s", name, t.src[t.i:t.i+n])
	}
	if v > unicode.MaxRune {
		return t.errorf("bad escape \\%s%s", name, t.src[t.i:t.i+n])
	}
	t.i += n
	t.lit(inClass, rune(v))
	return nil
}

// numericEscape is a backreference (\1–\99) or, with three octal digits,
// an octal escape.
func (t *translator) numericEscape(inClass bool, first rune) error {
	digits := string(first)
	for len(digits) < 3 && t.i < len(t.src) && t.src[t.i] >= '0' && t.src[t.i] <= '9' {
		digits += t.src[t.i : t.i+1]
		t.i++
	}
	if len(digits) == 3 && strings.Trim(digits, "01234567") == "" {
		v, _ := strconv.ParseUint(digits, 8, 32)
		if v > 0o377 {
			return t.errorf("octal escape value \\%s outside of range 0-0o377", digits)
		}
		t.lit(inClass, rune(v))
		return nil
	}
	if len(digits) == 3 {
		// Python reads at most two digits of a group reference.
		t.i--
		digits = digits[:2]
	}
	if inClass {
		return t.errorf("bad escape \\%s", digits)
	}
	n, _ := strconv.Atoi(digits)
	if n > t.groups {
		return t.errorf("invalid group reference %d", n)
	}
	// (?:) keeps a following digit from joining the reference.
	t.out.WriteString(`\` + digits + `(?:)`)
	return nil
}

// class translates a character class after its '['. Members \W, \D and
// \S, which .NET cannot put inside a class with others, turn the class
// into an alternation.
func (t *translator) class() error {
	negate := false
	if t.peek() == '^' {
		negate = true
		t.i++
	}
	outer := t.out
	t.out = strings.Builder{}
	first := true
	closed := false
	for t.i < len(t.src) {
		r := t.next()
		switch {
		case r == ']' && !first:
			closed = true
		case r == '\\':
			if err := t.escape(true); err != nil {
				return err
			}
		case r == '[' || r == '^' && !first:
			// Python warns about possible set operations but reads a
			// literal; .NET would read "-[" as subtraction.
			writeClassRune(&t.out, r)
		case r == '-':
			t.out.WriteByte('-')
		default:
			if r == ']' {
				writeClassRune(&t.out, r)
			} else {
				writeClassRune(&t.out, r)
			}
		}
		first = false
		if closed {
			break
		}
	}
	if !closed {
		return t.errorf("unterminated character set")
	}
	body := t.out.String()
	t.out = outer
	// A '-' at either end is literal in both dialects; escape it so that
	// a range never forms across a translated member.
	body = fixDashes(body)
	// Split off negated members (marked "\x00W").
	var negs []string
	var pos strings.Builder
	word, digit, space := t.bodies()
	for k := 0; k < len(body); k++ {
		if body[k] == 0 && k+1 < len(body) {
			switch body[k+1] {
			case 'W':
				negs = append(negs, word)
			case 'D':
				negs = append(negs, digit)
			case 'S':
				negs = append(negs, space)
			}
			k++
			continue
		}
		pos.WriteByte(body[k])
	}
	var alts []string
	if pos.Len() > 0 {
		alts = append(alts, "["+pos.String()+"]")
	}
	for _, n := range negs {
		alts = append(alts, "[^"+n+"]")
	}
	switch {
	case len(alts) == 0:
		// Python rejects an empty class at parse time ("[]" is
		// unterminated); with only ']' handled above this cannot happen.
		return t.errorf("empty character set")
	case !negate && len(alts) == 1:
		t.out.WriteString(alts[0])
	case !negate:
		t.out.WriteString("(?:" + strings.Join(alts, "|") + ")")
	case len(negs) == 0:
		t.out.WriteString("[^" + pos.String() + "]")
	default:
		t.out.WriteString("(?:(?!" + strings.Join(alts, "|") + `)[\s\S])`)
	}
	return nil
}

// fixDashes escapes a '-' that Python reads literally: first, last, or
// right after a range. Ranges between single characters stay.
func fixDashes(body string) string {
	if strings.HasPrefix(body, "-") {
		body = `\-` + body[1:]
	}
	if strings.HasSuffix(body, "-") && !strings.HasSuffix(body, `\-`) {
		body = body[:len(body)-1] + `\-`
	}
	return body
}
