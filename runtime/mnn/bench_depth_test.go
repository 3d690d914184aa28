package mnn

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime"
)

func TestBenchAtDepth(t *testing.T) {
	fe := &fakeEngine{pieces: strings.Split("abcdefgh", "")}
	r := newFakeOpts(t, Options{PrefixCache: "on"}, fe)
	res, err := r.Bench(context.Background(), runtime.BenchRequest{NPrompt: 3, NGen: 4, Depth: 5})
	if err != nil {
		t.Fatal(err)
	}
	// The cache is filled with 5 tokens from empty, then the 8-token
	// prompt runs from those 5.
	if len(fe.prefill) != 2 || len(fe.prefill[0]) != 5 || len(fe.prefill[1]) != 8 || !slices.Equal(fe.keeps, []int{0, 5}) {
		t.Errorf("prefills %v with keeps %v; want 5 tokens from 0, then 8 from 5", fe.prefill, fe.keeps)
	}
	if res.GenTokens != 4 || res.DecodeTime <= 0 || res.PrefillTime <= 0 {
		t.Errorf("result %+v: want 4 decoded tokens with prefill and decode times", res)
	}
	// A decode-only test at depth runs one more untimed token.
	fe2 := &fakeEngine{pieces: strings.Split("abcd", "")}
	if _, err := newFakeOpts(t, Options{PrefixCache: "on"}, fe2).Bench(context.Background(), runtime.BenchRequest{NGen: 2, Depth: 7}); err != nil {
		t.Fatal(err)
	}
	if len(fe2.prefill) != 2 || len(fe2.prefill[1]) != 8 {
		t.Errorf("tg at depth 7: prefills %v, want 7 then 8 tokens", fe2.prefill)
	}
	// Without reuse_kv the cache cannot be kept: a clear error.
	_, err = newFake(t, &fakeEngine{}).Bench(context.Background(), runtime.BenchRequest{NPrompt: 2, Depth: 4})
	if !errors.Is(err, runtime.ErrNotSupported) || !strings.Contains(err.Error(), "the prefix cache on") {
		t.Errorf("depth with the prefix cache off: err = %v, want ErrNotSupported naming the prefix cache", err)
	}
}
