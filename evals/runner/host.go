package runner

import (
	"bufio"
	"os"
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/results"
)

// HostInfo describes this machine for the manifest.
func HostInfo() results.Host {
	h := results.Host{Cores: goruntime.NumCPU(), OS: goruntime.GOOS, Arch: goruntime.GOARCH}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				h.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		h.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "MemTotal:") {
				f := strings.Fields(line)
				if len(f) >= 2 {
					kb, _ := strconv.Atoi(f[1])
					h.MemoryMB = kb / 1024
				}
			}
		}
	}
	h.LoadAvg = LoadAverage()
	return h
}

// LoadAverage returns the 1-minute load average (0 if unknown).
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// CurrentRSS returns the process's resident set size in bytes (VmRSS), or 0.
func CurrentRSS() int64 { return statusKB("VmRSS:") * 1024 }

// PeakRSS returns the process's peak resident set size in bytes (VmHWM), or 0.
func PeakRSS() int64 { return statusKB("VmHWM:") * 1024 }

func statusKB(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field) {
			f := strings.Fields(line)
			if len(f) >= 2 {
				v, _ := strconv.ParseInt(f[1], 10, 64)
				return v
			}
		}
	}
	return 0
}

func mb(b int64) float64 { return float64(b*100/(1<<20)) / 100 }
