package bfcl

import (
	"fmt"
	"math/big"
	"strings"
)

// Bounds. BFCL's resolve_ast_by_type evaluates a BinOp with
// eval(ast.unparse(value)) (model_handler/utils.py:287 at 4a64db34; the
// same line of bfcl_eval/model_handler/utils.py at 6ea57973), so an answer
// such as f(base='a'*10**10) makes Python build the value: on a machine
// with the memory, the call decodes and then fails the checker (no
// possible answer is that large); on one without, decoding raises
// MemoryError. pocketeval follows the first (the outcome does not depend
// on the machine, and an answer cannot earn an irrelevance point by
// exhausting memory): the values an answer's expressions build may hold
// MaxBuilt items and characters in all; a value past that is not built
// but recorded as Oversized, the decoding still counts as a call, and the
// checker's verdict is value_error:too_large.
const MaxBuilt = 1 << 22

// Depths past which Python (3.11, BFCL's) fails to decode, measured with
// BFCL's own ast_parse: ast.parse refuses an expression nested more than
// about 2,986 levels (RecursionError during ast construction), and
// ast.unparse, which resolve_ast_by_type calls on a BinOp, fails past
// about 329 levels (RecursionError); json.loads fails past about 990
// nested arrays or objects.
const (
	maxASTDepth     = 2986
	maxUnparseDepth = 329
	maxJSONDepth    = 990
)

// MaxAnswer bounds the answers pocketeval decodes: 256 KiB of text (or of
// FC names and arguments), sixteen times the longest of the 118,998
// results BFCL published for its August 2024 leaderboard (16 KB). A longer
// answer is not decoded and fails in every category (an answer cannot
// earn an irrelevance point by being too long to read).
const MaxAnswer = 256 << 10

// answerSize is the length of a recorded result's text, names and
// arguments, counted no further than MaxAnswer+1.
func answerSize(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []any:
		n := 0
		for _, it := range x {
			if n > MaxAnswer {
				break
			}
			n += answerSize(it)
		}
		return n
	case *Dict:
		return answerSize(x.Keys()) + answerSize(x.Values())
	}
	return 0
}

// Oversized is a value Python would build that pocketeval does not: its
// Python type and its size in items or characters.
type Oversized struct {
	Type string
	Size int64
}

// TooLargeError reports that an answer decoded to values holding more
// than MaxBuilt items and characters.
type TooLargeError struct{ Size int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the answer's expressions build more than %d items or characters (Python builds them; no possible answer is that large)", MaxBuilt)
}

// budget counts what one answer's expressions build.
type budget struct {
	used int64
	over int64 // the size of the first value not built, or 0
}

// weigh counts the items and characters of v, stopping past limit.
func weigh(v any, limit int64) int64 {
	switch x := v.(type) {
	case string:
		return int64(len(x))
	case Bytes:
		return int64(len(x))
	case Oversized:
		return x.Size
	case *big.Int:
		return int64(x.BitLen())*30103/100000 + 1 // its decimal digits
	case []any:
		return weighItems(x, limit)
	case Tuple:
		return weighItems(x, limit)
	case *Dict:
		return weighItems(x.Keys(), limit) + weighItems(x.Values(), limit)
	}
	return 1
}

func weighItems(items []any, limit int64) int64 {
	n := int64(len(items))
	for _, it := range items {
		if n > limit {
			break
		}
		n += weigh(it, limit)
	}
	return n
}

// mulSize is a*b, saturated past MaxBuilt.
func mulSize(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > (MaxBuilt+1)/b+1 {
		return MaxBuilt + 1
	}
	return min(a*b, MaxBuilt+1) // both are small here
}

