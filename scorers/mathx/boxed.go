package mathx

import "strings"

// boxCommands are the LaTeX commands whose argument is a boxed answer.
var boxCommands = []string{`\boxed`, `\fbox`}

// LastBoxed returns the argument of the last \boxed{…} or \fbox{…} in s,
// honouring nested braces (\boxed{\frac{1}{2}}). The brace-less form
// "\boxed 5" yields the token up to the next space or dollar sign. It
// reports false when s has no complete box.
func LastBoxed(s string) (string, bool) {
	all := AllBoxed(s)
	if len(all) == 0 {
		return "", false
	}
	return all[len(all)-1], true
}

// AllBoxed returns the arguments of every complete \boxed / \fbox in s, in
// order of appearance. An unterminated box (a response cut off inside it)
// is skipped.
func AllBoxed(s string) []string {
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
		// \boxed must not be a prefix of a longer command name.
		if rest != "" && isLetter(rest[0]) {
			i = at + len(cmd)
			continue
		}
		arg, n, ok := boxArgument(rest)
		if ok {
			out = append(out, arg)
		}
		i = at + len(cmd) + n
	}
	return out
}

// boxArgument reads the argument following a box command and returns it,
// the number of bytes consumed, and whether it was complete.
func boxArgument(rest string) (string, int, bool) {
	trimmed := strings.TrimLeft(rest, " \t")
	skip := len(rest) - len(trimmed)
	if trimmed == "" {
		return "", skip, false
	}
	if trimmed[0] != '{' {
		if skip == 0 {
			return "", 0, false
		}
		end := strings.IndexAny(trimmed, " \t\n$")
		if end < 0 {
			end = len(trimmed)
		}
		tok := strings.TrimRight(trimmed[:end], ".,;")
		return tok, skip + end, tok != ""
	}
	body, ok := braced(trimmed)
	if !ok {
		return "", skip + 1, false
	}
	return strings.TrimSpace(body), skip + len(body) + 2, true
}

// braced returns the contents of the balanced group that s starts with
// ('{' at s[0]); escaped braces \{ and \} do not count.
func braced(s string) (string, bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++ // skip the escaped character
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return s[1:i], true
			}
		}
	}
	return "", false
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
