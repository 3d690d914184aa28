package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkSampleWriter appends 32 MiB of 4 KiB lines (an MMLU record's
// size) to a fresh samples file through a SampleWriter, handing over
// batch lines per AppendLines call (the runner's group commit hands over
// what became ready during the previous write: about 60 lines in a
// replay), with the file's sha256 taken as it is written ("hash") or not
// (a resumed file, "nohash"). It reports the process's user and system
// CPU per MiB written (rusage), which wall time on a shared machine does
// not show.
func BenchmarkSampleWriter(b *testing.B) {
	line := []byte(`{"task":"mmlu","id":"x","index":1,"messages":[` + strings.Repeat(`{"role":"user","content":"The following are multiple choice questions"},`, 56) + "]}\n")
	line = line[:4096]
	line[4095] = '\n'
	const total = 32 << 20
	for _, hash := range []bool{true, false} {
		for _, batch := range []int{1, 16, 64, 256} {
			name := fmt.Sprintf("hash=%v/batch=%d", hash, batch)
			b.Run(name, func(b *testing.B) {
				lines := make([][]byte, batch)
				for i := range lines {
					lines[i] = line
				}
				b.SetBytes(total)
				dir := b.TempDir()
				var user, sys time.Duration
				for b.Loop() {
					path := filepath.Join(dir, SamplesDir, "t.jsonl")
					var good int64
					if !hash {
						w, err := OpenSampleWriter(path, 0)
						if err != nil {
							b.Fatal(err)
						}
						if err := w.AppendLine(line); err != nil {
							b.Fatal(err)
						}
						w.Close()
						good = int64(len(line))
					}
					u0, s0 := rusage()
					w, err := OpenSampleWriter(path, good)
					if err != nil {
						b.Fatal(err)
					}
					for n := 0; n < total; n += batch * len(line) {
						if err := w.AppendLines(lines); err != nil {
							b.Fatal(err)
						}
					}
					if err := w.Close(); err != nil {
						b.Fatal(err)
					}
					u1, s1 := rusage()
					user, sys = user+u1-u0, sys+s1-s0
					b.StopTimer()
					if err := os.Remove(path); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				mib := float64(b.N) * total / (1 << 20)
				b.ReportMetric(float64(user.Microseconds())/mib, "user-µs/MiB")
				b.ReportMetric(float64(sys.Microseconds())/mib, "sys-µs/MiB")
			})
		}
	}
}

func rusage() (user, sys time.Duration) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}
