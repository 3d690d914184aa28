package runner

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"slices"
	"sync"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

// remember keeps the summary fields of the record written at position
// pos, as results.ReadTaskForSummary would read them back from the file.
// Positions are distinct per work item, so calls need no lock (the maps
// records share have their own: sharedMaps).
func (tf *taskFile) remember(pos int, rec *results.Record) {
	mem := tf.memory()
	if mem == nil {
		return
	}
	mem[pos] = tf.shared.record(rec)
	if tf.filled.Add(1) != int64(len(mem)) {
		return
	}
	// The task's last record: every other was remembered before its own
	// Add, so all of mem is visible here.
	if ts, missing, ok := tf.summarizeMemory(true); ok {
		tf.early = &earlySummary{ts: ts, missing: missing}
		// Nothing reads the task's samples any more (its work is done
		// and finalize uses this summary): a long run lets each task's
		// dataset go once the task is finished.
		d := tf.p.data
		tf.p.data = &evals.Dataset{Files: d.Files, Warnings: d.Warnings}
		// Nor the maps its records shared, nor the table of records
		// that waited for earlier ones (all are written).
		tf.shared = nil
		tf.mu.Lock()
		tf.pending = nil
		tf.mu.Unlock()
		if r, ok := tf.p.task.(evals.Releaser); ok {
			r.Release()
		}
	}
}

// memRecord is a record this run wrote, as a summary reads it
// (summaryRecord): about 150 bytes instead of a results.Record's 400,
// and its scores and details shared with the task's other records that
// have equal ones (sharedMaps), so that MMLU's 14,042 records take about
// 2 MB rather than 12 while the task runs.
type memRecord struct {
	id, extracted, err, finish, thinking string
	scores                               map[string]float64
	details                              map[string]any
	timings                              *runtime.Timings
	index, repeat                        int
	promptTokens, completionTokens       int
	extractionFailed, retryable          bool
}

// written reports whether the record was written (an unwritten position
// has no id: the run was interrupted).
func (m *memRecord) written() bool { return m.id != "" }

// record is m as the results.Record summaryRecord gives.
func (m *memRecord) record() results.Record {
	return results.Record{
		ID: m.id, Repeat: m.repeat, Index: m.index, Error: m.err, Extracted: m.extracted, ExtractionFailed: m.extractionFailed,
		Retryable: m.retryable, FinishReason: m.finish, Thinking: m.thinking, PromptTokens: m.promptTokens,
		CompletionTokens: m.completionTokens, Scores: m.scores, Details: m.details, Timings: m.timings,
	}
}

// sharedMaps hands out one map for equal score maps and equal flat
// details maps of a task's records: MMLU's 14,042 records have a few
// dozen distinct ones. Summaries only read them.
type sharedMaps struct {
	mu      sync.Mutex
	scores  map[string]map[string]float64
	details map[string]map[string]any
	key     []byte
	// The maps handed out last: a record most often has the scores or
	// details of the one before, which is found by comparing them
	// without making a key.
	lastScores  map[string]float64
	lastDetails map[string]any
}

// maxShared bounds the distinct maps a task's sharedMaps keeps.
const maxShared = 1 << 12

// record is rec's memRecord, its maps shared.
func (sm *sharedMaps) record(rec *results.Record) memRecord {
	// summaryRecord's fields, without the results.Record between.
	m := memRecord{
		id: jsonString(rec.ID), extracted: jsonString(rec.Extracted), err: jsonString(rec.Error),
		finish: jsonString(rec.FinishReason), thinking: jsonString(rec.Thinking),
		index: rec.Index, repeat: rec.Repeat, promptTokens: rec.PromptTokens, completionTokens: rec.CompletionTokens,
		extractionFailed: rec.ExtractionFailed, retryable: rec.Retryable,
	}
	if len(rec.Scores) > 0 {
		m.scores = rec.Scores
	}
	if rec.Timings != nil {
		t := *rec.Timings
		m.timings = &t
	}
	if len(m.scores) == 0 && len(rec.Details) == 0 {
		return m
	}
	sm.mu.Lock()
	m.scores = sm.shareScores(m.scores)
	switch d := rec.Details; {
	case len(d) == 0:
	case equalFlat(d, sm.lastDetails):
		// Most often the details of the record before; equal to a flat
		// map, they are flat too (no flatJSON pass).
		m.details = sm.lastDetails
	case flatJSON(d):
		// Already as JSON would give it back: shared, as the scores.
		if len(d) <= maxSharedKeys {
			d = sm.shareFlatByKey(d)
			sm.lastDetails = d
		}
		m.details = d
	default:
		// The JSON round trip allocates: not under the lock.
		sm.mu.Unlock()
		d = summaryDetails(d)
		sm.mu.Lock()
		m.details = sm.shareDetails(d)
	}
	sm.mu.Unlock()
	return m
}