// sized decides, before a sequence operation builds its value, whether it
// fits the budget: ok reports that v (an Oversized) is the result.
func (bud *budget) sized(op string, l, r any) (v any, ok bool) {
	lo, lOver := l.(Oversized)
	ro, rOver := r.(Oversized)
	typ, size := "", int64(-1)
	switch op {
	case "+":
		if pyType(l) == pyType(r) && isSeqOrStr(l) {
			typ = pyType(l)
			size = weigh(l, MaxBuilt) + weigh(r, MaxBuilt)
		}
	case "*":
		// int * sequence comes here swapped (binop)
		if k, isInt := intOf(r); isInt && isSeqOrStr(l) {
			typ = pyType(l)
			size = mulSize(weigh(l, MaxBuilt), k)
		}
	case "%":
		if pyType(l) == "str" && (lOver || rOver) {
			// Python formats: the result holds the oversized value
			typ, size = "str", max(lo.Size, ro.Size)
		}
	}
	if size < 0 {
		return nil, false
	}
	if size == 0 {
		switch typ {
		case "str":
			return "", true
		case "tuple":
			return Tuple{}, true
		case "list":
			return []any{}, true
		}
	}
	if lOver || rOver || bud.used+size > MaxBuilt {
		if bud.over == 0 {
			bud.over = size
		}
		return Oversized{Type: typ, Size: size}, true
	}
	bud.used += size
	return nil, false
}

func isSeqOrStr(v any) bool {
	switch x := v.(type) {
	case string, Bytes, []any, Tuple:
		return true
	case Oversized:
		return x.Type == "str" || x.Type == "bytes" || x.Type == "list" || x.Type == "tuple"
	}
	return false
}

// capText cuts s to at most n bytes (at a rune boundary), saying how much
// was cut.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (%d more bytes)", len(s)-cut)
}

// CapText cuts s to at most n bytes for recording.
func CapText(s string, n int) string { return capText(s, n) }

var _ = strings.Repeat

// astDepth is the depth of Python's AST for n (a keyword argument is a
// node of its own), counted no further than limit+1.
func astDepth(n pnode, limit int) int {
	if limit < 0 {
		return 1
	}
	deepest := func(ns ...pnode) int {
		d := 0
		for _, c := range ns {
			if c == nil {
				continue
			}
			d = max(d, astDepth(c, limit-1))
			if d > limit {
				break
			}
		}
		return d
	}
	var d int
	switch x := n.(type) {
	case *pAttr:
		d = deepest(x.value)
	case *pCall:
		d = deepest(x.fn)
		d = max(d, deepest(x.args...))
		for _, k := range x.kw {
			if d > limit {
				break
			}
			d = max(d, 1+astDepth(k.v, limit-2))
		}
	case *pList:
		d = deepest(x.elts...)
	case *pTuple:
		d = deepest(x.elts...)
	case *pSet:
		d = deepest(x.elts...)
	case *pDict:
		d = max(deepest(x.keys...), deepest(x.vals...))
	case *pUnary:
		d = deepest(x.x)
	case *pBin:
		d = deepest(x.l, x.r)
	case *pSubscript:
		d = deepest(x.value, x.slice)
	case *pSlice:
		d = deepest(x.lo, x.hi, x.step)
	case *pStarred:
		d = deepest(x.x)
	}
	return 1 + d
}

var errUnparseDepth = fmt.Errorf("maximum recursion depth exceeded while calling a Python object")

var errASTDepth = fmt.Errorf("maximum recursion depth exceeded during ast construction")

// checkDepth refuses what Python's ast.parse cannot build.
func checkDepth(n pnode) error {
	if astDepth(n, maxASTDepth) > maxASTDepth {
		return errASTDepth
	}
	return nil
}

// parseBounded is ast.parse(s, mode="eval") with Python's depth limit.
func parseBounded(s string) (pnode, error) {
	n, err := pyParse(s)
	if err != nil {
		return nil, err
	}
	return n, checkDepth(n)
}

// err is the decoding's outcome: a TooLargeError if a value was not built.
func (bud *budget) err() error {
	if bud.over == 0 {
		return nil
	}
	return &TooLargeError{Size: bud.over}
}
