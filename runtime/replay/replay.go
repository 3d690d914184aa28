// Package replay provides a runtime.Runtime that answers from a file of
// predictions made elsewhere, so pocketeval's scorers can judge outputs of
// models it cannot run (a vendor's phone build, a paper's released
// generations) or re-score an earlier run.
//
// A predictions file is JSON Lines, gzip-compressed when its name ends in
// ".gz". Each line is recognised by its fields:
//
//	{"task": "gsm8k", "id": "17", "response": "..."}   pocketeval (also a results samples/<task>.jsonl line)
//	{"prompt": "...", "response": "..."}               IFEval's official input_response_data
//	{"task_id": "HumanEval/0", "completion": "..."}    human-eval's samples
//	{"id": "simple_0", "result": "[f(a=1)]"}           BFCL's result files (prompt mode)
//	{"id": "parallel_0", "result": [{"f": "{\"a\": 1}"}]}  BFCL's result files (function calling)
//	{"id": "multi_turn_base_0", "result": [["[f(a=1)]"], ...]} BFCL's multi-turn result files (turns of steps; the JSON is the response)
//
// A pocketeval line may carry "finish_reason" (default "stop"), "repeat"
// (0-based; default 0) and, for an answer whose function calls the runtime
// parsed out of it, "tool_calls" and "raw_response" (the whole text; given
// back as the Response's ToolCalls and Raw); its "task" may be empty, making the line
// match that id in any task. A request is answered by, in order: its
// (Task, ID); its ID alone (human-eval lines, task-less pocketeval lines);
// its prompt text — the last user message, or the raw prompt — exactly,
// then with surrounding white space trimmed (IFEval lines).
//
// Several human-eval lines for one task_id are that task's samples 1..n
// (pass@k), and pocketeval lines with distinct repeats likewise: successive
// requests for the key get them in order, and one request too many is an
// error. A key with a single prediction answers every request for it.
// Anything else appearing twice (the same task, id and repeat; the same
// IFEval prompt) is an error when the file is opened.
//
// Predictions are served verbatim: a request's stop sequences are not
// applied to them (stop sequences are a generation setting, recorded with
// the run that generated the text; human-eval's harness runs the
// completion it is given). Token counts are zero (unknown) and there are no
// timings. The package intentionally does not guess: a request with no
// prediction is an error naming the task and id, never an empty answer.
package replay

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/runtime"
)

// Form says which schema a prediction line used.
type Form string

// The recognised line forms.
const (
	FormPocketeval Form = "pocketeval" // {"task","id","response"}
	FormIFEval     Form = "ifeval"     // {"prompt","response"}
	FormHumanEval  Form = "humaneval"  // {"task_id","completion"}
	FormBFCL       Form = "bfcl"       // {"id","result"}
)

// Prediction is one line of a predictions file.
type Prediction struct {
	Form Form
	// Task is empty for human-eval and IFEval lines, and for pocketeval
	// lines without a task (they match the id in any task).
	Task string
	// ID is empty for IFEval lines.
	ID string
	// Prompt is set for IFEval lines only.
	Prompt       string
	Repeat       int
	Response     string
	FinishReason string
	Line         int // 1-based line in the file
	// Loglik holds the recorded per-option log-likelihoods of a
	// pocketeval samples line from a `--mode loglik` run, in the order of
	// LoglikRequests; such a line has no generated response.
	LoglikRequests []runtime.LoglikRequest
	Loglik         []runtime.LoglikResult
	// ToolCalls is a BFCL function-calling result ([{name: arguments}]),
	// or the tool_calls of a pocketeval samples line, whose raw_response
	// is RawResponse: the whole output they were parsed out of.
	ToolCalls   []runtime.ToolCall
	RawResponse string

	// lone: a string of the line holds a lone surrogate escape (see
	// LoneSurrogates).
	lone bool
	// lazy: Response is not held in memory but read again from the
	// predictions file when needed.
	lazy bool
}

// key names a prediction in messages.
func (p *Prediction) key() string {
	switch {
	case p.Form == FormIFEval:
		return fmt.Sprintf("prompt %.50q", p.Prompt)
	case p.Task != "":
		return p.Task + "/" + p.ID
	}
	return p.ID
}

// Key identifies a requested sample, for CheckKnown.
type Key struct {
	Task string
	ID   string
	// Prompt is the request's prompt text (see PromptText); optional. When
	// set, IFEval-form predictions are checked against it too.
	Prompt string
}

// KeyOf returns the key of a request.
func KeyOf(req runtime.Request) Key {
	return Key{Task: req.Task, ID: req.ID, Prompt: PromptText(req)}
}

// PromptText is the text IFEval-form predictions are matched against: the
// last user message of a chat request, else the raw prompt.
func PromptText(req runtime.Request) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if req.Messages[i].Role == "user" {
			return req.Messages[i].Content
		}
	}
	return req.Prompt
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// invalidAt is the offset of the first invalid UTF-8 byte of s.
func invalidAt(s string) int {
	for i, r := range s {
		if r == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return i
			}
		}
	}
	return len(s)
}

