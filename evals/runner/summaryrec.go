package runner

import (
	"encoding/json"
	"math"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
)

// remember keeps the summary fields of the record written at position
// pos, as results.ReadTaskForSummary would read them back from the file.
// Positions are distinct per work item, so calls need no lock.
func (tf *taskFile) remember(pos int, rec *results.Record) {
	mem := tf.memory()
	if mem == nil {
		return
	}
	mem[pos] = summaryRecord(rec)
	if tf.filled.Add(1) != int64(len(mem)) {
		return
	}
	// The task's last record: every other was remembered before its own
	// Add, so all of mem is visible here.
	if recs, ok := tf.memRecords(true); ok {
		ts, missing := summarizeTask(tf.p, tf.repeats, recs)
		tf.early = &earlySummary{ts: ts, missing: missing}
		// Nothing reads the task's samples any more (its work is done
		// and finalize uses this summary): a long run lets each task's
		// dataset go once the task is finished.
		d := tf.p.data
		tf.p.data = &evals.Dataset{Files: d.Files, Warnings: d.Warnings}
	}
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
		} else if d, ok := roundTripped(rec.Details); ok {
			r.Details = d.(map[string]any)
		} else if b, err := json.Marshal(rec.Details); err == nil {
			_ = json.Unmarshal(b, &r.Details)
		}
	}
	return r
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
func (tf *taskFile) memory() []results.Record {
	tf.memOnce.Do(func() {
		if tf.fresh {
			tf.mem = make([]results.Record, tf.count)
		}
	})
	return tf.mem
}

// memRecords returns the task's records from memory, in file order, when
// they are all of the file and the file needs no sorting (finished says
// the file must end sorted, as results.ReadTaskForSummary leaves it);
// ok is false when the file must be read back instead.
func (tf *taskFile) memRecords(finished bool) ([]results.Record, bool) {
	if !tf.fresh || tf.memory() == nil {
		return nil, false
	}
	tf.mu.Lock()
	unordered := tf.unordered
	tf.mu.Unlock()
	if finished && unordered {
		return nil, false
	}
	var prev *results.Record
	for i := range tf.mem {
		r := &tf.mem[i]
		if r.ID == "" {
			continue // not written (the run was interrupted)
		}
		if finished && prev != nil && !sortedAfter(prev, r) {
			return nil, false
		}
		prev = r
	}
	// The records are moved to the front of mem rather than copied: mem
	// is not read again once its records were taken (the summary is
	// made from them, and mem let go).
	recs := tf.mem[:0]
	for i := range tf.mem {
		if tf.mem[i].ID == "" {
			continue
		}
		recs = append(recs, tf.mem[i])
		recs[len(recs)-1].Line = len(recs)
	}
	clear(tf.mem[len(recs):])
	tf.mem = nil
	return recs, true
}

// sortedAfter reports whether b may follow a in a sorted samples file
// (index, id, repeat).
func sortedAfter(a, b *results.Record) bool {
	if a.Index != b.Index {
		return a.Index < b.Index
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return a.Repeat < b.Repeat
}

// isUnordered reports whether the file gave up writing in order.
func (tf *taskFile) isUnordered() bool {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	return tf.unordered
}
