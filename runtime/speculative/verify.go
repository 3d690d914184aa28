// Package speculative proves speculative decoding lossless on real
// requests: a Verifier answers each request from a runtime with
// speculative decoding and, at temperature 0, also from a reference
// runtime without it, and fails the request with a *MismatchError when the
// two texts differ. Greedy speculative decoding must reproduce greedy
// decoding token for token, so any difference is a defect of the engine
// (or of numerics that differ between verifying several tokens at once and
// decoding one at a time), reported per request.
//
// The package does not verify sampled requests (temperature > 0): their
// text depends on the random stream, not only on the model. It does not
// choose how the two runtimes are configured either; the caller opens
// both.
package speculative

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/pocketeval/pocketeval/runtime"
)

// ErrSampled is returned (wrapped) for a request with temperature > 0.
var ErrSampled = errors.New("speculative verification needs greedy decoding (temperature 0)")

// MismatchError reports a request whose speculative text differs from the
// reference text.
type MismatchError struct {
	// Offset is the first byte at which the texts differ.
	Offset int
	// Reference and Speculative are the two texts from a little before
	// Offset (at most 40 bytes each side).
	Reference, Speculative string
	// ReferenceTokens and SpeculativeTokens are the completion lengths.
	ReferenceTokens, SpeculativeTokens int
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("speculative decoding changed the output at byte %d: without %q, with %q (%d and %d tokens)",
		e.Offset, e.Reference, e.Speculative, e.ReferenceTokens, e.SpeculativeTokens)
}

// Verifier is a runtime.Runtime over a speculative runtime and its
// reference. It is safe for concurrent use if both runtimes are.
type Verifier struct {
	ref, spec runtime.Runtime
	checked   atomic.Int64
	differed  atomic.Int64
}

var (
	_ runtime.Runtime         = (*Verifier)(nil)
	_ runtime.Describer       = (*Verifier)(nil)
	_ runtime.LogLikelihooder = (*Verifier)(nil)
	_ runtime.ChatTemplater   = (*Verifier)(nil)
)

// New returns a Verifier; it owns both runtimes and closes them.
func New(ref, spec runtime.Runtime) *Verifier { return &Verifier{ref: ref, spec: spec} }

// Generate runs req on the speculative runtime, then on the reference, and
// returns the speculative response when the texts are equal.
func (v *Verifier) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	if req.Gen.Temperature != 0 {
		return runtime.Response{}, fmt.Errorf("speculative verify: temperature %g: %w", req.Gen.Temperature, ErrSampled)
	}
	got, err := v.spec.Generate(ctx, req)
	if err != nil {
		return runtime.Response{}, err
	}
	want, err := v.ref.Generate(ctx, req)
	if err != nil {
		return runtime.Response{}, fmt.Errorf("speculative verify: reference: %w", err)
	}
	v.checked.Add(1)
	if err := Compare(want, got); err != nil {
		v.differed.Add(1)
		return runtime.Response{}, err
	}
	return got, nil
}

// Compare returns a *MismatchError when got's text or finish reason differs
// from want's, nil otherwise.
func Compare(want, got runtime.Response) error {
	if want.Text == got.Text && want.FinishReason == got.FinishReason {
		return nil
	}
	i := 0
	for i < len(want.Text) && i < len(got.Text) && want.Text[i] == got.Text[i] {
		i++
	}
	clip := func(s string) string {
		from, to := max(0, i-40), min(len(s), i+40)
		return s[from:to]
	}
	return &MismatchError{
		Offset: i, Reference: clip(want.Text), Speculative: clip(got.Text),
		ReferenceTokens: want.CompletionTokens, SpeculativeTokens: got.CompletionTokens,
	}
}

// Counts returns how many requests were compared and how many differed.
func (v *Verifier) Counts() (checked, differed int64) { return v.checked.Load(), v.differed.Load() }

// LogLikelihood is the reference's: speculative decoding does not take
// part in scoring given text.
func (v *Verifier) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	ll, ok := v.ref.(runtime.LogLikelihooder)
	if !ok {
		return nil, fmt.Errorf("speculative verify: log-likelihood: %w", runtime.ErrNotSupported)
	}
	return ll.LogLikelihood(ctx, reqs)
}

// Describe is the speculative runtime's description, marked as verified.
func (v *Verifier) Describe() runtime.Info {
	var info runtime.Info
	if d, ok := v.spec.(runtime.Describer); ok {
		info = d.Describe()
	}
	settings := map[string]any{}
	for k, val := range info.Settings {
		settings[k] = val
	}
	settings["speculative_verify"] = "every greedy request decoded again without speculative decoding and compared"
	info.Settings = settings
	return info
}

// ChatTemplate is the speculative runtime's (zero when it renders none).
func (v *Verifier) ChatTemplate() runtime.ChatTemplateInfo {
	if ct, ok := v.spec.(runtime.ChatTemplater); ok {
		return ct.ChatTemplate()
	}
	return runtime.ChatTemplateInfo{}
}

// Close closes both runtimes.
func (v *Verifier) Close() error {
	return errors.Join(v.spec.Close(), v.ref.Close())
}
