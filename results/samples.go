package results

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/runtime"
)

// Record is one line of samples/<task>.jsonl. Timing fields live in
// Timings, last, so that two runs can be compared byte for byte apart from
// them.
type Record struct {
	Task   string `json:"task"`
	ID     string `json:"id"`
	Repeat int    `json:"repeat,omitempty"`
	// Index is the sample's position in the dataset (for ordering).
	Index int `json:"index"`
	// Prompt is the exact rendered request: chat messages or a raw prompt.
	Messages []runtime.Message `json:"messages,omitempty"`
	Prompt   string            `json:"prompt,omitempty"`
	// RenderedPrompt is the exact text the runtime's chat template made of
	// Messages (what was tokenized), when the runtime renders it.
	RenderedPrompt string `json:"rendered_prompt,omitempty"`
	// Gen is the generation settings the request carried — token limit,
	// temperature, top_p, seed and stop sequences — as the runtime got
	// them (nil in log-likelihood mode).
	Gen *runtime.GenConfig `json:"gen,omitempty"`
	// Loglik holds the log-likelihood requests in log-likelihood mode.
	Loglik []runtime.LoglikRequest `json:"loglik_requests,omitempty"`
	// Response is the raw model output; Scored is what the scorer saw
	// after post-processing (omitted when identical).
	Response string  `json:"response"`
	Scored   *string `json:"scored_text,omitempty"`
	// ToolCalls are the function calls the runtime parsed out of the
	// output (a request with tools); Response is then the content outside
	// them and RawResponse the whole output they were parsed from (when
	// the runtime kept it: runtime.Response.Raw).
	ToolCalls   []runtime.ToolCall `json:"tool_calls,omitempty"`
	RawResponse string             `json:"raw_response,omitempty"`
	// Thinking is the response's reasoning block state: "" (none),
	// "closed", "truncated" (cut by the token limit) or "unterminated".
	Thinking         string                 `json:"thinking,omitempty"`
	LoglikResults    []runtime.LoglikResult `json:"loglik_results,omitempty"`
	Extracted        string                 `json:"extracted,omitempty"`
	ExtractionFailed bool                   `json:"extraction_failed,omitempty"`
	Target           string                 `json:"target,omitempty"`
	Scores           map[string]float64     `json:"scores"`
	Details          map[string]any         `json:"details,omitempty"`
	FinishReason     string                 `json:"finish_reason,omitempty"`
	PromptTokens     int                    `json:"prompt_tokens,omitempty"`
	CompletionTokens int                    `json:"completion_tokens,omitempty"`
	Error            string                 `json:"error,omitempty"`
	// Retryable marks an Error a later attempt may not meet (a timeout,
	// a transport failure; runtime.Transient); other errors fail the same
	// way every time.
	Retryable bool             `json:"retryable,omitempty"`
	Timings   *runtime.Timings `json:"timings,omitempty"`

	// Line is the 1-based line the record was read from (0 for a record
	// not read from a file); it is not written.
	Line int `json:"-"`
}

// Key identifies a record within a task.
type Key struct {
	ID     string
	Repeat int
}

// Compare orders keys by id, then repeat: the order records are written
// and reported in (for slices.SortedFunc and the like).
func (k Key) Compare(o Key) int {
	if c := strings.Compare(k.ID, o.ID); c != 0 {
		return c
	}
	return cmp.Compare(k.Repeat, o.Repeat)
}

// Key returns the record's key.
func (r *Record) Key() Key { return Key{r.ID, r.Repeat} }

// SamplesPath returns the samples file of task in dir. A name that is
// not a task name (a manifest's, read from a run directory, may be
// anything) never reaches the path: each byte other than a lowercase
// letter, a digit, "_" or "-" becomes "%XX", so "../x" is "%2E%2E%2Fx",
// a file inside samples/ that no run writes.
func SamplesPath(dir, task string) string {
	return filepath.Join(dir, SamplesDir, safeName(task)+".jsonl")
}

func safeName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' && i > 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	if b.Len() == 0 {
		return "%"
	}
	return b.String()
}

// ReadReport describes what ReadSamples found besides good records.
type ReadReport struct {
	// TornBytes is the size of an incomplete last line that was ignored.
	TornBytes int
	// Duplicates counts lines whose key was seen before, all retries of
	// a failed sample: the record without an error is kept, else the
	// last one.
	Duplicates int
	// GoodBytes is the length of the prefix made of complete lines.
	GoodBytes int64
}

