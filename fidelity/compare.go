package fidelity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// Options configure a token-level comparison.
type Options struct {
	// TopP is the nucleus mass of the same-top-p rate (0: DefaultTopP;
	// negative: not measured).
	TopP float64
	// Progress, if set, is told the sequences done.
	Progress Progress
}

// DefaultTopP is the nucleus mass the same-top-p rate uses by default
// (a common top_p setting).
const DefaultTopP = 0.9

// ErrVocabMismatch is returned when the candidate's vocabulary is not the
// reference's: the saved tokens would mean other text.
var ErrVocabMismatch = errors.New("the candidate's vocabulary differs from the reference's")

// Compare evaluates the reference's sequences with the candidate and
// compares every saved position.
func Compare(ctx context.Context, rt runtime.Logitser, ref *Reference, o Options) (*TokenReport, Cost, error) {
	v, hv := rt.Vocab(), ref.Header.Vocab
	if v.Size != hv.Size || v.SHA256 != hv.SHA256 {
		return nil, Cost{}, fmt.Errorf("%w: %d tokens, sha256 %.12s; the reference (%s) has %d, %.12s", ErrVocabMismatch, v.Size, v.SHA256, ref.Path, hv.Size, hv.SHA256)
	}
	a := &accum{topP: o.TopP}
	if a.topP == 0 {
		a.topP = DefaultTopP
	}
	if a.topP < 0 || a.topP > 1 {
		a.topP = 0
	}
	cost := Cost{Bytes: ref.Bytes, BytesPerPosition: ref.Header.BytesPerPosition}
	var elapsed time.Duration
	for i := 0; ; i++ {
		s, recs, err := ref.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, Cost{}, err
		}
		start := time.Now()
		last := len(s.Tokens) - 2
		err = rt.Logits(ctx, s.Tokens, s.From, func(pos int, logits []float32) error {
			if pos > last {
				return nil
			}
			if len(logits) != hv.Size {
				return fmt.Errorf("%d logits, the vocabulary has %d", len(logits), hv.Size)
			}
			k := pos - s.From
			rec := recs[k*ref.Header.RecordLen : (k+1)*ref.Header.RecordLen]
			a.add(logits, decode(rec, hv.Size), int(s.Tokens[pos+1]))
			return nil
		})
		elapsed += time.Since(start)
		if err != nil {
			return nil, Cost{}, fmt.Errorf("sequence %d: %w", i+1, err)
		}
		cost.Tokens += len(s.Tokens)
		cost.Positions += s.scored()
		if o.Progress != nil {
			o.Progress(i+1, ref.Header.Sequences)
		}
	}
	if a.count == 0 {
		return nil, Cost{}, fmt.Errorf("%s: no position to compare", ref.Path)
	}
	cost.Seconds = elapsed.Seconds()
	if cost.Seconds > 0 {
		cost.TokensPerSec = float64(cost.Tokens) / cost.Seconds
	}
	r := a.report(ref.Header.Sequences)
	return &r, cost, nil
}
