//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkHumanEvalCanonical runs the 164 canonical HumanEval programs
// (one op = all 164) as the code tasks run them in the official verdict
// mode (ExecHarness, the CPU-time floor of the calibrated limits), two at
// a time on a pool of two workers, and splits the CPU time per program:
// supervisor-ms (this process: cgroups, pipes, the monitor, the pool's
// start-up), sandbox-ms (the workers' helpers and zygotes: forks, inits,
// waits) and program-ms (the program processes from their cgroup join to
// their exit: set-up of namespaces, mounts, limits and filters, the
// wrapper and the program itself); cpu-ms is their sum. Interpreter:
// POCKETEVAL_BENCH_PYTHON, default python3 from PATH.
func BenchmarkHumanEvalCanonical(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root (the full sandbox)")
	}
	progs := loadHumanEval(b)
	const workers = 2
	lim := Limits{CPUTime: 3 * time.Second}
	b.Logf("load average before %s", benchLoad())
	self0, kids0 := rusageCPU(syscall.RUSAGE_SELF), rusageCPU(syscall.RUSAGE_CHILDREN)
	p, err := New(Config{Workers: workers, Python: os.Getenv("POCKETEVAL_BENCH_PYTHON")})
	if err != nil {
		b.Fatal(err)
	}
	exe, _ := p.Python()
	var programCPU time.Duration
	n := 0
	for b.Loop() {
		res, err := runAllExec(context.Background(), p, progs, workers, ExecHarness, lim)
		if err != nil {
			b.Fatal(err)
		}
		for i, r := range res {
			if r.Verdict != Pass {
				b.Fatalf("%s: %s (%s)", progs[i].ID, r.Verdict, r.Reason)
			}
			programCPU += r.CPUTime
		}
		n += len(progs)
	}
	wall := b.Elapsed()
	var zygote time.Duration
	p.mu.Lock()
	for w := range p.workers {
		zygote += procSelfCPU(w.cmd.Process.Pid)
	}
	p.mu.Unlock()
	p.Close()
	self, kids := rusageCPU(syscall.RUSAGE_SELF)-self0, rusageCPU(syscall.RUSAGE_CHILDREN)-kids0
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 / float64(n) }
	b.ReportMetric(per(wall), "ms/program")
	b.ReportMetric(per(self+kids), "cpu-ms/program")
	b.ReportMetric(per(self), "supervisor-ms/program")
	b.ReportMetric(per(kids-programCPU), "sandbox-ms/program")
	b.ReportMetric(per(zygote), "zygote-ms/program")
	b.ReportMetric(per(programCPU), "program-ms/program")
	b.Logf("%s, %d workers, load average after %s", exe, workers, benchLoad())
}

// runAllExec is runAll with an execution mode and limits.
func runAllExec(ctx context.Context, ex Executor, progs []humanEvalProgram, n int, exec Exec, lim Limits) ([]Result, error) {
	return runAllWith(ctx, ex, progs, n, func(src string) Program {
		return Program{Source: src, Exec: exec, Limits: lim}
	})
}

func rusageCPU(who int) time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(who, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procSelfCPU is the CPU time of process pid itself (not its children).
func procSelfCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100
}

func benchLoad() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