// ReadSamples reads a samples file. A missing file yields no records. An
// incomplete (torn) last line is ignored and reported; a malformed complete
// line is an error naming the file and line.
//
// A key (id and repeat) may appear again only after errors: the runner
// retries a failed sample and appends the new record, but never writes a
// second record for a sample that has one without an error. So a line
// following a successful record of its key is a *SampleError naming both
// lines, whatever it says: two runs wrote the file, or it was edited.
//
// The file must be a regular file inside a samples directory that is not
// a symbolic link (see NotRegularError).
func ReadSamples(path string) ([]Record, ReadReport, error) {
	var rep ReadReport
	if err := checkSamplesDir(path, false); err != nil {
		return nil, rep, err
	}
	f, err := openResultFile(path, os.O_RDONLY, 0)
	if os.IsNotExist(err) {
		return nil, rep, nil
	}
	if err != nil {
		return nil, rep, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var recs []Record
	seen := map[Key]int{}
	line := 0
	for {
		b, err := readLineMax(r, MaxSampleLine)
		if errors.Is(err, errLongLine) {
			return nil, rep, &SampleError{Path: path, Line: line + 1, Err: fmt.Errorf("line longer than %d bytes: not a line a run wrote", MaxSampleLine)}
		}
		if len(b) > 0 && b[len(b)-1] != '\n' {
			// Torn tail: written partially before a crash.
			rep.TornBytes = len(b)
			break
		}
		if len(b) > 0 {
			line++
			rep.GoodBytes += int64(len(b))
			if len(bytes.TrimSpace(b)) == 0 {
				continue
			}
			if !utf8.Valid(b) {
				// Runs write valid UTF-8; decoding would turn the bytes
				// into U+FFFD and change a stored answer without a word.
				return nil, rep, &SampleError{Path: path, Line: line, Field: invalidUTF8Field(b), Err: errors.New("invalid UTF-8: not a line a run wrote")}
			}
			var rec Record
			if jerr := json.Unmarshal(b, &rec); jerr != nil {
				return nil, rep, &SampleError{Path: path, Line: line, Err: fmt.Errorf("malformed sample line: %w", jerr)}
			}
			if rec.ID == "" {
				return nil, rep, &SampleError{Path: path, Line: line, Field: "id", Err: errors.New("missing")}
			}
			rec.Line = line
			if i, ok := seen[rec.Key()]; ok {
				if recs[i].Error == "" {
					return nil, rep, &SampleError{Path: path, Line: line, Field: "id", Err: fmt.Errorf("second record of sample %s (repeat %d), which already has a result on line %d", rec.ID, rec.Repeat, recs[i].Line)}
				}
				// A retried sample: the new record replaces the error.
				rep.Duplicates++
				recs[i] = rec
				continue
			}
			seen[rec.Key()] = len(recs)
			recs = append(recs, rec)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, rep, fmt.Errorf("read %s: %w", path, err)
		}
	}
	return recs, rep, nil
}

// MaxSampleLine bounds one samples line (64 MiB): a longer one is refused
// before it is held whole.
const MaxSampleLine = 64 << 20

var errLongLine = errors.New("line too long")

// readLineMax is r.ReadBytes('\n') refusing a line over max bytes.
func readLineMax(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, errLongLine
		}
		line = append(line, chunk...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// invalidUTF8Field names the top-level field of a JSON line whose value
// holds invalid UTF-8 ("" when the line is not an object or a key is).
func invalidUTF8Field(line []byte) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(line, &m) != nil {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if !utf8.Valid(v) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return ""
	}
	return keys[0]
}

// Sync cadence of a SampleWriter: lines are written as they are appended
// (one write(2), or one writev(2) for lines appended together), and the
// file is fsynced once SyncInterval has
// passed or SyncBytes have been written since the last fsync, and on Close.
const (
	SyncInterval = time.Second
	SyncBytes    = 4 << 20
)

// SampleWriter appends records to one samples file. It is safe for
// concurrent use.
//
// Durability: Append (AppendLines) returns once its line (lines) is
// written with a single write(2) (writev(2), up to 1,024 lines a call), so
// the line is in the kernel's page cache and survives the
// process being killed at any moment (kill -9, a crash, an OOM kill); a
// concurrent or later crash leaves at most a torn last line, which the next
// run cuts off. Against a power loss or kernel crash, lines are fsynced on
// a cadence (SyncInterval, SyncBytes) and on Close, so at most the last
// second or 4 MiB of records can be lost; the run then resumes and
// recomputes them.
type SampleWriter struct {
	f    *os.File
	path string
	// sync is f.Sync, replaceable in tests.
	sync func() error

	mu       sync.Mutex // guards the write and the cadence state
	unsynced int64
	lastSync time.Time
	syncing  sync.Mutex // held by the goroutine that is fsyncing

	// digest hashes every byte written to a file opened empty, so that
	// the file's sha256 is known without reading it back (Digest); nil
	// for a file that had content, or once a write failed.
	digest hash.Hash
}

// OpenSampleWriter opens path for appending, first cutting off a torn tail
// of goodBytes (from ReadSamples) so the next line starts clean.
func OpenSampleWriter(path string, goodBytes int64) (*SampleWriter, error) {
	if err := checkSamplesDir(path, true); err != nil {
		return nil, err
	}
	f, err := openResultFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(goodBytes); err != nil {
		f.Close()
		return nil, fmt.Errorf("truncate torn tail of %s: %w", path, err)
	}
	if _, err := f.Seek(goodBytes, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	w := &SampleWriter{f: f, path: path, sync: f.Sync, lastSync: time.Now()}
	if goodBytes == 0 {
		w.digest = sha256.New()
	}
	return w, nil
}

// Append writes one record as one line (see SampleWriter for what is
// durable when).
func (w *SampleWriter) Append(rec *Record) error {
	data, err := EncodeLine(rec)
	if err != nil {
		return err
	}
	return w.AppendLine(data)
}

// AppendLine writes a line made by EncodeLine, as Append does.
func (w *SampleWriter) AppendLine(data []byte) error {
	return w.AppendLines([][]byte{data})
}

// AppendLines writes lines made by EncodeLine, in order, with one
// writev(2) for up to 1024 of them (group commit: lines that became ready
// while an earlier write was under way go to the kernel together). A
// crash leaves at most a torn tail, as with AppendLine.
func (w *SampleWriter) AppendLines(lines [][]byte) error {
	if len(lines) == 0 {
		return nil
	}
	w.mu.Lock()
	err := writeLines(w.f, lines) // one writev(2): a crash leaves at most a torn tail
	for _, l := range lines {
		w.unsynced += int64(len(l))
		if w.digest == nil {
			continue
		}
		if err != nil {
			w.digest = nil
		} else {
			w.digest.Write(l)
		}
	}
	due := w.unsynced >= SyncBytes || time.Since(w.lastSync) >= SyncInterval
	w.mu.Unlock()
	if err != nil {
		return fmt.Errorf("append to %s: %w", w.path, err)
	}
	// One goroutine fsyncs while the others go on appending.
	if due && w.syncing.TryLock() {
		defer w.syncing.Unlock()
		return w.syncNow()
	}
	return nil
}

// syncNow fsyncs; the caller holds w.syncing.
func (w *SampleWriter) syncNow() error {
	w.mu.Lock()
	w.unsynced, w.lastSync = 0, time.Now()
	w.mu.Unlock()
	if err := w.sync(); err != nil {
		return fmt.Errorf("sync %s: %w", w.path, err)
	}
	return nil
}

// Sync fsyncs everything appended so far.
func (w *SampleWriter) Sync() error {
	w.syncing.Lock()
	defer w.syncing.Unlock()
	return w.syncNow()
}

// Digest returns the sha256 (hex) of what the writer wrote, which is the
// file's content when it was opened empty and nothing else wrote to it;
// ok is false when the writer does not know it (the file had content, a
// write failed).
func (w *SampleWriter) Digest() (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.digest == nil {
		return "", false
	}
	return hex.EncodeToString(w.digest.Sum(nil)), true
}

// Close fsyncs and closes the file.
func (w *SampleWriter) Close() error {
	err := w.Sync()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// RewriteSorted atomically rewrites path with recs ordered by (Index,
// Repeat), one line each.
func RewriteSorted(path string, recs []Record) error {
	sorted := append([]Record(nil), recs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		if sorted[i].Index != sorted[j].Index {
			return sorted[i].Index < sorted[j].Index
		}
		if sorted[i].ID != sorted[j].ID {
			return sorted[i].ID < sorted[j].ID
		}
		return sorted[i].Repeat < sorted[j].Repeat
	})
	var buf []byte
	cache := NewStringCache()
	for i := range sorted {
		var err error
		if buf, err = AppendLine(buf, &sorted[i], cache); err != nil {
			return err
		}
	}
	return WriteFileAtomic(path, buf)
}

// checkSamplesDir refuses a samples directory (the parent of path) that is
// a symbolic link or not a directory: its files would be read or written
// elsewhere. create makes it when missing.
func checkSamplesDir(path string, create bool) error {
	dir := filepath.Dir(path)
	if create {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return err
		}
	}
	st, err := os.Lstat(dir)
	switch {
	case os.IsNotExist(err):
		return nil
	case err != nil:
		return err
	case !st.IsDir():
		return &NotRegularError{Path: dir, Kind: regfile.Kind(st.Mode()), Want: "a directory"}
	}
	return nil
}
