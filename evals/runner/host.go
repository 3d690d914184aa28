package runner

import (
	goruntime "runtime"

	"github.com/pocketeval/pocketeval/internal/procfs"
	"github.com/pocketeval/pocketeval/results"
)

// proc is where the runner reads the host's facts.
var proc = procfs.FS{}

// HostInfo describes this machine for the manifest.
func HostInfo() results.Host {
	h := results.Host{Cores: goruntime.NumCPU(), OS: goruntime.GOOS, Arch: goruntime.GOARCH}
	h.CPU = proc.CPUModel()
	h.Kernel = proc.KernelRelease()
	h.MemoryMB = int(proc.MemTotal() / (1 << 20))
	h.LoadAvg = LoadAverage()
	return h
}

// LoadAverage returns the 1-minute load average (0 if unknown).
func LoadAverage() float64 {
	la, _ := proc.LoadAvg()
	return la[0]
}

// CurrentRSS returns the process's resident set size in bytes (VmRSS), or 0.
func CurrentRSS() int64 {
	rss, _, _ := proc.Memory()
	return rss
}

// PeakRSS returns the process's peak resident set size in bytes (VmHWM), or 0.
func PeakRSS() int64 {
	_, peak, _ := proc.Memory()
	return peak
}

func mb(b int64) float64 { return float64(b*100/(1<<20)) / 100 }
