package replay

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"unsafe"
)

// A Runtime keeps one entry per prediction line: where the line lies in
// the file and what lookups, checks and messages need, in about 50 bytes
// and one shared block of keys, instead of a Prediction (about 200 bytes
// and a string of its own) per line. A line's Prediction is built when it
// is asked for. The few fields most lines do not have — a prompt, a
// response held in memory, tool calls, log-likelihoods — are kept, with
// the whole line's Prediction, in extras.

// Entry flags.
const (
	flagLazy  uint8 = 1 << iota // the response is read again from the file when served
	flagUsed                    // a Generate or LogLikelihood call served it (guarded by mu)
	flagExtra                   // extras holds the line's Prediction
)

// entry is one prediction line.
type entry struct {
	off int64 // the line's offset in the file (lazy lines)
	// key is the line's task and id (packKey), in the Runtime's key
	// blocks.
	key    string
	repeat int
	size   int32 // the line's length in bytes (at most MaxLineBytes)
	line   int32 // 1-based line in the file
	form   uint8 // index into forms
	finish uint8 // index into Runtime.finishes
	flags  uint8
}

// forms are the entry.form codes.
var forms = [...]Form{FormPocketeval, FormIFEval, FormHumanEval, FormBFCL}

func formCode(f Form) uint8 {
	for i, g := range forms {
		if g == f {
			return uint8(i)
		}
	}
	panic("replay: unknown form " + string(f))
}

// maxFinishes bounds the distinct finish reasons entries name by index;
// a line with another one keeps its Prediction in extras.
const maxFinishes = math.MaxUint8 + 1

// A key is a task and an id in one string: the task's length (uvarint),
// the task, the id. It is unambiguous whatever bytes the task and id hold.

// appendKey appends the key of task and id to b.
func appendKey(b []byte, task, id string) []byte {
	n := uint64(len(task))
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	b = append(b, byte(n))
	b = append(b, task...)
	return append(b, id...)
}

// splitKey is the task and id of a key (substrings of it).
func splitKey(k string) (task, id string) {
	var n uint64
	var shift uint
	i := 0
	for ; ; i++ {
		c := k[i]
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			break
		}
		shift += 7
	}
	i++
	return k[i : i+int(n)], k[i+int(n):]
}

// keyBlock is the size of the blocks keys are carved out of.
const keyBlock = 64 << 10

// keyArena stores keys in shared blocks. The bytes of a key never change
// once written (a block is only appended to, within its capacity), so
// the strings it returns stay valid.
type keyArena struct{ block []byte }

// key stores the key of task and id and returns it.
func (a *keyArena) key(task, id string) string {
	n := len(appendKey(nil, task, "")) + len(id)
	if n > cap(a.block)-len(a.block) {
		if n > keyBlock/8 {
			b := appendKey(make([]byte, 0, n), task, id)
			return unsafe.String(unsafe.SliceData(b), len(b))
		}
		// Blocks grow from 1 KiB, so that a small file's keys take
		// little room.
		a.block = make([]byte, 0, min(keyBlock, max(1<<10, 2*cap(a.block), n)))
	}
	start := len(a.block)
	a.block = appendKey(a.block, task, id)
	return unsafe.String(&a.block[start], n)
}

// group is the entries of one key, in serving order.
type group struct {
	entries []int32
	next    int // index of the next entry to serve
}

// A handle is what the lookup maps hold: an entry's index when the key
// has one prediction, else -(1 + the index of its group).
type handle = int32

// addPred records that entry i's prediction is also k's in m.
func (r *Runtime) addPred(m map[string]handle, k string, i int32) {
	h, ok := m[k]
	switch {
	case !ok:
		m[k] = i
	case h >= 0:
		r.groups = append(r.groups, group{entries: []int32{h, i}})
		m[k] = -int32(len(r.groups))
	default:
		g := &r.groups[-h-1]
		g.entries = append(g.entries, i)
	}
}

// handleEntries is the entries of h, in order.
func (r *Runtime) handleEntries(h handle) []int32 {
	if h >= 0 {
		return []int32{h}
	}
	return r.groups[-h-1].entries
}

