// Package procfs reads the few Linux /proc facts pocketeval records: the
// process's resident memory and its peak, the load average, the CPU model,
// the total memory and the kernel release. It is the one place that parses
// /proc; bench (llm_bench-style measurements) and the runner (the
// manifest's host and resources) both use it.
//
// Parsers take the file's bytes and name the file, line and field of a
// malformed value; FS reads from a /proc root, so tests can point it at a
// fake tree.
package procfs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// FS reads /proc under Root; the zero value reads /proc.
type FS struct {
	Root string
}

func (fs FS) path(rel string) string {
	root := fs.Root
	if root == "" {
		root = "/proc"
	}
	return filepath.Join(root, rel)
}

// Memory returns this process's resident set size and its peak (VmRSS and
// VmHWM of self/status) in bytes.
func (fs FS) Memory() (rss, peak int64, err error) {
	data, err := os.ReadFile(fs.path("self/status"))
	if err != nil {
		return 0, 0, fmt.Errorf("read memory status: %w", err)
	}
	return ParseStatus(data)
}

// ResetPeak makes the peak resident set equal to the current one (writes
// "5" to self/clear_refs); an error means the peak keeps counting from the
// start of the process.
func (fs FS) ResetPeak() error {
	if err := os.WriteFile(fs.path("self/clear_refs"), []byte("5"), 0); err != nil {
		return fmt.Errorf("reset peak memory: %w", err)
	}
	return nil
}

// LoadAvg returns the 1, 5 and 15 minute load averages.
func (fs FS) LoadAvg() ([3]float64, error) {
	data, err := os.ReadFile(fs.path("loadavg"))
	if err != nil {
		return [3]float64{}, fmt.Errorf("read load average: %w", err)
	}
	return ParseLoadAvg(data)
}

// CPUModel returns the first "model name" of cpuinfo, or "".
func (fs FS) CPUModel() string {
	data, err := os.ReadFile(fs.path("cpuinfo"))
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(data)) {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// MemTotal returns the machine's memory (MemTotal of meminfo) in bytes, or
// 0 when unknown.
func (fs FS) MemTotal() int64 { return fs.meminfo("MemTotal") }

// MemAvailable returns the memory available for new allocations without
// swapping (MemAvailable of meminfo) in bytes, or 0 when unknown.
func (fs FS) MemAvailable() int64 { return fs.meminfo("MemAvailable") }

// meminfo returns a meminfo figure in bytes, or 0 when unknown.
func (fs FS) meminfo(key string) int64 {
	data, err := os.ReadFile(fs.path("meminfo"))
	if err != nil {
		return 0
	}
	kb, _ := field(data, key)
	return kb * 1024
}

// KernelRelease returns sys/kernel/osrelease, or "".
func (fs FS) KernelRelease() string {
	data, err := os.ReadFile(fs.path("sys/kernel/osrelease"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(data))
}

// ParseStatus reads VmRSS and VmHWM (in kB) from a /proc/<pid>/status and
// returns them in bytes. Both must be present.
func ParseStatus(data []byte) (rss, peak int64, err error) {
	rss, err = field(data, "VmRSS")
	if err != nil {
		return 0, 0, err
	}
	if peak, err = field(data, "VmHWM"); err != nil {
		return 0, 0, err
	}
	return rss * 1024, peak * 1024, nil
}

// field returns the "<n> kB" value of key in a status-like file.
func field(data []byte, key string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != key {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("status:%d:%s: want \"<n> kB\", got %q", line, k, strings.TrimSpace(v))
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("status:%d:%s: %w", line, k, err)
		}
		return n, nil
	}
	return 0, fmt.Errorf("status: %s missing", key)
}

// ParseLoadAvg reads the three load averages of a /proc/loadavg.
func ParseLoadAvg(data []byte) ([3]float64, error) {
	var la [3]float64
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return la, fmt.Errorf("loadavg:1: want 3 load averages, got %q", strings.TrimSpace(string(data)))
	}
	for i := range la {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return la, fmt.Errorf("loadavg:1:field %d: %w", i+1, err)
		}
		la[i] = v
	}
	return la, nil
}
