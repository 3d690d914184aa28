// Package pyval is Python's value vocabulary for the three places that
// read Python text: chat templates (internal/jinja), BFCL answers
// (scorers/bfcl) and task files (evals/taskfile/internal/pyvalue). Each
// keeps its own grammar (Jinja's tokens, which forms are allowed); the
// meaning of a literal, and Python's own tokens for the reader that parses
// Python expressions (BFCL's), are decided here, once, as CPython decides
// them, so the three agree on the same text by construction.
//
// Where each job lives:
//
//   - literal.go: string literal bodies (Unquote: every escape of Python's
//     str and bytes literals, \N{name} included, raw literals, triple
//     quotes where the grammar has them) and number literals (Number:
//     Python's tokenizer, with underscores, 0x/0o/0b, floats, imaginary
//     numbers, and integers of any size as *big.Int past 64 bits).
//   - token.go: Python's tokenizer for one expression (Tokenize: names,
//     keywords, operators, string and number literals through Unquote
//     and Number, implicit line joining), under BFCL's expression parser.
//   - names.go: the Unicode character names \N{…} looks up (the Unicode
//     Character Database of golang.org/x/text/unicode/runenames, plus the
//     algorithmic CJK and Hangul names).
//   - dict.go: the value types Python has and Go does not: Tuple, Bytes
//     and Dict (insertion-ordered, keys equal as Python's are: True, 1
//     and 1.0 one key), the one dict type of the engine and the decoder.
//   - truth.go: bool(), type(v).__name__ and the items of a list or
//     tuple, for the values above (Truth, TypeName, Seq).
//   - repr.go: repr() of floats and strings as CPython prints them.
//   - arith.go: Python's int (64-bit, overflow an error), float and
//     complex arithmetic (IntOp, FloatOp, ComplexOp).
//   - json.go: JSON into ordered values as json.loads builds them
//     (DecodeJSON; each caller names its ordered dict and what an integer
//     past 64 bits becomes), and the NaN/Infinity constants
//     (JSONConstants).
//
// The package is a leaf: it imports nothing of pocketeval's.
package pyval