// add appends p, parsed from size bytes at off, as an entry. Its id may
// share the line's memory: it is copied.
func (r *Runtime) add(p *Prediction, off int64, size int, keys *keyArena, finish map[string]uint8) {
	e := entry{off: off, size: int32(size), line: int32(p.Line), repeat: p.Repeat, form: formCode(p.Form)}
	if p.lazy {
		e.flags |= flagLazy
	}
	e.key = keys.key(p.Task, p.ID)
	fi, ok := finish[p.FinishReason]
	if !ok && len(r.finishes) < maxFinishes {
		fi, ok = uint8(len(r.finishes)), true
		r.finishes = append(r.finishes, p.FinishReason)
		finish[p.FinishReason] = fi
	}
	e.finish = fi
	if !ok || p.Prompt != "" || p.Response != "" || p.RawResponse != "" || p.ToolCalls != nil || p.Loglik != nil || p.LoglikRequests != nil {
		ex := *p
		_, ex.ID = splitKey(e.key)
		if r.extras == nil {
			r.extras = map[int32]*Prediction{}
		}
		r.extras[int32(len(r.entries))] = &ex
		e.flags |= flagExtra
	}
	r.entries = append(r.entries, e)
}

// extra is entry i's Prediction when extras holds it, else nil.
func (r *Runtime) extra(i int32) *Prediction {
	if r.entries[i].flags&flagExtra == 0 {
		return nil
	}
	return r.extras[i]
}

// prompt is entry i's prompt: an IFEval line whose prompt, response and
// finish reason are all empty keeps no extra, and its prompt is "".
func (r *Runtime) prompt(i int32) string {
	if ex := r.extra(i); ex != nil {
		return ex.Prompt
	}
	return ""
}

// prediction is entry i's Prediction, without a lazy response.
func (r *Runtime) prediction(i int32) Prediction {
	if ex := r.extra(i); ex != nil {
		return *ex
	}
	e := &r.entries[i]
	task, id := splitKey(e.key)
	return Prediction{
		Form: forms[e.form], Task: task, ID: id, Repeat: e.repeat, FinishReason: r.finishes[e.finish],
		Line: int(e.line), lazy: e.flags&flagLazy != 0,
	}
}

// index builds the lookup maps and rejects duplicates: the first line, in
// file order, that repeats an earlier one's key is refused.
func (r *Runtime) index() error {
	r.byKey = make(map[string]handle, len(r.entries))
	r.byID = map[string]handle{}
	r.byPrompt = map[string]handle{}
	r.byTrim = map[string]handle{}
	for n := range r.entries {
		i := int32(n)
		e := &r.entries[i]
		task, id := splitKey(e.key)
		switch forms[e.form] {
		case FormIFEval:
			prompt := r.prompt(i)
			if h, ok := r.byPrompt[prompt]; ok {
				return r.dup(h, i)
			}
			r.byPrompt[prompt] = i
			r.addPred(r.byTrim, strings.TrimSpace(prompt), i)
		case FormPocketeval:
			m, k := r.byKey, e.key
			if task == "" {
				m, k = r.byID, id
			}
			if h, ok := m[k]; ok {
				// The same task, id and repeat: a duplicate.
				for _, j := range r.handleEntries(h) {
					if f := &r.entries[j]; forms[f.form] == FormPocketeval && f.repeat == e.repeat {
						return r.dup(j, i)
					}
				}
			}
			r.addPred(m, k, i)
		default: // human-eval, BFCL: repeated ids are samples, in file order
			r.addPred(r.byID, id, i)
		}
	}
	// A task-less pocketeval id mixed with human-eval lines would make
	// the serving order ambiguous (the mixed id whose last line comes
	// first is named).
	var mixed *ParseError
	for id, h := range r.byID {
		if h >= 0 {
			continue
		}
		es := r.groups[-h-1].entries
		last := int(r.entries[es[len(es)-1]].line)
		for _, j := range es {
			if r.entries[j].form != r.entries[es[0]].form && (mixed == nil || last < mixed.Line) {
				mixed = &ParseError{File: r.path, Line: last, Err: fmt.Errorf("id %q appears in both pocketeval and human-eval form", id)}
				break
			}
		}
	}
	if mixed != nil {
		return mixed
	}
	// Pocketeval lines are served by repeat (human-eval lines keep file
	// order: their repeats are all zero and the sort is stable).
	for _, m := range []map[string]handle{r.byID, r.byKey} {
		for _, h := range m {
			if h < 0 {
				es := r.groups[-h-1].entries
				sort.SliceStable(es, func(a, b int) bool { return r.entries[es[a]].repeat < r.entries[es[b]].repeat })
			}
		}
	}
	for k, h := range r.byTrim {
		if h < 0 {
			// Prompts equal only after trimming cannot be told apart
			// by the fallback; keep exact matching only for them.
			delete(r.byTrim, k)
		}
	}
	return nil
}

// dup is the error for entry i repeating the prediction of the first
// entry of h.
func (r *Runtime) dup(h handle, i int32) error {
	prev := r.handleEntries(h)[0]
	p := r.prediction(i)
	return &ParseError{File: r.path, Line: p.Line, Err: fmt.Errorf("duplicate prediction for %s (first on line %d)", p.key(), r.entries[prev].line)}
}
