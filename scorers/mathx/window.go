package mathx

import "unicode/utf8"

// MaxExamined bounds the bytes of a response that extraction reads, so
// that scoring one response takes bounded time whatever a model (or a
// replayed predictions file) produced. Rules that take the first match
// (numeric Strict's "####" and cues, like lm-eval's default group_select 0)
// read the first MaxExamined bytes of the answer part; rules that take the
// last box, cue or number (Flexible, Strict's cue under StrictLastCue,
// MathStrict, MathFlexible, like lm-eval's group_select -1 and
// Minerva's last_boxed_only_string) read the last MaxExamined bytes of the
// answer part, and of the reasoning when they fall back to it. The
// reasoning section itself is found on the whole response (a search for
// "</think>", linear and fast).
//
// 256 KiB is far beyond a real answer: the math tasks ask for 768 (GSM8K,
// MGSM) or 2,048 (MATH-500) tokens, and even a 32,768-token thinking budget
// is about 130 KB of text at 4 bytes a token. A response within the bound
// is read whole, so the cap cannot change its verdict. Only a longer
// answer part — a degenerate loop — can score differently: its strict
// answer must start within the first 256 KiB and its flexible answer must
// lie in the last 256 KiB (a box that opens before that window, or a
// response whose last 256 KiB holds no number, counts as not found there).
const MaxExamined = 256 << 10

// head returns at most the first MaxExamined bytes of s, cut at a rune
// boundary.
func head(s string) string {
	if len(s) <= MaxExamined {
		return s
	}
	n := MaxExamined
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// tail returns at most the last MaxExamined bytes of s, starting at a rune
// boundary.
func tail(s string) string {
	if len(s) <= MaxExamined {
		return s
	}
	i := len(s) - MaxExamined
	for i < len(s) && !utf8.RuneStart(s[i]) {
		i++
	}
	return s[i:]
}
