package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/stats"
)

func line(t *testing.T, r Record) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "samples", "task.jsonl")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func rec(id string, repeat int, err string) Record {
	r := Record{Task: "task", ID: id, Repeat: repeat, Scores: map[string]float64{"acc": 1}, Error: err}
	if err != "" {
		r.Scores = map[string]float64{}
	}
	return r
}

func TestReadSamplesMissingFile(t *testing.T) {
	t.Parallel()
	recs, rep, err := ReadSamples(filepath.Join(t.TempDir(), "none.jsonl"))
	if err != nil || len(recs) != 0 || rep != (ReadReport{}) {
		t.Errorf("missing file: %v %+v %v, want nothing", recs, rep, err)
	}
}

// TestReadSamplesTornLine: a crash mid-write leaves a last line without a
// newline; it is reported and not read, and GoodBytes ends before it.
func TestReadSamplesTornLine(t *testing.T) {
	t.Parallel()
	good := line(t, rec("0", 0, "")) + line(t, rec("1", 0, ""))
	torn := line(t, rec("2", 0, ""))
	for _, cut := range []int{1, len(torn) / 2, len(torn) - 1} {
		path := writeFile(t, good+torn[:cut])
		recs, rep, err := ReadSamples(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 2 || rep.TornBytes != cut || rep.GoodBytes != int64(len(good)) {
			t.Errorf("cut %d: %d records, report %+v; want 2, torn %d, good %d", cut, len(recs), rep, cut, len(good))
		}
	}
}

// TestSampleWriterCutsTornTail: opening a writer at GoodBytes drops the torn
// tail, so the next record starts on a clean line.
func TestSampleWriterCutsTornTail(t *testing.T) {
	t.Parallel()
	good := line(t, rec("0", 0, ""))
	path := writeFile(t, good+`{"task":"task","id":"1","sco`)
	_, rep, err := ReadSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := OpenSampleWriter(path, rep.GoodBytes)
	if err != nil {
		t.Fatal(err)
	}
	r1 := rec("1", 0, "")
	if err := w.Append(&r1); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := good + line(t, r1); string(data) != want {
		t.Errorf("file after repair:\n%s\nwant\n%s", data, want)
	}
}

func TestReadSamplesMalformed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, content, want string }{
		{"bad json", line(t, rec("0", 0, "")) + "{not json}\n", "task.jsonl:2: malformed sample line"},
		{"no id", line(t, rec("0", 0, "")) + "\n" + `{"task":"task","scores":{}}` + "\n", `task.jsonl:3: field "id": missing`},
	} {
		_, _, err := ReadSamples(writeFile(t, c.content))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}