// equalScores reports whether a and b have the same keys and the same
// float64 bits.
func equalScores(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok || math.Float64bits(v) != math.Float64bits(w) {
			return false
		}
	}
	return true
}

// equalFlat reports whether the flat details maps a and b (flatJSON) have
// the same keys and values of the same type and value (float64s of the
// same bits).
func equalFlat(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		w, ok := b[k]
		if !ok {
			return false
		}
		switch v := v.(type) {
		case float64:
			if w, ok := w.(float64); !ok || math.Float64bits(v) != math.Float64bits(w) {
				return false
			}
		default:
			if v != w {
				return false
			}
		}
	}
	return true
}

// maxSharedKeys bounds the keys of a shared map.
const maxSharedKeys = 16

// sortedKeys are the keys of m in order, in ks when they fit.
func sortedKeys[V any](m map[string]V, ks *[maxSharedKeys]string) []string {
	keys := ks[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// shareScores returns the scores map equal to m (the same keys, the same
// float64 bits) that sm keeps, keeping m when there is none; the caller
// holds sm.mu.
func (sm *sharedMaps) shareScores(m map[string]float64) map[string]float64 {
	if len(m) == 0 || len(m) > maxSharedKeys {
		return m
	}
	if equalScores(m, sm.lastScores) {
		return sm.lastScores
	}
	m = sm.shareScoresByKey(m)
	sm.lastScores = m
	return m
}

// shareScoresByKey is shareScores through the table of keys.
func (sm *sharedMaps) shareScoresByKey(m map[string]float64) map[string]float64 {
	var ks [maxSharedKeys]string
	b := sm.key[:0]
	for _, k := range sortedKeys(m, &ks) {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m[k]))
	}
	sm.key = b
	if v, ok := sm.scores[string(b)]; ok {
		return v
	}
	if sm.scores == nil {
		sm.scores = map[string]map[string]float64{}
	}
	if len(sm.scores) < maxShared {
		sm.scores[string(b)] = m
	}
	return m
}

// shareDetails is shareScores for a flat details map (flatJSON: string,
// boolean, nil and float64 values); the caller holds sm.mu.
func (sm *sharedMaps) shareDetails(m map[string]any) map[string]any {
	if len(m) == 0 || len(m) > maxSharedKeys || !flatJSON(m) {
		return m
	}
	return sm.shareFlatDetails(m)
}

// shareFlatDetails is shareDetails for a map known to be flat.
func (sm *sharedMaps) shareFlatDetails(m map[string]any) map[string]any {
	if len(m) == 0 || len(m) > maxSharedKeys {
		return m
	}
	if equalFlat(m, sm.lastDetails) {
		return sm.lastDetails
	}
	m = sm.shareFlatByKey(m)
	sm.lastDetails = m
	return m
}

