package results

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/pocketeval/pocketeval/runtime"
)

// EncodeLine encodes rec as a samples line, newline included: the bytes
// json.Marshal(rec) gives, then '\n'.
func EncodeLine(rec *Record) ([]byte, error) {
	return AppendLine(nil, rec, nil)
}

// AppendLine appends rec's samples line (EncodeLine) to dst. The record's
// own fields are written by hand — encoding/json's reflection was most of
// a replay's encoding time — and its nested values (generation settings,
// log-likelihood requests and results, details, timings, tool calls) by
// encoding/json, so the line is byte for byte json.Marshal's
// (TestAppendLineMatchesMarshal). cache, when not nil, keeps the encoding
// of long message texts that many records share (few-shot exemplars).
func AppendLine(dst []byte, rec *Record, cache *StringCache) ([]byte, error) {
	start := len(dst)
	// One allocation for the line rather than a doubling per growth,
	// with room for a somewhat longer line when the buffer is reused.
	if n := lineSizeHint(rec); cap(dst)-len(dst) < n {
		dst = slices.Grow(dst, n+n/4)
	}
	out, ok := appendRecord(dst, rec, cache)
	if !ok {
		// A value encoding/json refuses (NaN in scores, …): its error.
		data, err := json.Marshal(rec)
		if err != nil {
			return dst[:start], fmt.Errorf("encode sample %s: %w", rec.ID, err)
		}
		return append(append(dst[:start], data...), '\n'), nil
	}
	return append(out, '\n'), nil
}

// lineSizeHint estimates the length of rec's line: its texts, a little
// for their escapes, and its other fields.
func lineSizeHint(r *Record) int {
	n := len(r.Task) + len(r.ID) + len(r.Prompt) + len(r.RenderedPrompt) + len(r.Response) +
		len(r.RawResponse) + len(r.Extracted) + len(r.Target) + len(r.Error)
	if r.Scored != nil {
		n += len(*r.Scored)
	}
	for i := range r.Messages {
		n += len(r.Messages[i].Content) + 32
	}
	return n + n/16 + 512 + 64*(len(r.Scores)+len(r.Details))
}

