package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// ReadTaskForSummary reads task's samples file in dir as ReadTaskSamples
// does — the same checks, errors and handling of retried samples — but
// decodes only what a summary uses: task, id, repeat, index, scores,
// extraction, details, finish reason, thinking state, token counts, error
// and timings. The prompt, the generation settings, the response and the
// log-likelihood requests and results are left empty, so a run's largest
// fields are never decoded.
//
// With sort set it also leaves the file as RewriteSorted would, one line per
// key in (index, id, repeat) order, by moving the lines as they are (no
// re-encoding); a file already in that form is not rewritten.
func ReadTaskForSummary(dir, task string, sort bool) ([]Record, error) {
	path := SamplesPath(dir, task)
	if err := checkSamplesDir(path, false); err != nil {
		return nil, err
	}
	f, err := openResultFile(path, os.O_RDONLY, 0)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var (
		recs  []Record
		spans []span // spans[i] is the line of recs[i]
		seen  = map[Key]int{}
		r     = bufio.NewReaderSize(f, 1<<20)
		buf   []byte
		off   int64
		clean = true // one line per key, nothing else
	)
	for n := 1; ; n++ {
		line, err := readLine(r, buf[:0])
		buf = line
		if len(line) > 0 && line[len(line)-1] != '\n' {
			clean = false // torn tail: ignored, as ReadSamples does
			break
		}
		if len(line) > 0 {
			sp := span{off: off, len: len(line)}
			off += int64(len(line))
			if len(bytes.TrimSpace(line)) == 0 {
				clean = false
				continue
			}
			if !utf8.Valid(line) {
				return nil, &SampleError{Path: path, Line: n, Field: invalidUTF8Field(line), Err: errors.New("invalid UTF-8: not a line a run wrote")}
			}
			var rec Record
			if err := decodeSummaryFields(line, &rec); err != nil {
				return nil, &SampleError{Path: path, Line: n, Err: fmt.Errorf("malformed sample line: %w", err)}
			}
			if rec.ID == "" {
				return nil, &SampleError{Path: path, Line: n, Field: "id", Err: errors.New("missing")}
			}
			rec.Line = n
			if i, ok := seen[rec.Key()]; ok {
				if recs[i].Error == "" {
					return nil, &SampleError{Path: path, Line: n, Field: "id", Err: fmt.Errorf("second record of sample %s (repeat %d), which already has a result on line %d", rec.ID, rec.Repeat, recs[i].Line)}
				}
				clean = false // a retried sample: the new record replaces the error
				recs[i], spans[i] = rec, sp
				continue
			}
			seen[rec.Key()] = len(recs)
			recs = append(recs, rec)
			spans = append(spans, sp)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
	}
	for i := range recs {
		if err := checkRecord(path, task, &recs[i]); err != nil {
			return nil, err
		}
	}
	if !sort {
		return recs, nil
	}
	order := make([]int, len(recs))
	for i := range order {
		order[i] = i
	}
	less := func(a, b int) bool {
		ra, rb := &recs[a], &recs[b]
		if ra.Index != rb.Index {
			return ra.Index < rb.Index
		}
		if ra.ID != rb.ID {
			return ra.ID < rb.ID
		}
		return ra.Repeat < rb.Repeat
	}
	sorted := clean
	for i := 1; i < len(order) && sorted; i++ {
		sorted = !less(i, i-1)
	}
	if sorted {
		return recs, nil
	}
	sortStable(order, less)
	err = writeAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		for _, i := range order {
			line := make([]byte, spans[i].len)
			if _, err := f.ReadAt(line, spans[i].off); err != nil {
				return err
			}
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return nil, err
	}
	return recs, nil
}

// span is where a line lies in a file.
type span struct {
	off int64
	len int
}

func sortStable(order []int, less func(a, b int) bool) {
	sort.SliceStable(order, func(i, j int) bool { return less(order[i], order[j]) })
}

// readLine reads up to and including the next newline into buf (reused),
// or what is left at the end of the file.
func readLine(r *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := r.ReadSlice('\n')
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// decodeSummaryFields fills the summary fields of rec from one JSON line.
// A line that is not valid JSON, or whose summary fields have the wrong
// types, is decoded with encoding/json instead, for the same error
// ReadSamples gives.
func decodeSummaryFields(line []byte, rec *Record) error {
	fallback := func() error {
		var full Record
		if err := json.Unmarshal(line, &full); err != nil {
			return err
		}
		full.Messages, full.Prompt, full.RenderedPrompt, full.Loglik = nil, "", "", nil
		full.Response, full.Scored, full.LoglikResults, full.Target = "", nil, nil, ""
		*rec = full
		return nil
	}
	if !gjson.ValidBytes(line) {
		return fallback()
	}
	// Parsed in place (gjson.ParseBytes would copy the line): nothing
	// below keeps a string pointing into it — strings are cloned, objects
	// decoded from copies — and the caller reuses the buffer.
	doc := gjson.Parse(unsafe.String(unsafe.SliceData(line), len(line)))
	if !doc.IsObject() {
		return fallback()
	}
	ok := true
	str := func(v gjson.Result, dst *string) {
		switch v.Type {
		case gjson.String:
			// Cloned: a gjson string shares the memory of the line.
			*dst = strings.Clone(v.String())
		case gjson.Null:
			*dst = ""
		default:
			ok = false
		}
	}
	integer := func(v gjson.Result, dst *int) {
		if v.Type != gjson.Number || v.Raw != fmt.Sprint(v.Int()) {
			if v.Type != gjson.Null {
				ok = false
			}
			return
		}
		*dst = int(v.Int())
	}
	object := func(v gjson.Result, dst any) {
		if v.Type == gjson.Null {
			return
		}
		if !v.IsObject() || json.Unmarshal([]byte(v.Raw), dst) != nil {
			ok = false
		}
	}
	doc.ForEach(func(k, v gjson.Result) bool {
		switch k.String() {
		case "task":
			str(v, &rec.Task)
		case "id":
			str(v, &rec.ID)
		case "repeat":
			integer(v, &rec.Repeat)
		case "index":
			integer(v, &rec.Index)
		case "error":
			str(v, &rec.Error)
		case "scores":
			rec.Scores = nil
			object(v, &rec.Scores)
		case "extracted":
			str(v, &rec.Extracted)
		case "extraction_failed":
			switch v.Type {
			case gjson.True, gjson.False:
				rec.ExtractionFailed = v.Bool()
			case gjson.Null:
			default:
				ok = false
			}
		case "details":
			rec.Details = nil
			object(v, &rec.Details)
		case "retryable":
			switch v.Type {
			case gjson.True, gjson.False:
				rec.Retryable = v.Bool()
			case gjson.Null:
			default:
				ok = false
			}
		case "finish_reason":
			str(v, &rec.FinishReason)
		case "thinking":
			str(v, &rec.Thinking)
		case "prompt_tokens":
			integer(v, &rec.PromptTokens)
		case "completion_tokens":
			integer(v, &rec.CompletionTokens)
		case "timings":
			rec.Timings = nil
			object(v, &rec.Timings)
		}
		return ok
	})
	if !ok {
		return fallback()
	}
	return nil
}