// ParseError is a malformed line.
type ParseError struct {
	File  string
	Line  int
	Field string // "" when the line as a whole is wrong
	Err   error
}

func (e *ParseError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: field %q: %v", e.File, e.Line, e.Field, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// Runtime serves predictions. It is safe for concurrent use.
type Runtime struct {
	path   string
	sha256 string
	// loneLines and loneCount: see LoneSurrogates.
	loneLines []int
	loneCount int
	entries   []entry  // every line, in file order (index.go)
	file      *os.File // the predictions file, for lazy responses
	// extras holds the Predictions of the entries flagged flagExtra, by
	// entry index; finishes are the finish reasons entries name.
	extras   map[int32]*Prediction
	finishes []string

	byKey    map[string]handle // key (task and id): pocketeval lines with a task
	byID     map[string]handle // id: human-eval, BFCL and task-less pocketeval lines
	byPrompt map[string]handle // IFEval lines, exact prompt
	byTrim   map[string]handle // IFEval lines, trimmed prompt
	groups   []group           // keys with more than one prediction

	// mu guards the groups' next and the entries' flagUsed.
	mu sync.Mutex

	// window is a stretch of the predictions file read ahead for lazy
	// responses: requests come mostly in file order, so one read serves
	// many of them.
	winMu     sync.Mutex
	window    []byte
	windowOff int64

	loglik     map[runtime.LoglikRequest]runtime.LoglikResult // built on first use
	loglikPred map[runtime.LoglikRequest]int32
}

var (
	_ runtime.Runtime   = (*Runtime)(nil)
	_ runtime.Describer = (*Runtime)(nil)
)

// Open reads a predictions file. Every line is parsed and checked at once;
// the responses of an uncompressed file are then read again from it when
// requested rather than held in memory, so the file must not change while
// the Runtime is open (a .gz file is held in memory).
func Open(path string) (*Runtime, error) {
	// A named pipe (or a device) would block the read or never end: it is
	// refused without a byte read, as dataset and result files are.
	f, err := regfile.Open(path, os.O_RDONLY, 0, false)
	if err != nil {
		return nil, fmt.Errorf("replay: open predictions: %w", err)
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	h := sha256.New()
	size := int64(readBuffer)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	var rd io.Reader = bufio.NewReaderSize(io.TeeReader(f, h), bufferFor(size))
	lazy := !strings.HasSuffix(path, ".gz")
	if !lazy {
		// Decompressed to at most MaxGzipBytes: a gzip bomb is refused,
		// not inflated.
		zr, err := regfile.Gunzip(rd, path, MaxGzipBytes)
		if err != nil {
			return nil, fmt.Errorf("replay: open predictions %s: %w", path, err)
		}
		defer zr.Close()
		rd = zr
	}
	hint := int64(0) // the bytes of lines to read, when known
	if lazy {
		hint = size
	}
	r, err := readPredictions(rd, path, lazy, hint)
	if err != nil {
		return nil, err
	}
	// Hash the whole file even if reading stopped before its end.
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("replay: read %s: %w", path, err)
	}
	r.sha256 = hex.EncodeToString(h.Sum(nil))
	if lazy {
		r.file, keep = f, true
	}
	return r, nil
}

// Read reads predictions from rd; name is used in messages.
func Read(rd io.Reader, name string) (*Runtime, error) {
	return readPredictions(rd, name, false, 0)
}

// readPredictions reads predictions; with lazy, rd is the file from its start and a
// non-empty response is replaced by where its line lies. hint, when not
// 0, is how many bytes rd holds: the entries are then grown to as many
// lines as the lines so far suggest, about once for a file of even
// lines, rather than by a quarter at a time (which touched fresh pages
// several times over).
func readPredictions(rd io.Reader, name string, lazy bool, hint int64) (*Runtime, error) {
	r := &Runtime{path: name}
	br, ok := rd.(*bufio.Reader)
	if !ok {
		size := int64(readBuffer)
		if l, ok := rd.(interface{ Len() int }); ok {
			size = int64(l.Len())
		}
		br = bufio.NewReaderSize(rd, bufferFor(size))
	}
	var off int64
	var buf []byte
	in := interner{}
	var keys keyArena
	finish := map[string]uint8{}
	var p Prediction
	for n := 1; ; n++ {
		line, err := readLine(br, buf[:0], MaxLineBytes)
		buf = line
		if errors.Is(err, errLineTooLong) {
			return nil, fmt.Errorf("replay: %w", &ParseError{File: name, Line: n, Err: fmt.Errorf("line longer than %d bytes", MaxLineBytes)})
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("replay: read %s: %w", name, err)
		}
		if n == 1 && bytes.HasPrefix(line, utf8BOM) {
			// Python's json (and so lm-eval, IFEval, human-eval) refuses
			// it too: "Unexpected UTF-8 BOM".
			return nil, fmt.Errorf("replay: %w", &ParseError{File: name, Line: 1, Err: errors.New("the file starts with a UTF-8 BOM (bytes EF BB BF); save it as UTF-8 without a BOM")})
		}
		if len(bytes.TrimSpace(line)) > 0 {
			p = Prediction{Line: n}
			if perr := parseInto(&p, line, name, n, lazy, in, true); perr != nil {
				return nil, fmt.Errorf("replay: %w", perr)
			}
			if len(r.entries) == MaxPredictions {
				return nil, regfile.Unusable(name, fmt.Errorf("replay: %s: more than %d predictions", name, MaxPredictions))
			}
			if n > math.MaxInt32 {
				return nil, regfile.Unusable(name, fmt.Errorf("replay: %s: more than %d lines", name, math.MaxInt32))
			}
			if n := len(r.entries); n == cap(r.entries) && n >= sampleLines && hint > 0 {
				// Room for a twentieth more lines than the file holds at the
				// average length so far (at most four times as many as
				// read: the first lines may be short ones).
				want := min(int64(n)*hint/max(off, 1)*21/20, 4*int64(n), MaxPredictions)
				if want > int64(n+n/4) {
					r.entries = slices.Grow(r.entries, int(want)-n)
				}
			}
			if p.lone {
				if r.loneCount++; len(r.loneLines) < maxLoneLines {
					r.loneLines = append(r.loneLines, n)
				}
			}
			r.add(&p, off, len(line), &keys, finish)
		}
		off += int64(len(line))
		if err == io.EOF {
			break
		}
	}
	if len(r.entries) == 0 {
		return nil, regfile.Unusable(name, fmt.Errorf("replay: %s: no predictions", name))
	}
	if n := len(r.entries); cap(r.entries) > n+n/4 {
		r.entries = slices.Clone(r.entries) // the lines were longer than the first ones
	}
	if err := r.index(); err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	return r, nil
}

// sampleLines is how many lines readPredictions reads before it sizes
// the entries.
const sampleLines = 256

// readBuffer is the most a predictions file is read ahead by (a smaller
// file gets a buffer of its size).
const readBuffer = 1 << 20

// bufferFor is the read buffer for size bytes.
func bufferFor(size int64) int {
	return int(min(max(size+1, 4096), readBuffer))
}

// MaxPredictions bounds the lines of a predictions file (each is held
// in memory), and MaxGzipBytes what a .gz file may decompress to.
const (
	MaxPredictions = 1 << 20
	MaxGzipBytes   = 256 << 20
)

// MaxLineBytes bounds one predictions line (64 MiB): a longer one is
// refused before it is held whole.
const MaxLineBytes = 64 << 20

var errLineTooLong = errors.New("line too long")

// readLine is br.ReadBytes('\n') appending to line, refusing a line over
// max bytes.
func readLine(br *bufio.Reader, line []byte, max int) ([]byte, error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, errLineTooLong
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// field is one member of a line's object.
type field struct {
	key string
	val gjson.Result
	// valid8 is false for a string value that is not valid UTF-8.
	valid8 bool
	// lone is true when a string of the value holds a lone surrogate
	// escape (see loneSurrogate).
	lone bool
}

// fields are a line's members, in order; lines have a handful, so a
// list is searched rather than a map built.
type fields []field

func (fs fields) get(k string) (gjson.Result, bool) {
	if f := fs.find(k); f != nil {
		return f.val, true
	}
	return gjson.Result{}, false
}

// find is the member named k, or nil.
func (fs fields) find(k string) *field {
	for i := range fs {
		if fs[i].key == k {
			return &fs[i]
		}
	}
	return nil
}

func (fs fields) has(k string) bool { _, ok := fs.get(k); return ok }

// interner shares the copies of strings that many lines repeat (task
// names, finish reasons).
type interner map[string]string

func (in interner) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(in) < 1024 {
		in[v] = v
	}
	return v
}

// parseLine parses one line. With lazy set, the non-empty response of a
// pocketeval, human-eval or IFEval line is checked but not decoded: the
// prediction is marked lazy, to be read again from the file when served.
func parseLine(line []byte, file string, n int, lazy bool, in interner) (*Prediction, error) {
	p := &Prediction{Line: n}
	if err := parseInto(p, line, file, n, lazy, in, false); err != nil {
		return nil, err
	}
	return p, nil
}

// parseInto is parseLine into p; with borrow, p.ID may share the line's
// memory.
func parseInto(p *Prediction, line []byte, file string, n int, lazy bool, in interner, borrow bool) error {
	// One pass over the bytes (scanLine) checks the JSON as gjson does,
	// finds the members, which answer which schema a line uses and give
	// each field's type for precise errors, and checks their UTF-8,
	// without decoding the (often long) prompt and response. The members
	// share the line's memory (no copy of it is made); strings kept from
	// them are copied.
	obj := unsafe.String(unsafe.SliceData(line), len(line))
	var arr [16]field
	raw, ok := scanLine(obj, arr[:0])
	if !ok {
		var probe any
		err := json.Unmarshal(line, &probe)
		return &ParseError{File: file, Line: n, Err: fmt.Errorf("invalid JSON object: %w", err)}
	}
	if obj[skipSpace(obj, 0)] != '{' {
		return &ParseError{File: file, Line: n, Err: errors.New("invalid JSON object: not an object")}
	}
	for i := 1; i < len(raw); i++ {
		if raw[:i].has(raw[i].key) {
			// gjson reads the first value, encoding/json the last: the
			// line has no one meaning.
			return &ParseError{File: file, Line: n, Field: strings.Clone(raw[i].key), Err: errors.New("appears twice in the object")}
		}
	}
	for _, f := range raw {
		if f.lone {
			p.lone = true
			break
		}
	}
	// response reads the answer field, a string; with lazy, a non-empty
	// one is left in the file.
	response := func(field string) (string, error) {
		if f := raw.find(field); lazy && f != nil && f.val.Type == gjson.String && f.val.Raw != `""` {
			if !f.valid8 {
				return "", invalidUTF8(file, n, field, f.val)
			}
			p.lazy = true
			return "", nil
		}
		return str(raw, field, true, file, n, nil)
	}
	var err error
	switch {
	case raw.has("task_id") && raw.has("completion"):
		p.Form = FormHumanEval
		if p.ID, err = strOf(raw, "task_id", true, file, n, nil, borrow); err != nil {
			return err
		}
		if p.Response, err = response("completion"); err != nil {
			return err
		}
	case raw.has("response") && (raw.has("id") || raw.has("task")):
		p.Form = FormPocketeval
		if p.ID, err = strOf(raw, "id", true, file, n, nil, borrow); err != nil {
			return err
		}
		if p.Task, err = str(raw, "task", false, file, n, in); err != nil {
			return err
		}
		if p.Response, err = response("response"); err != nil {
			return err
		}
		if v, ok := raw.get("loglik_results"); ok && v.Type != gjson.Null {
			if err := json.Unmarshal([]byte(v.Raw), &p.Loglik); err != nil {
				return &ParseError{File: file, Line: n, Field: "loglik_results", Err: errors.New("must be a list of {logprob, is_greedy, tokens}")}
			}
			if rq, ok := raw.get("loglik_requests"); !ok || json.Unmarshal([]byte(rq.Raw), &p.LoglikRequests) != nil || len(p.LoglikRequests) != len(p.Loglik) {
				return &ParseError{File: file, Line: n, Field: "loglik_requests", Err: errors.New("must list one {context, continuation} per loglik result")}
			}
		}
		if v, ok := raw.get("tool_calls"); ok && v.Type != gjson.Null {
			if err := json.Unmarshal([]byte(v.Raw), &p.ToolCalls); err != nil {
				return &ParseError{File: file, Line: n, Field: "tool_calls", Err: errors.New("must be a list of {name, arguments}")}
			}
			for i, c := range p.ToolCalls {
				if c.Name == "" {
					return &ParseError{File: file, Line: n, Field: "tool_calls", Err: fmt.Errorf("call %d has no name", i)}
				}
			}
			if p.RawResponse, err = str(raw, "raw_response", false, file, n, nil); err != nil {
				return err
			}
		}
		if v, ok := raw.get("repeat"); ok && v.Type != gjson.Null {
			if err := json.Unmarshal([]byte(v.Raw), &p.Repeat); err != nil || p.Repeat < 0 {
				return &ParseError{File: file, Line: n, Field: "repeat", Err: errors.New("must be a non-negative integer")}
			}
		}
	case raw.has("id") && raw.has("result") && !raw.has("response"):
		p.Form = FormBFCL
		if p.ID, err = strOf(raw, "id", true, file, n, nil, borrow); err != nil {
			return err
		}
		switch v, _ := raw.get("result"); {
		case v.Type == gjson.String && lazy && v.Raw != `""`:
			p.lazy = true
		case v.Type == gjson.String:
			p.Response = unquote(v.Raw)
		case v.IsArray() && len(v.Array()) > 0 && v.Array()[0].IsArray():
			// A multi-turn result (a list of turns, each a list of
			// steps): the multi-turn tasks score it as JSON.
			if lazy {
				p.lazy = true
			} else {
				p.Response = strings.Clone(v.Raw)
			}
		case v.IsArray():
			for i, item := range v.Array() {
				if !item.IsObject() {
					return &ParseError{File: file, Line: n, Field: "result", Err: fmt.Errorf("item %d must be an object {name: arguments}", i)}
				}
				item.ForEach(func(k, a gjson.Result) bool {
					args := a.Raw
					if a.Type == gjson.String {
						args = a.String()
					}
					p.ToolCalls = append(p.ToolCalls, runtime.ToolCall{Name: strings.Clone(k.String()), Arguments: strings.Clone(args)})
					return false // BFCL reads the first key
				})
			}
		default:
			return &ParseError{File: file, Line: n, Field: "result", Err: errors.New("must be a string (prompt mode), a list of {name: arguments} (function calling) or a list of turns (multi-turn)")}
		}
	case raw.has("prompt") && raw.has("response"):
		p.Form = FormIFEval
		if p.Prompt, err = str(raw, "prompt", true, file, n, nil); err != nil {
			return err
		}
		if p.Response, err = response("response"); err != nil {
			return err
		}
	case raw.has("task_id"):
		return &ParseError{File: file, Line: n, Field: "completion", Err: errors.New(`missing: a human-eval line is {"task_id","completion"}`)}
	case raw.has("id") || raw.has("task") || raw.has("prompt"):
		return &ParseError{File: file, Line: n, Field: "response", Err: errors.New(`missing: a line is {"task","id","response"} or {"prompt","response"}`)}
	default:
		return &ParseError{File: file, Line: n, Field: "response", Err: errors.New(`missing: unrecognised prediction: want {"task","id","response"}, {"prompt","response"}, {"task_id","completion"} or BFCL's {"id","result"}`)}
	}
	if p.ID == "" && p.Form != FormIFEval {
		f := "id"
		if p.Form == FormHumanEval {
			f = "task_id"
		}
		return &ParseError{File: file, Line: n, Field: f, Err: errors.New("must not be empty")}
	}
	if p.FinishReason, err = str(raw, "finish_reason", false, file, n, in); err != nil {
		return err
	}
	if p.FinishReason == "" {
		p.FinishReason = runtime.FinishStop
	}
	return nil
}

// str reads a string field of a line (a number too for "id"), cloned
// (shared through in when in is not nil); required refuses a missing or
// null one.
func str(raw fields, field string, required bool, file string, n int, in interner) (string, error) {
	return strOf(raw, field, required, file, n, in, false)
}

// strOf is str; with borrow, the string is not copied (it may share the
// line's memory).
func strOf(raw fields, field string, required bool, file string, n int, in interner, borrow bool) (string, error) {
	f := raw.find(field)
	if f == nil || f.val.Type == gjson.Null {
		if required {
			return "", &ParseError{File: file, Line: n, Field: field, Err: errors.New("missing")}
		}
		return "", nil
	}
	switch v := f.val; {
	case v.Type == gjson.String && !f.valid8:
		return "", invalidUTF8(file, n, field, v)
	case v.Type == gjson.String && in != nil:
		return in.get(view(v.Raw)), nil
	case v.Type == gjson.String && borrow:
		return view(v.Raw), nil
	case v.Type == gjson.Number && field == "id" && borrow:
		return v.Raw, nil
	case v.Type == gjson.String:
		return unquote(v.Raw), nil
	case v.Type == gjson.Number && field == "id":
		// Numeric ids are common in hand-made files.
		return strings.Clone(v.Raw), nil
	}
	return "", &ParseError{File: file, Line: n, Field: field, Err: errors.New("must be a string")}
}

// LoneSurrogates returns the lines of the first predictions (at most
// maxLoneLines) whose JSON holds the \u escape of a UTF-16 surrogate that
// is not half of a pair, and how many there are. RFC 8259 leaves what
// such a string means to the reader: the escape stands for no character
// a UTF-8 text can hold. Python's json keeps it in the string, so the
// official scorers see it; this reader, as Go's and gjson do, reads it as
// U+FFFD, a character the model never wrote, on which a checker can
// answer otherwise (langdetect finds no feature in a lone surrogate and
// names U+FFFD Hindi). The predictions are served; the caller warns.
func (r *Runtime) LoneSurrogates() (lines []int, n int) {
	return r.loneLines, r.loneCount
}

// maxLoneLines is how many lines LoneSurrogates names.
const maxLoneLines = 5

// LoneSurrogateWarning words the warning for LoneSurrogates' answer.
func LoneSurrogateWarning(file string, lines []int, n int) string {
	where := make([]string, len(lines))
	for i, l := range lines {
		where[i] = strconv.Itoa(l)
	}
	more := ""
	if n > len(lines) {
		more = ", …"
	}
	hold := "predictions hold"
	if n == 1 {
		hold = "prediction holds"
	}
	return fmt.Sprintf("%s: %d %s a lone UTF-16 surrogate escape (such as \\ud800 without its pair; line %s%s): read as U+FFFD, as Go's and most JSON readers do; Python's json keeps the surrogate, so an official scorer can judge such a text otherwise (docs/ifeval.md, Conformance)", file, n, hold, strings.Join(where, ", "), more)
}

// invalidUTF8 refuses a string value that is not UTF-8: JSON text is
// UTF-8 (RFC 8259), and a scorer must not see replacement characters the
// model never wrote.
func invalidUTF8(file string, n int, field string, v gjson.Result) error {
	return &ParseError{File: file, Line: n, Field: field, Err: fmt.Errorf("invalid UTF-8 at byte %d of the value", invalidAt(v.Raw))}
}

// Generate answers req from the file.
func (r *Runtime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	if err := ctx.Err(); err != nil {
		return runtime.Response{}, err
	}
	h, ok := r.lookup(req)
	if !ok {
		return runtime.Response{}, fmt.Errorf("replay: %w for task %q id %q in %s (matched by task+id, id, then prompt %.60q)", ErrNoPrediction, req.Task, req.ID, r.path, PromptText(req))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	i := h
	if h < 0 {
		g := &r.groups[-h-1]
		if g.next == len(g.entries) {
			return runtime.Response{}, fmt.Errorf("replay: task %q id %q: all %d predictions in %s already used (more repeats requested than the file has)", req.Task, req.ID, len(g.entries), r.path)
		}
		i = g.entries[g.next]
		g.next++
	}
	e := &r.entries[i]
	ex := r.extra(i)
	if ex != nil && len(ex.Loglik) > 0 && ex.Response == "" && e.flags&flagLazy == 0 {
		return runtime.Response{}, fmt.Errorf("replay: %s:%d comes from a log-likelihood run (it has loglik_results and no response); replay it in log-likelihood mode", r.path, e.line)
	}
	e.flags |= flagUsed
	text, err := r.response(i)
	if err != nil {
		return runtime.Response{}, err
	}
	if ex != nil {
		return runtime.Response{Text: text, ToolCalls: ex.ToolCalls, Raw: ex.RawResponse, FinishReason: ex.FinishReason}, nil
	}
	return runtime.Response{Text: text, FinishReason: r.finishes[e.finish]}, nil
}

// response returns entry i's response, reading it from the file if it is
// lazy.
func (r *Runtime) response(i int32) (string, error) {
	e := &r.entries[i]
	if e.flags&flagLazy == 0 {
		if ex := r.extra(i); ex != nil {
			return ex.Response, nil
		}
		return "", nil
	}
	r.winMu.Lock()
	defer r.winMu.Unlock()
	line, err := r.lineAt(e)
	if err != nil {
		return "", fmt.Errorf("replay: read %s:%d again: %w", r.path, e.line, err)
	}
	form := forms[e.form]
	field := "response"
	switch form {
	case FormHumanEval:
		field = "completion"
	case FormBFCL:
		field = "result"
	}
	// A field appears once (parseLine refuses a line naming one twice).
	// The value shares the window's memory: what is returned is copied.
	var v gjson.Result
	obj := unsafe.String(unsafe.SliceData(line), len(line))
	members(obj[skipSpace(obj, 0):], func(k, raw string) bool {
		if k == field {
			v = value(raw)
			return false
		}
		return true
	})
	if form == FormBFCL && v.IsArray() {
		return strings.Clone(v.Raw), nil // a multi-turn result
	}
	if v.Type != gjson.String {
		return "", fmt.Errorf("replay: %s:%d changed since it was opened", r.path, e.line)
	}
	return unquote(v.Raw), nil
}

// The lines of a predictions file are valid JSON (gjson.ValidBytes) when
// they are taken apart: members and value find the extent of each value
// without decoding any, so a long response is decoded once, when it is
// served, and not at all while the file is indexed.

// members calls fn with each member of the JSON object obj (valid JSON
// starting with '{'): its key decoded, its value as raw JSON; fn returns
// false to stop.
func members(obj string, fn func(key, raw string) bool) {
	i := skipSpace(obj, 1)
	for i < len(obj) && obj[i] == '"' {
		end := skipString(obj, i)
		key := view(obj[i:end])
		i = skipSpace(obj, skipSpace(obj, end)+1) // past ':'
		vend := skipValue(obj, i)
		if !fn(key, obj[i:vend]) {
			return
		}
		i = skipSpace(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = skipSpace(obj, i+1)
		}
	}
}

// value is raw JSON as a gjson.Result; a string is left undecoded (Str
// empty: read it with view or unquote).
func value(raw string) gjson.Result {
	if raw[0] == '"' {
		return gjson.Result{Type: gjson.String, Raw: raw}
	}
	return gjson.Parse(raw)
}

// skipSpace returns the index of the first byte at or after i that is
// not JSON white space.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string literal starting at i.
func skipString(s string, i int) int {
	j := i + 1
	for {
		k := strings.IndexByte(s[j:], '"')
		if k < 0 {
			return len(s)
		}
		j += k
		// The quote ends the string unless an odd number of
		// backslashes escapes it.
		bs := 0
		for b := j - 1; b > i && s[b] == '\\'; b-- {
			bs++
		}
		j++
		if bs%2 == 0 {
			return j
		}
	}
}

// skipValue returns the index after the value starting at i.
func skipValue(s string, i int) int {
	switch s[i] {
	case '"':
		return skipString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); {
			switch s[j] {
			case '"':
				j = skipString(s, j)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
			j++
		}
		return len(s)
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
		j++
	}
	return j
}

// view is the text of a valid JSON string literal: a slice of raw when
// it has no escapes (sharing its memory), else decoded (unquote).
func view(raw string) string {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1]
	}
	return unquote(raw)
}