// appendRecord writes rec as encoding/json does (field order, omitempty,
// HTML-safe string escaping); ok is false when a value needs
// encoding/json's error.
func appendRecord(b []byte, r *Record, cache *StringCache) ([]byte, bool) {
	b = append(b, `{"task":`...)
	b = appendJSONString(b, r.Task)
	b = append(b, `,"id":`...)
	b = appendJSONString(b, r.ID)
	if r.Repeat != 0 {
		b = append(b, `,"repeat":`...)
		b = strconv.AppendInt(b, int64(r.Repeat), 10)
	}
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(r.Index), 10)
	if n := len(r.Messages); n > 0 {
		b = append(b, `,"messages":[`...)
		// Earlier turns are what records share (few-shot exemplars),
		// most often all of them together; the last is the sample's own.
		var ok bool
		if b, ok = cache.appendTurns(b, r.Messages[:n-1]); !ok {
			return b, false
		}
		if b, ok = appendMessage(b, &r.Messages[n-1], nil); !ok {
			return b, false
		}
		b = append(b, ']')
	}
	if r.Prompt != "" {
		b = append(b, `,"prompt":`...)
		b = appendJSONString(b, r.Prompt)
	}
	if r.RenderedPrompt != "" {
		b = append(b, `,"rendered_prompt":`...)
		b = appendJSONString(b, r.RenderedPrompt)
	}
	var ok bool
	if r.Gen != nil {
		b = append(b, `,"gen":`...)
		if b, ok = appendGen(b, r.Gen); !ok {
			return b, false
		}
	}
	if len(r.Loglik) > 0 {
		b = append(b, `,"loglik_requests":`...)
		if b, ok = appendMarshal(b, r.Loglik); !ok {
			return b, false
		}
	}
	b = append(b, `,"response":`...)
	b = appendJSONString(b, r.Response)
	if r.Scored != nil {
		b = append(b, `,"scored_text":`...)
		b = appendJSONString(b, *r.Scored)
	}
	if len(r.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":`...)
		if b, ok = appendMarshal(b, r.ToolCalls); !ok {
			return b, false
		}
	}
	if r.RawResponse != "" {
		b = append(b, `,"raw_response":`...)
		b = appendJSONString(b, r.RawResponse)
	}
	if r.Thinking != "" {
		b = append(b, `,"thinking":`...)
		b = appendJSONString(b, r.Thinking)
	}
	if len(r.LoglikResults) > 0 {
		b = append(b, `,"loglik_results":`...)
		if b, ok = appendMarshal(b, r.LoglikResults); !ok {
			return b, false
		}
	}
	if r.Extracted != "" {
		b = append(b, `,"extracted":`...)
		b = appendJSONString(b, r.Extracted)
	}
	if r.ExtractionFailed {
		b = append(b, `,"extraction_failed":true`...)
	}
	if r.Target != "" {
		b = append(b, `,"target":`...)
		b = appendJSONString(b, r.Target)
	}
	b = append(b, `,"scores":`...)
	if b, ok = appendScores(b, r.Scores); !ok {
		return b, false
	}
	if len(r.Details) > 0 {
		b = append(b, `,"details":`...)
		if b, ok = appendValue(b, r.Details, 0); !ok {
			return b, false
		}
	}
	if r.FinishReason != "" {
		b = append(b, `,"finish_reason":`...)
		b = appendJSONString(b, r.FinishReason)
	}
	if r.PromptTokens != 0 {
		b = append(b, `,"prompt_tokens":`...)
		b = strconv.AppendInt(b, int64(r.PromptTokens), 10)
	}
	if r.CompletionTokens != 0 {
		b = append(b, `,"completion_tokens":`...)
		b = strconv.AppendInt(b, int64(r.CompletionTokens), 10)
	}
	if r.Error != "" {
		b = append(b, `,"error":`...)
		b = appendJSONString(b, r.Error)
	}
	if r.Retryable {
		b = append(b, `,"retryable":true`...)
	}
	if r.Timings != nil {
		b = append(b, `,"timings":`...)
		if b, ok = appendMarshal(b, r.Timings); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendMessage writes one chat message (runtime.Message's fields and
// tags).
func appendMessage(b []byte, m *runtime.Message, cache *StringCache) ([]byte, bool) {
	b = append(b, `{"role":`...)
	b = appendJSONString(b, m.Role)
	b = append(b, `,"content":`...)
	b = cache.append(b, m.Content)
	if len(m.ToolCalls) > 0 {
		b = append(b, `,"tool_calls":`...)
		var ok bool
		if b, ok = appendMarshal(b, m.ToolCalls); !ok {
			return b, false
		}
	}
	if m.ToolCallID != "" {
		b = append(b, `,"tool_call_id":`...)
		b = appendJSONString(b, m.ToolCallID)
	}
	if m.Name != "" {
		b = append(b, `,"name":`...)
		b = appendJSONString(b, m.Name)
	}
	if m.ReasoningContent != "" {
		b = append(b, `,"reasoning_content":`...)
		b = appendJSONString(b, m.ReasoningContent)
	}
	return append(b, '}'), true
}

// appendGen writes runtime.GenConfig's fields as their tags say.
func appendGen(b []byte, g *runtime.GenConfig) ([]byte, bool) {
	b = append(b, '{')
	if g.MaxTokens != 0 {
		b = append(b, `"max_tokens":`...)
		b = strconv.AppendInt(b, int64(g.MaxTokens), 10)
		b = append(b, ',')
	}
	b = append(b, `"temperature":`...)
	var ok bool
	if b, ok = appendFloat(b, g.Temperature); !ok {
		return b, false
	}
	if g.TopP != 0 {
		b = append(b, `,"top_p":`...)
		if b, ok = appendFloat(b, g.TopP); !ok {
			return b, false
		}
	}
	b = append(b, `,"seed":`...)
	b = strconv.AppendInt(b, g.Seed, 10)
	if len(g.Stop) > 0 {
		b = append(b, `,"stop":[`...)
		for i, s := range g.Stop {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		b = append(b, ']')
	}
	return append(b, '}'), true
}

// appendScores writes a map[string]float64 as encoding/json does: keys
// sorted, "null" for a nil map.
func appendScores(b []byte, m map[string]float64) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	b = append(b, '{')
	var arr [16]string
	keys := arr[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		var ok bool
		if b, ok = appendFloat(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendValue writes a details value as encoding/json does, by hand for
// the kinds scorers use (strings, numbers, booleans, nil, lists and maps
// of them) and through encoding/json for any other.
func appendValue(b []byte, v any, depth int) ([]byte, bool) {
	if depth > 8 {
		return appendMarshal(b, v)
	}
	var ok bool
	switch v := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, v), true
	case bool:
		return strconv.AppendBool(b, v), true
	case float64:
		return appendFloat(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10), true
	case []string:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, x)
		}
		return append(b, ']'), true
	case []any:
		if v == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendValue(b, x, depth+1); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if v == nil {
			return append(b, "null"...), true
		}
		var arr [16]string
		keys := arr[:0]
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			if b, ok = appendValue(b, v[k], depth+1); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return appendMarshal(b, v)
}

// appendMarshal appends json.Marshal(v); ok is false on its error.
func appendMarshal(b []byte, v any) ([]byte, bool) {
	data, err := json.Marshal(v)
	if err != nil {
		return b, false
	}
	return append(b, data...), true
}

// appendFloat writes a float64 as encoding/json does (ES6 number
// formatting); ok is false for NaN and infinities, which it refuses.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 becomes e-9.
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

// jsonSafe marks the ASCII bytes encoding/json writes as they are in a
// string with HTML escaping on: printable characters but for '"', '\\',
// '<', '>' and '&'.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	for _, c := range `"\<>&` {
		t[c] = false
	}
	return t
}()