// TestReadSamplesDuplicates: a retried sample appears again after its
// errors; the success, else the latest error, is kept and every extra line
// is counted. A line after a success of its key is refused with both line
// numbers: the runner never writes one, so the file was written twice or
// edited (issue 21: the second, "correct" copy used to pass silently).
func TestReadSamplesDuplicates(t *testing.T) {
	t.Parallel()
	ok, bad, worse := rec("a", 0, ""), rec("a", 0, "runtime: boom"), rec("a", 0, "runtime: worse")
	later := ok
	later.Response = "later"
	for _, c := range []struct {
		name    string
		lines   []Record
		wantErr string
		wantRsp string
		refused string
	}{
		{"error then success", []Record{bad, ok}, "", "", ""},
		{"two errors keep the latest", []Record{bad, worse}, "runtime: worse", "", ""},
		{"errors then success", []Record{bad, worse, ok}, "", "", ""},
		{"success then error", []Record{ok, bad}, "", "", "task.jsonl:2: field \"id\": second record of sample a (repeat 0), which already has a result on line 1"},
		{"two successes", []Record{ok, later}, "", "", "task.jsonl:2: field \"id\""},
		{"success after a retry", []Record{bad, ok, later}, "", "", "task.jsonl:3: field \"id\": second record of sample a (repeat 0), which already has a result on line 2"},
	} {
		var b strings.Builder
		for _, r := range c.lines {
			b.WriteString(line(t, r))
		}
		b.WriteString(line(t, rec("a", 1, ""))) // another repeat: not a duplicate
		recs, rep, err := ReadSamples(writeFile(t, b.String()))
		if c.refused != "" {
			var se *SampleError
			if !errors.As(err, &se) || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("%s: err = %v, want a *SampleError %q", c.name, err, c.refused)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(recs) != 2 || rep.Duplicates != len(c.lines)-1 {
			t.Errorf("%s: %d records, %d duplicates", c.name, len(recs), rep.Duplicates)
			continue
		}
		if recs[0].Error != c.wantErr || recs[0].Response != c.wantRsp {
			t.Errorf("%s: kept %+v", c.name, recs[0])
		}
	}
}

// TestRewriteSorted: records come back ordered by dataset index, then id,
// then repeat, whatever order they finished in; rewriting what was read
// gives the same bytes (round trip).
func TestRewriteSorted(t *testing.T) {
	t.Parallel()
	var recs []Record
	for _, k := range []struct {
		idx, rep int
		id       string
	}{{2, 1, "c"}, {0, 0, "a"}, {2, 0, "c"}, {1, 0, "b2"}, {1, 0, "b1"}} {
		r := rec(k.id, k.rep, "")
		r.Index = k.idx
		recs = append(recs, r)
	}
	path := filepath.Join(t.TempDir(), "task.jsonl")
	if err := RewriteSorted(path, recs); err != nil {
		t.Fatal(err)
	}
	got, _, err := ReadSamples(path)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range got {
		order = append(order, fmt.Sprintf("%d/%s/%d", r.Index, r.ID, r.Repeat))
	}
	if want := "0/a/0 1/b1/0 1/b2/0 2/c/0 2/c/1"; strings.Join(order, " ") != want {
		t.Errorf("order %v, want %s", order, want)
	}
	first, _ := os.ReadFile(path)
	if err := RewriteSorted(path, got); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	if !bytes.Equal(first, second) {
		t.Errorf("rewrite is not a round trip:\n%s\n---\n%s", first, second)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// TestSampleWriterConcurrent: concurrent appends each land as one whole
// line (group commit shares fsyncs, never lines).
func TestSampleWriterConcurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "samples", "task.jsonl")
	w, err := OpenSampleWriter(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rec(fmt.Sprint(i), 0, "")
			r.Response = strings.Repeat("x", 1000*(i%5))
			if err := w.Append(&r); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	w.Close()
	recs, rep, err := ReadSamples(path)
	if err != nil || len(recs) != 64 || rep.TornBytes != 0 || rep.Duplicates != 0 {
		t.Errorf("%d records, report %+v, err %v", len(recs), rep, err)
	}
}

// TestSchemaVersions: files of this and older versions are read (a file
// without schema_version is version 0); a newer one is refused with
// ErrNewerSchema; writers stamp the current version.
func TestSchemaVersions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	m := &Manifest{Status: StatusComplete, Start: time.Unix(0, 0).UTC(), Config: Config{Runtime: "fake"}}
	if err := WriteManifest(dir, m); err != nil {
		t.Fatal(err)
	}
	s := &Summary{Complete: true, Tasks: map[string]*TaskSummary{"t": {PrimaryMetric: "acc", Metrics: map[string]stats.Summary{"acc": {Mean: 0.5, N: 2}}}}, Order: []string{"t"}}
	if err := WriteSummary(dir, s); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{ManifestFile, SummaryFile} {
		var head struct {
			V *int `json:"schema_version"`
		}
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if json.Unmarshal(b, &head); head.V == nil || *head.V != SchemaVersion {
			t.Errorf("%s: schema_version %v, want %d", f, head.V, SchemaVersion)
		}
	}
	if got, err := ReadManifest(dir); err != nil || got.Config.Runtime != "fake" {
		t.Errorf("ReadManifest: %+v, %v", got, err)
	}
	if got, err := ReadSummary(dir); err != nil || got.Tasks["t"].Metrics["acc"].Mean != 0.5 {
		t.Errorf("ReadSummary: %+v, %v", got, err)
	}

	old := t.TempDir()
	os.WriteFile(filepath.Join(old, ManifestFile), []byte(`{"status":"complete","config":{"runtime":"old"}}`), 0o644)
	if got, err := ReadManifest(old); err != nil || got.Config.Runtime != "old" || got.SchemaVersion != 0 {
		t.Errorf("version-0 manifest: %+v, %v", got, err)
	}

	newer := t.TempDir()
	for _, f := range []string{ManifestFile, SummaryFile} {
		os.WriteFile(filepath.Join(newer, f), []byte(fmt.Sprintf(`{"schema_version":%d}`, SchemaVersion+1)), 0o644)
	}
	if _, err := ReadManifest(newer); !errors.Is(err, ErrNewerSchema) || !strings.Contains(err.Error(), ManifestFile) {
		t.Errorf("newer manifest: err = %v, want ErrNewerSchema naming the file", err)
	}
	if _, err := ReadSummary(newer); !errors.Is(err, ErrNewerSchema) {
		t.Errorf("newer summary: err = %v, want ErrNewerSchema", err)
	}
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, SummaryFile), []byte(`{"schema_version":`), 0o644)
	if _, err := ReadSummary(broken); err == nil || !strings.Contains(err.Error(), SummaryFile) {
		t.Errorf("truncated summary: err = %v, want an error naming the file", err)
	}
	if _, err := ReadSummary(t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing summary: err = %v, want ErrNotExist", err)
	}
}

