//go:build !nollamacpp

package llamacpp

import (
	"context"
	"fmt"
	"math"
	"os"
	goruntime "runtime"
	"slices"
	"strings"
	"testing"

	"github.com/hybridgroup/yzma/pkg/llama"
)

// These tests compare, bit for bit, the logits llama.cpp gives a sequence
// decoded alone (the --batch off computation: prompt in one decode, then
// one token per decode) with those it gives the same sequence decoded
// beside others, teacher-forced so that every configuration sees the same
// tokens. They are why `--batch on` is refused for scoring runs
// (docs/throughput.md, "Batched decoding").

// probeSetup is one way of decoding several sequences together.
type probeSetup struct {
	name    string
	unified bool
	fa      llama.FlashAttentionType
	// pad adds a token of a scratch sequence to every decode of the
	// reference, so that no decode has a single row.
	pad bool
}

// probeCtx creates a context of nSeq sequences of 256 tokens each.
func probeCtx(t *testing.T, rt *Runtime, nSeq int, unified bool, fa llama.FlashAttentionType) (llama.Context, llama.Memory) {
	t.Helper()
	cp := llama.ContextDefaultParams()
	cp.NCtx = uint32(256 * nSeq)
	cp.NBatch, cp.NUbatch = 512, 512
	cp.NSeqMax = uint32(nSeq)
	cp.KVUnified = 0
	if unified {
		cp.KVUnified = 1
	}
	cp.NThreads, cp.NThreadsBatch = 1, 1
	cp.FlashAttentionType = fa
	lctx, err := llama.InitFromModel(rt.model, cp)
	if err != nil {
		t.Fatalf("create context: %v", err)
	}
	t.Cleanup(func() { llama.Free(lctx) })
	mem, err := llama.GetMemory(lctx)
	if err != nil {
		t.Fatal(err)
	}
	return lctx, mem
}

// forced decodes seqs (prompt tokens prompts[i], then the rest of seqs[i]
// one token a step) and returns every step's logits: out[i][s] are the
// logits after seqs[i][:prompts[i]+s]. Each prompt is one decode by itself;
// each later step is one decode holding the next token of every sequence
// in group (a sequence past its end drops out). With pad, a token of
// sequence nSeq-1 (a scratch sequence) is added to every decode.
func forced(t *testing.T, rt *Runtime, lctx llama.Context, seqs [][]llama.Token, prompts []int, ids []int, pad bool, scratch int) [][][]float32 {
	t.Helper()
	batch := llama.BatchInit(512, 0, 1)
	defer llama.BatchFree(batch)
	out := make([][][]float32, len(seqs))
	padPos := 0
	addPad := func() {
		if pad {
			if err := batch.Add(rt.benchTk, llama.Pos(padPos), []llama.SeqId{llama.SeqId(scratch)}, true); err != nil {
				t.Fatal(err)
			}
			padPos++
		}
	}
	decode := func() {
		if err := decodeBatch(lctx, batch); err != nil {
			t.Fatal(err)
		}
	}
	grab := func(i int, at int32) {
		l, err := llama.GetLogitsIth(lctx, at, rt.nVocab)
		if err != nil || l == nil {
			t.Fatalf("logits: %v", err)
		}
		out[i] = append(out[i], slices.Clone(l))
	}
	for i, s := range seqs {
		batch.Clear()
		for k := range prompts[i] {
			if err := batch.Add(s[k], llama.Pos(k), []llama.SeqId{llama.SeqId(ids[i])}, k == prompts[i]-1); err != nil {
				t.Fatal(err)
			}
		}
		addPad()
		decode()
		grab(i, int32(prompts[i]-1))
	}
	for step := 0; ; step++ {
		batch.Clear()
		var who []int
		for i, s := range seqs {
			if p := prompts[i] + step; p < len(s) {
				who = append(who, i)
				if err := batch.Add(s[p], llama.Pos(p), []llama.SeqId{llama.SeqId(ids[i])}, true); err != nil {
					t.Fatal(err)
				}
			}
		}
		if len(who) == 0 {
			return out
		}
		addPad()
		decode()
		for k, i := range who {
			grab(i, int32(k))
		}
	}
}

// probeSeqs returns n sequences: story prompts followed by their greedy
// continuation (decoded alone) to length total.
func probeSeqs(t *testing.T, rt *Runtime, n, total int) ([][]llama.Token, []int) {
	t.Helper()
	var seqs [][]llama.Token
	var prompts []int
	for i := range n {
		p := storyPrompts[i%len(storyPrompts)]
		if i >= len(storyPrompts) {
			p += " and"
		}
		toks, err := rt.tokenize(p, true)
		if err != nil {
			t.Fatal(err)
		}
		lctx, _ := probeCtx(t, rt, 1, false, rt.flashAttn)
		s := slices.Clone(toks)
		for len(s) < total {
			logits := forced(t, rt, lctx, [][]llama.Token{s}, []int{len(s)}, []int{0}, false, 0)
			l := logits[0][len(logits[0])-1]
			best := 0
			for k := range l {
				if l[k] > l[best] {
					best = k
				}
			}
			s = append(s, llama.Token(best))
			llama.MemoryClear(mustMem(t, lctx), false)
		}
		seqs = append(seqs, s)
		prompts = append(prompts, len(toks))
	}
	return seqs, prompts
}

