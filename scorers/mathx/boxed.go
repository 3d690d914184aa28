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

// boxCmd is one box command found in the text: the command at at, its
// end, and the position of the '{' opening its argument (-1 when the
// argument is not braced).
type boxCmd struct {
	at, end, open int
}

// AllBoxed returns the arguments of every complete \boxed / \fbox in s, in
// order of appearance. An unterminated box (a response cut off inside it)
// is skipped; boxes inside a complete box's argument are part of it.
//
// It runs in time linear in len(s): the commands are found in one pass,
// the braces of every braced argument are matched in a second, and the
// arguments are then read in order. (Matching each argument's braces on
// its own made a response of many unclosed "\boxed{" quadratic.)
func AllBoxed(s string) []string {
	var cmds []boxCmd
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 {
			break
		}
		at := i + j
		i = at + 1
		for _, c := range boxCommands {
			if !strings.HasPrefix(s[at:], c) {
				continue
			}
			end := at + len(c)
			// \boxed must not be a prefix of a longer command name.
			if end < len(s) && isLetter(s[end]) {
				break
			}
			open := end
			for open < len(s) && (s[open] == ' ' || s[open] == '\t') {
				open++
			}
			if open >= len(s) || s[open] != '{' {
				open = -1
			}
			cmds = append(cmds, boxCmd{at: at, end: end, open: open})
			i = end
			break
		}
	}
	if len(cmds) == 0 {
		return nil
	}
	closes := matchBraces(s, cmds)
	var out []string
	next := 0 // text before next is consumed
	for k, c := range cmds {
		if c.at < next {
			continue
		}
		if c.open < 0 {
			arg, n, ok := bracelessArgument(s[c.end:])
			if ok {
				out = append(out, arg)
			}
			next = c.end + n
			continue
		}
		if closes[k] < 0 {
			// Unterminated: skip the command and its '{'; a complete box
			// inside it is still found.
			next = c.open + 1
			continue
		}
		out = append(out, strings.TrimSpace(s[c.open+1:closes[k]]))
		next = closes[k] + 1
	}
	return out
}

// matchBraces returns, for each command with a braced argument, the index
// of the '}' that closes it (-1 when none does, and for commands without a
// braced argument). A '}' closes the innermost open '{'; a backslash
// escapes the character after it (\{ and \} do not count), which is how the
// argument reads when scanned from its own '{' — that '{' follows a
// command name or a blank, so it is never the escaped character.
//
// Only the opening braces of arguments are remembered, with the nesting
// depth they opened at, so memory is proportional to the number of boxes.
func matchBraces(s string, cmds []boxCmd) []int {
	closes := make([]int, len(cmds))
	type pending struct{ cmd, depth int }
	var stack []pending
	k := 0 // next command whose '{' is still ahead
	skipTo := func() {
		for k < len(cmds) && cmds[k].open < 0 {
			closes[k] = -1
			k++
		}
	}
	skipTo()
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
			if k < len(cmds) && cmds[k].open == i {
				stack = append(stack, pending{k, depth})
				k++
				skipTo()
			}
		case '}':
			if depth == 0 {
				continue
			}
			if n := len(stack); n > 0 && stack[n-1].depth == depth {
				closes[stack[n-1].cmd] = i
				stack = stack[:n-1]
			}
			depth--
		}
	}
	for _, p := range stack {
		closes[p.cmd] = -1
	}
	return closes
}

// bracelessArgument reads the argument of "\boxed 5": the token after at
// least one blank, up to the next blank or dollar sign, without trailing
// sentence punctuation. It returns the argument, the bytes consumed, and
// whether there was one.
func bracelessArgument(rest string) (string, int, bool) {
	trimmed := strings.TrimLeft(rest, " \t")
	skip := len(rest) - len(trimmed)
	if trimmed == "" || skip == 0 {
		return "", skip, false
	}
	end := strings.IndexAny(trimmed, " \t\n$")
	if end < 0 {
		end = len(trimmed)
	}
	tok := strings.TrimRight(trimmed[:end], ".,;")
	return tok, skip + end, tok != ""
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