const hexDigits = "0123456789abcdef"

// appendJSONString writes s as a JSON string exactly as encoding/json
// does: HTML characters and control characters escaped, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped. Safe ASCII is skipped eight bytes
// at a time (unsafeBytes), straight to the first byte that needs a look;
// runs of well-formed multi-byte characters are checked in place
// (multiByteRun; utf8.DecodeRuneInString only for the rest).
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	n := len(s)
	for i := 0; i < n; {
		for i+8 <= n {
			if m := unsafeBytes(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[i:]), 8))); m != 0 {
				// The lowest flagged byte is one that needs a look.
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i == n {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if jsonSafe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			b = appendEscape(b, c)
			i++
			start = i
			continue
		}
		if j := multiByteRun(s, i); j > i {
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// multiByteRun returns the end of the run of well-formed multi-byte
// characters other than U+2028 and U+2029 that starts at s[i] (i itself
// when s[i] does not start one): bytes encoding/json copies as they are.
func multiByteRun(s string, i int) int {
	n := len(s)
	for i < n {
		c := s[i]
		switch {
		case c < 0xC2:
			return i // ASCII, a continuation byte or an overlong lead
		case c <= 0xDF:
			if i+1 < n && s[i+1]&0xC0 == 0x80 {
				i += 2
				continue
			}
		case c <= 0xEF:
			if i+2 < n && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 {
				c1 := s[i+1]
				if (c != 0xE0 || c1 >= 0xA0) && (c != 0xED || c1 < 0xA0) &&
					(c != 0xE2 || c1 != 0x80 || s[i+2] != 0xA8 && s[i+2] != 0xA9) {
					i += 3
					continue
				}
			}
		case c <= 0xF4:
			if i+3 < n && s[i+1]&0xC0 == 0x80 && s[i+2]&0xC0 == 0x80 && s[i+3]&0xC0 == 0x80 {
				c1 := s[i+1]
				if (c != 0xF0 || c1 >= 0x90) && (c != 0xF4 || c1 < 0x90) {
					i += 4
					continue
				}
			}
		}
		return i
	}
	return i
}

// Masks of unsafeBytes: a byte's high bit, and a byte repeated eight
// times.
const (
	highBits = 0x8080808080808080
	onesWord = 0x0101010101010101
)

// unsafeBytes flags the bytes of x (little-endian) that are not jsonSafe:
// non-ASCII, below 0x20, or one of '"', '&', '<', '>', '\\'. It returns
// a mask with some high bits set; it may flag safe bytes above an unsafe
// one (borrows), but its lowest set bit is always an unsafe byte's, and
// it is zero only when all eight are safe. For bytes below 0x80,
// (x - k·ones) &^ x has a byte's high bit set if a byte is below k, the
// lowest such byte exactly, and a byte equal to c is a zero byte of
// x ^ c·ones; '"' (0x22) and '&' (0x26) differ in bit 2 only, as '<'
// (0x3C) and '>' (0x3E) in bit 1, so one test covers each pair.
func unsafeBytes(x uint64) uint64 {
	zero := func(y uint64) uint64 { return (y - onesWord) &^ y }
	return (x | (x-0x20*onesWord)&^x |
		zero((x|0x04*onesWord)^0x26*onesWord) |
		zero((x|0x02*onesWord)^0x3E*onesWord) |
		zero(x^'\\'*onesWord)) & highBits
}

// appendEscape writes the escape of an ASCII byte that is not jsonSafe.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '\\', '"':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
}

// StringCache keeps the JSON encodings of long strings that many records
// share by identity — the few-shot turns a task renders once and puts in
// every prompt — so each is escaped once per run rather than once per
// record, and of whole runs of turns that records share (all of a
// prompt's turns but its last), so that those are copied in one piece. A
// string is recognised by its data pointer and length (the cache holds
// the string, so the memory cannot be reused for another while it is
// kept). It is safe for concurrent use; a nil cache encodes every string.
type StringCache struct {
	mu    sync.Mutex
	m     map[stringID]cachedString
	turns map[turnsID]*cachedTurns
	bytes int
}

// turnsID names a run of turns by its number and the first and last
// turns' contents; the entry's turns tell runs that agree on these
// apart.
type turnsID struct {
	first, last stringID
	n           int
}

// cachedTurns are a run of turns and their encoding (each turn followed
// by a comma). enc is nil until the run is met a second time: a run seen
// once (a prompt whose earlier turns are not shared) costs no copy.
type cachedTurns struct {
	turns []runtime.Message // keeps the strings alive
	enc   []byte
}

type stringID struct {
	p *byte
	n int
}

type cachedString struct {
	s   string // keeps the data alive
	enc []byte
}

// Bounds of a StringCache: strings shorter than minCachedString are
// encoded every time, and past maxCacheBytes of encodings the cache
// starts over.
const (
	minCachedString = 256
	maxCacheBytes   = 1 << 20
)

// NewStringCache returns an empty cache.
func NewStringCache() *StringCache {
	return &StringCache{m: map[stringID]cachedString{}}
}

// appendTurns writes turns, each followed by a comma, as appendMessage
// does (long contents through the cache). A run of turns the cache has
// met before, the very same strings, is copied from it in one piece.
func (c *StringCache) appendTurns(b []byte, turns []runtime.Message) ([]byte, bool) {
	if len(turns) == 0 {
		return b, true
	}
	var id turnsID
	cacheable := c != nil
	for i := range turns {
		if m := &turns[i]; len(m.ToolCalls) > 0 || m.ToolCallID != "" || m.Name != "" || m.ReasoningContent != "" {
			cacheable = false
			break
		}
	}
	var e *cachedTurns
	if cacheable {
		id = turnsID{first: idOf(turns[0].Content), last: idOf(turns[len(turns)-1].Content), n: len(turns)}
		c.mu.Lock()
		e = c.turns[id]
		var enc []byte
		if e != nil && sameTurns(e.turns, turns) {
			enc = e.enc
		} else {
			e = nil
		}
		c.mu.Unlock()
		if enc != nil {
			return append(b, enc...), true
		}
	}
	start := len(b)
	for i := range turns {
		var ok bool
		if b, ok = appendMessage(b, &turns[i], c); !ok {
			return b, false
		}
		b = append(b, ',')
	}
	if !cacheable {
		return b, true
	}
	c.mu.Lock()
	if e != nil {
		// The second time: keep the encoding.
		if c.bytes+len(b)-start > maxCacheBytes {
			c.clearLocked()
		} else if e.enc == nil && c.turns[id] == e {
			e.enc = slices.Clone(b[start:])
			c.bytes += len(e.enc)
		}
	} else {
		// The first time: keep the turns (their texts count against the
		// cache's bound, as it holds them).
		held := 0
		for i := range turns {
			held += len(turns[i].Content)
		}
		if c.turns == nil {
			c.turns = map[turnsID]*cachedTurns{}
		}
		if len(c.turns) >= maxCachedTurns || c.bytes+held > maxCacheBytes {
			c.clearLocked()
		}
		c.turns[id] = &cachedTurns{turns: slices.Clone(turns)}
		c.bytes += held
	}
	c.mu.Unlock()
	return b, true
}

// maxCachedTurns bounds the runs of turns a StringCache keeps.
const maxCachedTurns = 1 << 12

// clearLocked empties the cache; the caller holds c.mu.
func (c *StringCache) clearLocked() {
	clear(c.m)
	clear(c.turns)
	c.bytes = 0
}

func idOf(s string) stringID { return stringID{unsafe.StringData(s), len(s)} }

// sameTurns reports whether a and b are the same strings (by identity).
func sameTurns(a, b []runtime.Message) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if idOf(a[i].Role) != idOf(b[i].Role) || idOf(a[i].Content) != idOf(b[i].Content) {
			return false
		}
	}
	return true
}

// append writes s as a JSON string (appendJSONString), from the cache
// when it holds s.
func (c *StringCache) append(b []byte, s string) []byte {
	if c == nil || len(s) < minCachedString {
		return appendJSONString(b, s)
	}
	id := stringID{unsafe.StringData(s), len(s)}
	c.mu.Lock()
	e, ok := c.m[id]
	c.mu.Unlock()
	if ok {
		return append(b, e.enc...)
	}
	start := len(b)
	b = appendJSONString(b, s)
	enc := slices.Clone(b[start:])
	c.mu.Lock()
	if c.bytes+len(enc) > maxCacheBytes {
		c.clearLocked()
	}
	c.m[id] = cachedString{s: s, enc: enc}
	c.bytes += len(enc)
	c.mu.Unlock()
	return b
}