func mustMem(t *testing.T, lctx llama.Context) llama.Memory {
	m, err := llama.GetMemory(lctx)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// diff counts the steps whose logits differ in any bit, and the largest
// absolute difference.
func diff(a, b [][]float32) (steps int, maxAbs float64) {
	for s := range a {
		same := true
		for k := range a[s] {
			if math.Float32bits(a[s][k]) != math.Float32bits(b[s][k]) {
				same = false
				maxAbs = max(maxAbs, math.Abs(float64(a[s][k])-float64(b[s][k])))
			}
		}
		if !same {
			steps++
		}
	}
	return steps, maxAbs
}

// TestBatchInvarianceProbe measures, for 1 to 8 sequences decoded
// together and several context setups, how many decode steps' logits
// differ in any bit from the sequence decoded alone, and logs the table
// (go test -v -run BatchInvarianceProbe; docs/throughput.md has it;
// POCKETEVAL_PROBE_GGUF=model.gguf measures another model). On
// stories260K (F32 weights, x86) every step with two or more rows
// differs: ggml multiplies one row with vec_dot and several with
// llamafile's tinyBLAS, whichever way the KV cache is laid out; against a
// reference padded to two rows, only the steps a batch decodes with one row
// differ. That is why --batch on is refused (cmd/pocketeval drivers).
//
// It asserts what holds on every CPU: a sequence decoded by itself in a
// context of several sequences, other sequences beside it in the cache,
// gets the bits of a context of its own; and, on amd64, that eight
// sequences of stories260K decoded together do not (if that ever fails,
// its kernels have become batch-invariant and exact batching would accept
// it: the docs and TestExactBatchRefused say otherwise).
func TestBatchInvarianceProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 8 sequences in 33 setups")
	}
	var rt *Runtime
	other := os.Getenv("POCKETEVAL_PROBE_GGUF")
	if m := other; m != "" {
		// Another model, to measure (the assertions below hold for any).
		modelPath(t, stories)
		var err error
		if rt, err = Open(context.Background(), Options{Model: m}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Close() })
	} else {
		rt = open(t, stories, Options{})
	}
	const total = 48
	seqs, prompts := probeSeqs(t, rt, 8, total)
	ref := func(setup probeSetup) [][][]float32 {
		out := make([][][]float32, len(seqs))
		for i := range seqs {
			nSeq := 1
			if setup.pad {
				nSeq = 2
			}
			lctx, _ := probeCtx(t, rt, nSeq, false, setup.fa)
			out[i] = forced(t, rt, lctx, seqs[i:i+1], prompts[i:i+1], []int{0}, setup.pad, 1)[0]
		}
		return out
	}
	setups := []probeSetup{
		{name: "unified KV, flash attn auto (the engine's unified batching)", unified: true, fa: llama.FlashAttentionTypeAuto},
		{name: "per-sequence KV streams, flash attn auto", fa: llama.FlashAttentionTypeAuto},
		{name: "per-sequence KV streams, flash attn off", fa: llama.FlashAttentionTypeDisabled},
		{name: "unified KV, flash attn off", unified: true, fa: llama.FlashAttentionTypeDisabled},
		{name: "per-sequence KV streams, flash attn auto; reference padded to 2 rows", fa: llama.FlashAttentionTypeAuto, pad: true},
		{name: "unified KV, flash attn auto; reference padded to 2 rows", unified: true, fa: llama.FlashAttentionTypeAuto, pad: true},
		{name: "per-sequence KV streams, flash attn off; reference padded to 2 rows", fa: llama.FlashAttentionTypeDisabled, pad: true},
	}
	var report strings.Builder
	for k, setup := range setups {
		want := ref(setup)
		fmt.Fprintf(&report, "%s:\n", setup.name)
		for _, n := range []int{1, 2, 3, 4, 8} {
			lctx, _ := probeCtx(t, rt, n, setup.unified, setup.fa)
			ids := make([]int, n)
			for i := range ids {
				ids[i] = i
			}
			got := forced(t, rt, lctx, seqs[:n], prompts[:n], ids, false, 0)
			steps, all, worst := 0, 0, 0.0
			for i := range n {
				s, m := diff(want[i], got[i])
				steps += s
				all += len(got[i])
				worst = max(worst, m)
			}
			fmt.Fprintf(&report, "  %d sequences: %d of %d steps differ (max |Δlogit| %.3g)\n", n, steps, all, worst)
			switch {
			case n == 1 && !setup.pad && steps != 0:
				t.Errorf("%s: one sequence in a context of its own differs from the reference in %d steps", setup.name, steps)
			case k == 0 && n == 8 && steps == 0 && goruntime.GOARCH == "amd64" && other == "":
				t.Errorf("%s: 8 sequences decoded together give the bits of each decoded alone: the engine is batch-invariant now; reconsider refusing --batch on", setup.name)
			}
		}
	}
	t.Log("\n" + report.String())

	// A sequence decoded by itself in a context of 8 sequences, with the
	// other 7 in the cache: per-sequence streams and the unified cache.
	for _, unified := range []bool{false, true} {
		lctx, _ := probeCtx(t, rt, 8, unified, rt.flashAttn)
		for i := 1; i < 8; i++ {
			forced(t, rt, lctx, seqs[i:i+1], prompts[i:i+1], []int{i}, false, 0)
		}
		got := forced(t, rt, lctx, seqs[:1], prompts[:1], []int{0}, false, 0)
		if s, m := diff(ref(probeSetup{fa: rt.flashAttn})[0], got[0]); s != 0 {
			t.Errorf("unified %v: a sequence alone beside 7 cached ones: %d steps differ (max %.3g)", unified, s, m)
		}
	}
}