// TestFingerprint: the limit and per-task sample counts do not change a
// configuration's identity (a resumed run may extend the limit); anything
// that changes outputs does, and Diff names it.
func TestFingerprint(t *testing.T) {
	t.Parallel()
	base := Config{Runtime: "llamacpp", Generation: runtime.GenConfig{MaxTokens: 64}, Mode: "gen",
		Tasks: []TaskConfig{{Name: "gsm8k", Version: "1", PromptHash: "aa", Samples: 10}}, Limit: 10}
	same := base
	same.Limit = 50
	same.Tasks = []TaskConfig{{Name: "gsm8k", Version: "1", PromptHash: "aa", Samples: 50}}
	if base.Fingerprint() != same.Fingerprint() {
		t.Error("the limit changed the fingerprint")
	}
	if len(base.Diff(same)) != 0 {
		t.Errorf("Diff = %v, want none", base.Diff(same))
	}
	other := base
	other.Generation.MaxTokens = 65
	other.Tasks = []TaskConfig{{Name: "gsm8k", Version: "2", PromptHash: "aa"}}
	if base.Fingerprint() == other.Fingerprint() {
		t.Error("a different generation config has the same fingerprint")
	}
	diff := strings.Join(base.Diff(other), "\n")
	if !strings.Contains(diff, "generation") || !strings.Contains(diff, "task gsm8k") {
		t.Errorf("Diff = %s, want generation and task gsm8k", diff)
	}
	if base.Tasks[0].Samples != 10 || base.Limit != 10 {
		t.Error("Fingerprint modified its receiver's tasks")
	}
}

// TestSampleWriterSyncCadence: appends write at once but fsync only when
// SyncInterval has passed or SyncBytes have piled up, and Close fsyncs.
func TestSampleWriterSyncCadence(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "samples", "task.jsonl")
	w, err := OpenSampleWriter(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	syncs := 0
	w.sync = func() error { syncs++; return w.f.Sync() }
	w.lastSync = time.Now().Add(time.Hour) // no time-based sync unless set below
	small := rec("small", 0, "")
	if err := w.Append(&small); err != nil {
		t.Fatal(err)
	}
	if syncs != 0 {
		t.Errorf("a small append fsynced (%d)", syncs)
	}
	if b, _ := os.ReadFile(path); !bytes.HasSuffix(b, []byte("\n")) {
		t.Errorf("the appended line is not in the file before any fsync: %q", b)
	}
	big := rec("big", 0, "")
	big.Response = strings.Repeat("x", SyncBytes)
	if err := w.Append(&big); err != nil {
		t.Fatal(err)
	}
	if syncs != 1 {
		t.Errorf("after %d unsynced bytes: %d fsyncs, want 1", SyncBytes, syncs)
	}
	w.lastSync = time.Now().Add(-2 * SyncInterval)
	late := rec("late", 0, "")
	if err := w.Append(&late); err != nil {
		t.Fatal(err)
	}
	if syncs != 2 {
		t.Errorf("after %v without one: %d fsyncs, want 2", 2*SyncInterval, syncs)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if syncs != 3 {
		t.Errorf("Close: %d fsyncs, want 3", syncs)
	}
	if recs, _, err := ReadSamples(path); err != nil || len(recs) != 3 {
		t.Errorf("%d records, %v", len(recs), err)
	}
}

// TestAppendLines: lines handed over together are written in order, all
// of them (more than one writev(2) takes), and the writer's digest is the
// file's.
func TestAppendLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), SamplesDir, "t.jsonl")
	w, err := OpenSampleWriter(path, 0)
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, n := range []int{1, 3, maxIovecs + 7, 2} {
		lines := make([][]byte, n)
		for i := range lines {
			id := len(want)
			lines[i] = fmt.Appendf(nil, `{"task":"t","id":"%d","index":%d,"response":%q,"scores":{}}`+"\n", id, id, strings.Repeat("x", id%300))
			want = append(want, lines[i]...)
		}
		if err := w.AppendLines(lines); err != nil {
			t.Fatal(err)
		}
	}
	digest, ok := w.Digest()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("file has %d bytes, want %d (the lines in order)", len(got), len(want))
	}
	sum := sha256.Sum256(want)
	if !ok || digest != hex.EncodeToString(sum[:]) {
		t.Errorf("Digest = %q, %v; want the file's sha256", digest, ok)
	}
}
