package openai

import (
	"strings"
	"testing"
	"time"
)

// BenchmarkReadStream measures decoding a 512-token chat stream.
func BenchmarkReadStream(b *testing.B) {
	var sb strings.Builder
	for i := 0; i < 512; i++ {
		sb.WriteString("data: " + chunk(true, " word", nil) + "\n\n")
	}
	fin := "stop"
	sb.WriteString("data: " + chunk(true, "", &fin) + "\n\ndata: [DONE]\n\n")
	body := sb.String()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := readStream(strings.NewReader(body), true, time.Now())
		if err != nil || len(res.text) != 512*5 {
			b.Fatalf("readStream: %v (%d bytes)", err, len(res.text))
		}
	}
}
