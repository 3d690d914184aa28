package mnn

import (
	"context"
	"errors"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

// logitsFake is a fake engine whose logits at a position are the token
// there, one-hot over a vocabulary of 8: row r scores token ids[r] 1.
type logitsFake struct {
	*fakeEngine
	runs [][]int
}

func (f *logitsFake) AllLogits(ids []int) ([]float32, int, error) {
	f.runs = append(f.runs, append([]int(nil), ids...))
	out := make([]float32, len(ids)*8)
	for r, id := range ids {
		out[r*8+id] = 1
	}
	return out, 8, nil
}

func TestLogitsFake(t *testing.T) {
	f := &logitsFake{fakeEngine: &fakeEngine{prefix: []int{1}}}
	opts, _ := Options{PrefixCache: "off"}.withDefaults()
	r := newRuntime(opts, Package{Config: "pkg/config.json"}, "3.6.1", 0, []engine{f})
	v := r.Vocab()
	// The fake's stop token is 0; Piece(t) is one byte, 'a'+t-1.
	want := runtime.VocabSHA256(8, func(t int) []byte { return []byte{byte('a' + t - 1)} })
	if v.Size != 8 || v.BOS != 1 || !v.AddBOS || v.EOS != 0 || v.SHA256 != want {
		t.Errorf("vocab %+v, want hash %s", v, want)
	}
	withBOS, _ := r.Tokenize("\x02", true)
	plain, _ := r.Tokenize("\x02", false)
	if len(withBOS) != 2 || withBOS[0] != 1 || len(plain) != 1 || plain[0] != 2 {
		t.Errorf("tokenize: %v with special tokens, %v without", withBOS, plain)
	}
	if _, err := r.Tokenize("a\x00", true); err == nil {
		t.Error("a NUL byte was tokenized")
	}
	toks := []int32{1, 5, 3, 7}
	var got []int
	err := r.Logits(context.Background(), toks, 1, func(pos int, l []float32) error {
		if len(l) != 8 || l[toks[pos]] != 1 {
			t.Errorf("position %d: %v", pos, l)
		}
		got = append(got, pos)
		return nil
	})
	if err != nil || len(got) != 3 || got[0] != 1 || got[2] != 3 {
		t.Errorf("positions %v, %v", got, err)
	}
	stop := errors.New("stop")
	if err := r.Logits(context.Background(), toks, 0, func(int, []float32) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
	for _, bad := range []struct {
		toks []int32
		from int
	}{{nil, 0}, {toks, 4}, {toks, -1}, {[]int32{1, 8}, 0}, {[]int32{-1}, 0}} {
		if err := r.Logits(context.Background(), bad.toks, bad.from, func(int, []float32) error { return nil }); err == nil {
			t.Errorf("tokens %v from %d accepted", bad.toks, bad.from)
		}
	}
	// One vocabulary probe plus the two evaluations: bad input never runs.
	if len(f.runs) != 3 {
		t.Errorf("%d engine runs: %v", len(f.runs), f.runs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := r.Logits(ctx, toks, 0, func(int, []float32) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestLogitsNotSupported(t *testing.T) {
	r := newFake(t, &fakeEngine{})
	err := r.Logits(context.Background(), []int32{1}, 0, func(int, []float32) error { return nil })
	if !errors.Is(err, runtime.ErrNotSupported) {
		t.Errorf("an engine without logits: %v", err)
	}
}
