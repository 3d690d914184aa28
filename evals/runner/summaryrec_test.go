package runner

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/registry"
	"github.com/pocketeval/pocketeval/internal/sharedtest"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

// TestSummaryFromMemory checks that the summary a run builds from the
// records it kept in memory is the one its samples files give when read
// back (what a crashed or resumed run relies on): for the fake tasks with
// failing requests and repeats, and, with the shared datasets, for real
// tasks whose aggregates read sample details.
func TestSummaryFromMemory(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, o Options) {
		t.Helper()
		res, err := Run(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		// The digests the writers computed are those of the files.
		if err := results.CheckDigests(o.OutDir, res.Manifest); err != nil {
			t.Error(err)
		}
		p, err := Prepare(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		for _, pp := range p.preps {
			name := pp.info.Name
			recs, err := results.ReadTaskForSummary(o.OutDir, name, false)
			if err != nil {
				t.Fatal(err)
			}
			disk, _ := summarizeTask(pp, p.o.SamplesPerTask, recs)
			want, _ := json.Marshal(disk)
			got, _ := json.Marshal(res.Summary.Tasks[name])
			if string(got) != string(want) {
				t.Errorf("%s: summary from memory\n%s\nfrom the samples file\n%s", name, got, want)
			}
		}
	}
	t.Run("fake", func(t *testing.T) {
		t.Parallel()
		o := baseOptions(t.TempDir(), &fakeRuntime{fail: func(p string) bool { return strings.HasSuffix(p, "7") }})
		o.KeepGoing, o.SamplesPerTask, o.Concurrency = true, 2, 3
		check(t, o)
	})
	t.Run("tasks", func(t *testing.T) {
		t.Parallel()
		data := sharedtest.Datasets(t)
		tasks, err := registry.Lookup(registry.All(), []string{"ifeval", "gsm8k", "math500", "mmlu", "cmmlu", "bbh"})
		if err != nil {
			t.Fatal(err)
		}
		check(t, Options{
			Tasks: tasks, Runtime: &runtimetest.Fake{EOSEvery: 60}, RuntimeName: "stand-in", OutDir: t.TempDir(), DataDir: data,
			Concurrency: 2, NumFewshot: -1, Chat: true, StripThinking: true, Limit: 30,
		})
	})
}

// TestSharedMaps: a record's scores and details come back equal to its
// own, and records with equal ones (the same keys, values of the same
// type and bits) share one map; others do not.
func TestSharedMaps(t *testing.T) {
	t.Parallel()
	var sm sharedMaps
	rec := func(scores map[string]float64, details map[string]any) memRecord {
		return sm.record(&results.Record{ID: "1", Scores: scores, Details: details})
	}
	same := func(a, b any) bool { return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() }
	a := rec(map[string]float64{"acc": 1, "strict": 0}, map[string]any{"mode": "gen", "strict": "", "ok": true, "n": 2.0, "x": nil})
	b := rec(map[string]float64{"strict": 0, "acc": 1}, map[string]any{"x": nil, "n": 2.0, "ok": true, "strict": "", "mode": "gen"})
	if !same(a.scores, b.scores) || !same(a.details, b.details) {
		t.Error("equal maps are not shared")
	}
	if !reflect.DeepEqual(b.scores, map[string]float64{"acc": 1, "strict": 0}) || b.details["mode"] != "gen" || len(b.details) != 5 {
		t.Errorf("shared maps differ from the record's: %v %v", b.scores, b.details)
	}
	negZero := math.Copysign(0, -1)
	for _, other := range []memRecord{
		rec(map[string]float64{"acc": 1, "strict": negZero}, nil),
		rec(map[string]float64{"acc": 1, "strict": 0, "more": 0}, nil),
		rec(map[string]float64{"acc": 1, "stric": 0}, nil),
	} {
		if same(other.scores, a.scores) {
			t.Errorf("%v shares %v", other.scores, a.scores)
		}
	}
	for _, d := range []map[string]any{
		{"mode": "gen", "strict": "", "ok": false, "n": 2.0, "x": nil},
		{"mode": "gen", "strict": "", "ok": true, "n": "2", "x": nil},
		{"mode": "gen", "strict": "", "ok": true, "n": 2.0, "x": ""},
		{"mode": "gen", "strict": "", "ok": true, "n": 2.0},
	} {
		if other := rec(nil, d); same(other.details, a.details) || !reflect.DeepEqual(other.details, d) {
			t.Errorf("%v shares %v or changed", d, a.details)
		}
	}
	// Details that are not flat JSON are the record's own, as JSON gives
	// them back.
	nested := rec(nil, map[string]any{"list": []string{"a"}})
	if !reflect.DeepEqual(nested.details, map[string]any{"list": []any{"a"}}) {
		t.Errorf("nested details: %v", nested.details)
	}
	// After a flat map, one with the same keys whose values only look
	// alike (compared to the last map handed out before anything else)
	// is not taken for it: it comes back as JSON gives it.
	type mode string
	for _, d := range []map[string]any{
		{"mode": []string{"gen"}, "n": 2.0},
		{"mode": map[string]any{"gen": 1.0}, "n": 2.0},
		{"mode": mode("gen"), "n": 2.0},
		{"mode": "gen", "n": 2},
		{"mode": "gen", "n": float32(2)},
		{"mode": "g\xffen", "n": 2.0},
		{"mode": "gen", "n\xff": 2.0},
	} {
		first := rec(nil, map[string]any{"mode": "gen", "n": 2.0})
		other := rec(nil, d)
		data, _ := json.Marshal(d)
		var want map[string]any
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(other.details, want) {
			t.Errorf("%#v after %v: %#v, JSON gives %#v", d, first.details, other.details, want)
		}
		if reflect.DeepEqual(want, first.details) != same(other.details, first.details) {
			t.Errorf("%#v after %v: shared %v", d, first.details, same(other.details, first.details))
		}
	}
}

// BenchmarkRememberMMLU keeps the summary records of an MMLU-sized task
// (14,042 records with multiple-choice scores and details, as evals/mc
// makes them) and reports the heap they hold (heap-B/record): as
// memRecords with shared maps ("compact"), and as the results.Records
// summaryRecord gives ("records", what a run kept before).
func BenchmarkRememberMMLU(b *testing.B) {
	const n = 14042
	letters := []string{"A", "B", "C", "D", ""}
	record := func(i int) *results.Record {
		l := letters[i%5]
		return &results.Record{
			Task: "mmlu", ID: "abstract_algebra/" + strconv.Itoa(i), Index: i, Extracted: l, ExtractionFailed: l == "", FinishReason: "stop",
			Scores:  map[string]float64{"acc_flexible": float64(i % 2), "acc_strict": 0, "extraction_failed": evals.Indicator(l == "")},
			Details: map[string]any{"mode": "gen", "strict": "", "method": l},
		}
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	run := func(b *testing.B, keep func(i int, rec *results.Record), done func()) {
		var held uint64
		for b.Loop() {
			h0 := heap()
			for i := range n {
				keep(i, record(i))
			}
			held = heap() - h0
			done()
		}
		b.ReportMetric(float64(held), "heap-B/op")
		b.ReportMetric(float64(held)/n, "heap-B/record")
	}
	b.Run("compact", func(b *testing.B) {
		var sm *sharedMaps
		var mem []memRecord
		run(b, func(i int, rec *results.Record) {
			if mem == nil {
				sm, mem = &sharedMaps{}, make([]memRecord, n)
			}
			mem[i] = sm.record(rec)
		}, func() { sm, mem = nil, nil })
	})
	b.Run("records", func(b *testing.B) {
		var mem []results.Record
		run(b, func(i int, rec *results.Record) {
			if mem == nil {
				mem = make([]results.Record, n)
			}
			mem[i] = summaryRecord(rec)
		}, func() { mem = nil })
	})
}

// BenchmarkSummarizeMMLU makes MMLU's summary from its 14,042 records in
// memory (the shared dataset; records as a weak model's: a fifth of them
// extracted, half of those right), what summarizeMemory does at the end
// of the task.
func BenchmarkSummarizeMMLU(b *testing.B) {
	data := sharedtest.Datasets(b)
	tasks, err := registry.Lookup(registry.All(), []string{"mmlu"})
	if err != nil {
		b.Fatal(err)
	}
	task := tasks[0]
	ds, err := task.Load(context.Background(), evals.LoadConfig{DataDir: data, NumFewshot: -1})
	if err != nil {
		b.Fatal(err)
	}
	selected := make([]int, len(ds.Samples))
	var sm sharedMaps
	mem := make([]memRecord, len(ds.Samples))
	letters := []string{"A", "B", "C", "D"}
	for i, s := range ds.Samples {
		selected[i] = i
		l := ""
		if i%5 == 0 {
			l = letters[i/5%4]
		}
		right := evals.Indicator(l != "" && i%10 == 0)
		mem[i] = sm.record(&results.Record{
			Task: "mmlu", ID: s.ID, Index: i, Extracted: l, ExtractionFailed: l == "", FinishReason: "stop",
			Scores:  map[string]float64{"acc_flexible": right, "acc_strict": 0, "extraction_failed": evals.Indicator(l == "")},
			Details: map[string]any{"mode": "gen", "strict": "", "method": map[bool]string{true: "", false: "mention"}[l == ""]},
		})
	}
	b.ReportAllocs()
	for b.Loop() {
		var rec results.Record
		summarize(task, ds, selected, 1, func(pos int, s evals.Sample, rep int) *results.Record {
			rec = mem[pos].record()
			return &rec
		})
	}
}

// BenchmarkSharedRecord times sharedMaps.record alone on MMLU-shaped
// records made beforehand (flat details, most equal to the record
// before's, as a weak model's mostly failed extractions give them), per
// record.
func BenchmarkSharedRecord(b *testing.B) {
	const n = 4096
	letters := []string{"", "", "", "", "", "", "A", "B"}
	recs := make([]*results.Record, n)
	for i := range recs {
		l := letters[i%len(letters)]
		recs[i] = &results.Record{
			Task: "mmlu", ID: "abstract_algebra/" + strconv.Itoa(i), Index: i, Extracted: l, ExtractionFailed: l == "", FinishReason: "stop",
			Scores:  map[string]float64{"acc_flexible": 0, "acc_strict": 0, "extraction_failed": evals.Indicator(l == "")},
			Details: map[string]any{"mode": "gen", "strict": "", "method": l},
		}
	}
	b.ReportAllocs()
	i := 0
	sm := &sharedMaps{}
	for b.Loop() {
		_ = sm.record(recs[i%n])
		i++
	}
}