// shareFlatByKey is shareFlatDetails through the table of keys.
func (sm *sharedMaps) shareFlatByKey(m map[string]any) map[string]any {
	var ks [maxSharedKeys]string
	b := sm.key[:0]
	for _, k := range sortedKeys(m, &ks) {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		switch v := m[k].(type) {
		case nil:
			b = append(b, 'n')
		case bool:
			b = append(b, 'b')
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case string:
			b = append(b, 's')
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
		case float64:
			b = append(b, 'f')
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	sm.key = b
	if v, ok := sm.details[string(b)]; ok {
		return v
	}
	if sm.details == nil {
		sm.details = map[string]map[string]any{}
	}
	if len(sm.details) < maxShared {
		sm.details[string(b)] = m
	}
	return m
}

// summaryRecord is rec as results.ReadTaskForSummary decodes it from the
// line results.EncodeLine wrote: the summary fields only, with what the
// JSON round trip changes changed the same way (details decoded from
// JSON, strings with invalid UTF-8 as JSON encodes them).
func summaryRecord(rec *results.Record) results.Record {
	r := results.Record{
		Task: jsonString(rec.Task), ID: jsonString(rec.ID), Repeat: rec.Repeat, Index: rec.Index,
		Error: jsonString(rec.Error), Extracted: jsonString(rec.Extracted), ExtractionFailed: rec.ExtractionFailed,
		Retryable: rec.Retryable, FinishReason: jsonString(rec.FinishReason), Thinking: jsonString(rec.Thinking),
		PromptTokens: rec.PromptTokens, CompletionTokens: rec.CompletionTokens,
	}
	if len(rec.Scores) > 0 {
		// Shared, not copied: the record is dropped once it is written
		// and remembered, and nothing changes its scores (a float64
		// survives the JSON round trip unchanged).
		r.Scores = rec.Scores
	}
	if rec.Timings != nil {
		t := *rec.Timings
		r.Timings = &t
	}
	if len(rec.Details) > 0 {
		// Numbers become float64, lists []any: what aggregators see when
		// they read a samples file.
		if flatJSON(rec.Details) {
			// Already as JSON would give it back: shared, as the scores.
			r.Details = rec.Details
		} else {
			r.Details = summaryDetails(rec.Details)
		}
	}
	return r
}

// summaryDetails is details that are not flat (flatJSON) after a JSON
// round trip.
func summaryDetails(details map[string]any) map[string]any {
	if d, ok := roundTripped(details); ok {
		return d.(map[string]any)
	}
	var out map[string]any
	if b, err := json.Marshal(details); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	return out
}

// flatJSON reports whether m's keys and values come back from a JSON
// round trip as they are: UTF-8 keys, and values that are UTF-8 strings,
// booleans, nil or finite float64s.
func flatJSON(m map[string]any) bool {
	for k, v := range m {
		if !utf8.ValidString(k) {
			return false
		}
		switch v := v.(type) {
		case nil, bool:
		case string:
			if !utf8.ValidString(v) {
				return false
			}
		case float64:
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// roundTripped is v after a JSON round trip (encoding/json into an any), for
// the kinds of values scorers put in details; ok is false for any other,
// which the caller round-trips through JSON.
func roundTripped(v any) (any, bool) {
	switch v := v.(type) {
	case nil, bool:
		return v, true
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case int:
		return float64(v), true
	case string:
		return v, utf8.ValidString(v)
	case []string:
		out := make([]any, len(v))
		for i, x := range v {
			if !utf8.ValidString(x) {
				return nil, false
			}
			out[i] = x
		}
		return out, true
	case []bool:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = x
		}
		return out, true
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			y, ok := roundTripped(x)
			if !ok {
				return nil, false
			}
			out[i] = y
		}
		return out, true
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			y, ok := roundTripped(x)
			if !ok || !utf8.ValidString(k) {
				return nil, false
			}
			out[k] = y
		}
		return out, true
	}
	return nil, false
}

// jsonString is s after a JSON round trip: unchanged unless it holds
// invalid UTF-8, which encoding replaces.
func jsonString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	b, _ := json.Marshal(s)
	var out string
	_ = json.Unmarshal(b, &out)
	return out
}

// memory returns mem, allocating it on first use for a fresh file (nil
// for another, and once the task's summary was made from it).
func (tf *taskFile) memory() []memRecord {
	tf.memOnce.Do(func() {
		if tf.fresh {
			tf.mem = make([]memRecord, tf.count)
		}
	})
	return tf.mem
}

// summarizeMemory summarises the task from the records in memory, when
// they are all of the file and the file needs no sorting (finished says
// the file must end sorted, as results.ReadTaskForSummary leaves it);
// ok is false when the file must be read back instead. The records are
// let go either way: mem is not read again.
func (tf *taskFile) summarizeMemory(finished bool) (ts *results.TaskSummary, missing int, ok bool) {
	if !tf.fresh || tf.memory() == nil {
		return nil, 0, false
	}
	mem := tf.mem
	tf.mem, tf.shared = nil, nil
	tf.mu.Lock()
	unordered := tf.unordered
	tf.mu.Unlock()
	if finished && unordered {
		return nil, 0, false
	}
	var prev *memRecord
	for i := range mem {
		r := &mem[i]
		if !r.written() {
			continue // not written (the run was interrupted)
		}
		if finished && prev != nil && !sortedAfter(prev, r) {
			return nil, 0, false
		}
		prev = r
	}
	// The records are at their work items' positions: the selected
	// samples in dataset order, each repeat in turn.
	p := tf.p
	repeats := tf.repeats
	var rec results.Record
	ts, missing = summarize(p.task, p.data, p.selected, repeats, func(pos int, s evals.Sample, rep int) *results.Record {
		if pos >= len(mem) {
			return nil
		}
		m := &mem[pos]
		// As a record read back is found: by its id (as JSON gives it
		// back) and repeat.
		if !m.written() || m.id != s.ID || m.repeat != rep {
			return nil
		}
		rec = m.record()
		return &rec
	})
	ts.Warnings = append(ts.Warnings, p.data.Warnings...)
	return ts, missing, true
}

// sortedAfter reports whether b may follow a in a sorted samples file
// (index, id, repeat).
func sortedAfter(a, b *memRecord) bool {
	if a.index != b.index {
		return a.index < b.index
	}
	if a.id != b.id {
		return a.id < b.id
	}
	return a.repeat < b.repeat
}

// isUnordered reports whether the file gave up writing in order.
func (tf *taskFile) isUnordered() bool {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	return tf.unordered
}