// unquote decodes a valid JSON string literal (quotes included) into new
// memory, as gjson's Result.String does — escapes decoded, a surrogate
// pair combined, a lone surrogate U+FFFD — copying the runs between
// escapes whole.
func unquote(raw string) string {
	s := raw[1 : len(raw)-1]
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return strings.Clone(s)
	}
	b := make([]byte, 0, len(s))
	for i >= 0 {
		b = append(b, s[:i]...)
		s = s[i+1:]
		c := s[0]
		s = s[1:]
		switch c {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(s)
			s = s[4:]
			if r >= 0xD800 && r < 0xDC00 && len(s) >= 6 && s[0] == '\\' && s[1] == 'u' {
				if r2 := hex4(s[2:]); r2 >= 0xDC00 && r2 < 0xE000 {
					r = utf16.DecodeRune(r, r2)
					s = s[6:]
				}
			}
			b = utf8.AppendRune(b, r)
		default: // '"', '\\', '/'
			b = append(b, c)
		}
		i = strings.IndexByte(s, '\\')
	}
	b = append(b, s...)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// hex4 is the value of the four hex digits s starts with.
func hex4(s string) rune {
	var r rune
	for _, c := range []byte(s[:4]) {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default:
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// windowSize is how much of the predictions file lineAt reads at once.
const windowSize = 256 << 10

// lineAt returns e's line from the window, reading the file from e's
// offset on when the window does not hold it; the caller holds winMu.
func (r *Runtime) lineAt(e *entry) ([]byte, error) {
	if e.off < r.windowOff || e.off+int64(e.size) > r.windowOff+int64(len(r.window)) {
		n := max(windowSize, int(e.size))
		if cap(r.window) < n {
			r.window = make([]byte, n)
		}
		m, err := r.file.ReadAt(r.window[:n], e.off)
		if m < int(e.size) {
			r.window = r.window[:0]
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		r.window, r.windowOff = r.window[:m], e.off
	}
	start := e.off - r.windowOff
	return r.window[start : start+int64(e.size)], nil
}

// LogLikelihood answers from the loglik_results recorded in pocketeval
// samples lines of a `--mode loglik` run: each request must match a
// recorded (context, continuation) pair exactly.
func (r *Runtime) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.loglik == nil {
		r.loglik = map[runtime.LoglikRequest]runtime.LoglikResult{}
		r.loglikPred = map[runtime.LoglikRequest]int32{}
		for i, p := range r.extras {
			for j, q := range p.LoglikRequests {
				// Lines in file order: a later line's result for a pair
				// replaces an earlier one's.
				if prev, ok := r.loglikPred[q]; ok && prev > i {
					continue
				}
				r.loglik[q] = p.Loglik[j]
				r.loglikPred[q] = i
			}
		}
	}
	if len(r.loglik) == 0 {
		return nil, fmt.Errorf("replay: %s has no log-likelihood results (loglik_results): %w", r.path, runtime.ErrNotSupported)
	}
	out := make([]runtime.LoglikResult, len(reqs))
	for i, q := range reqs {
		res, ok := r.loglik[q]
		if !ok {
			return nil, fmt.Errorf("replay: no recorded log-likelihood in %s for continuation %.40q after context …%s", r.path, q.Continuation, tail(q.Context, 60))
		}
		out[i] = res
		r.entries[r.loglikPred[q]].flags |= flagUsed
	}
	return out, nil
}

func tail(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%q", string(r[len(r)-n:]))
}

// lookup finds the predictions for req: by task and id, by id, then by
// prompt text.
func (r *Runtime) lookup(req runtime.Request) (handle, bool) {
	if req.ID != "" {
		var buf [128]byte
		if h, ok := r.byKey[string(appendKey(buf[:0], req.Task, req.ID))]; ok {
			return h, true
		}
		if h, ok := r.byID[req.ID]; ok {
			return h, true
		}
	}
	text := PromptText(req)
	if text == "" {
		return 0, false
	}
	if h, ok := r.byPrompt[text]; ok {
		return h, true
	}
	h, ok := r.byTrim[strings.TrimSpace(text)]
	return h, ok
}

// Close does nothing; it is idempotent.
func (r *Runtime) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file == nil {
		return nil
	}
	err := r.file.Close()
	r.file = nil
	return err
}

// Replayed reports that the runtime answers from a predictions file
// (runtime.Replayer): its answers carry no measurements.
func (r *Runtime) Replayed() bool { return true }

// Describe records the predictions file and the sha256 of its bytes as
// stored (compressed, for .gz files).
func (r *Runtime) Describe() runtime.Info {
	s := map[string]any{"predictions": r.path, "count": len(r.entries)}
	if r.sha256 != "" {
		s["sha256"] = r.sha256
	}
	return runtime.Info{Name: "replay", Model: r.path, Settings: s}
}

// SHA256 is the hex sha256 of the predictions file's bytes as stored
// (compressed, for .gz files), taken while Open read them; "" for a
// Runtime made by Read.
func (r *Runtime) SHA256() string { return r.sha256 }

// Predictions returns every prediction in file order.
func (r *Runtime) Predictions() []Prediction {
	out := make([]Prediction, len(r.entries))
	for i := range r.entries {
		out[i] = r.full(int32(i))
	}
	return out
}

// Forms returns the form of every prediction in file order, without
// reading any response back from the file.
func (r *Runtime) Forms() []Form {
	out := make([]Form, len(r.entries))
	for i, e := range r.entries {
		out[i] = forms[e.form]
	}
	return out
}

// full is entry i's Prediction with its response.
func (r *Runtime) full(i int32) Prediction {
	c := r.prediction(i)
	if c.lazy {
		c.Response, _ = r.response(i)
		c.lazy = false
	}
	return c
}

// Unused returns the predictions no Generate call has served, in file
// order. Call it after a run to find predictions for samples that were
// never requested (a misnamed task, a subset run).
func (r *Runtime) Unused() []Prediction {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Prediction
	for i, e := range r.entries {
		if e.flags&flagUsed == 0 {
			out = append(out, r.full(int32(i)))
		}
	}
	return out
}

// MatchesPrompts reports whether some prediction is matched by prompt
// text (IFEval lines); when none is, CheckRequests needs only the requests'
// tasks and ids.
func (r *Runtime) MatchesPrompts() bool { return len(r.byPrompt) > 0 }

// CheckRequests is CheckKnown for the requests a run will make (their
// Task, ID and prompt text).
func (r *Runtime) CheckRequests(reqs []runtime.Request) error {
	return r.checkKnown(len(reqs), func(i int) Key { return KeyOf(reqs[i]) })
}

// CheckTaskIDs is CheckKnown for keys without prompts: {task, id} pairs.
func (r *Runtime) CheckTaskIDs(keys [][2]string) error {
	return r.checkKnown(len(keys), func(i int) Key { return Key{Task: keys[i][0], ID: keys[i][1]} })
}

// CheckKnown reports predictions that can match none of keys, before any
// generation: the runner passes the keys of every sample it will request,
// and a typo in a task name or ids from another dataset version show up at
// once. A prediction is checked only where the check is meaningful:
//   - pocketeval lines with a task, when some key has that task (lines for
//     tasks not in this run are ignored);
//   - human-eval and task-less lines, against every key's ID;
//   - IFEval lines, when some key carries a Prompt.
//
// The error names up to five offending predictions with their lines and
// says how many there are in all.
func (r *Runtime) CheckKnown(keys []Key) error {
	return r.checkKnown(len(keys), func(i int) Key { return keys[i] })
}

// checkKnown is CheckKnown over the n keys key returns. Rather than a
// set of the keys, the predictions each key finds are marked.
func (r *Runtime) checkKnown(n int, key func(int) Key) error {
	tasks := map[string]bool{}
	known := make([]bool, len(r.entries))
	mark := func(h handle, ok bool) {
		if ok {
			for _, i := range r.handleEntries(h) {
				known[i] = true
			}
		}
	}
	var prompts map[string]bool
	var buf []byte
	for i := range n {
		k := key(i)
		tasks[k.Task] = true
		buf = appendKey(buf[:0], k.Task, k.ID)
		h, ok := r.byKey[string(buf)] // pocketeval lines with this task and id
		mark(h, ok)
		h, ok = r.byID[k.ID] // human-eval, BFCL and task-less lines with this id
		mark(h, ok)
		if k.Prompt != "" {
			if prompts == nil {
				prompts = map[string]bool{}
			}
			prompts[k.Prompt] = true
			prompts[strings.TrimSpace(k.Prompt)] = true
		}
	}
	var bad []string
	for n := range r.entries {
		i := int32(n)
		e := &r.entries[i]
		unknown := false
		switch task, _ := splitKey(e.key); {
		case forms[e.form] == FormIFEval:
			p := r.prompt(i)
			unknown = len(prompts) > 0 && !prompts[p] && !prompts[strings.TrimSpace(p)]
		case forms[e.form] == FormPocketeval && task != "":
			unknown = tasks[task] && !known[i]
		default:
			unknown = !known[i]
		}
		if unknown {
			p := r.prediction(i)
			bad = append(bad, fmt.Sprintf("%s (line %d)", p.key(), p.Line))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	shown := bad
	more := ""
	if len(shown) > 5 {
		shown = shown[:5]
		more = fmt.Sprintf(" and %d more", len(bad)-5)
	}
	return regfile.Unusable(r.path, fmt.Errorf("replay: %d predictions in %s match no requested sample: %s%s", len(bad), r.path, strings.Join(shown, ", "), more))
}

// ErrNoPrediction is returned (wrapped) for a request the file has no
// prediction for.
var ErrNoPrediction = errors.New("no prediction")

// Preflight reports a request the file has no prediction for (a file that
// covers fewer samples than the run selects), before anything is scored.
func (r *Runtime) Preflight(req runtime.Request) error {
	if _, ok := r.lookup(req); !ok {
		return fmt.Errorf("replay: %w for task %q id %q in %s", ErrNoPrediction, req.Task, req.ID, r.path)
	}
	return nil
}
