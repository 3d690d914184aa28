package runtime

import (
	"testing"
	"time"
)

func TestServerTimingsOf(t *testing.T) {
	t.Parallel()
	if got := ServerTimingsOf(Response{PromptTokens: 3}); got != nil {
		t.Errorf("no timings measured: %+v, want nil", got)
	}
	resp := Response{PromptTokens: 20, CompletionTokens: 9, Timings: Timings{
		TimeToFirstToken: 40 * time.Millisecond, Total: 90 * time.Millisecond, PrefillTokPerSec: 500, DecodeTokPerSec: 160,
	}}
	want := ServerTimings{PromptN: 20, PromptMS: 40, PromptPerSecond: 500, PredictedN: 9, PredictedMS: 50, PredictedPerSecond: 160}
	if got := ServerTimingsOf(resp); got == nil || *got != want {
		t.Errorf("ServerTimingsOf = %+v, want %+v", got, want)
	}
}
