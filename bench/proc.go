package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// System is the Probe of this process on Linux: /proc/self/status for
// VmRSS and VmHWM, /proc/self/clear_refs ("5") to reset the peak, and
// /proc/loadavg.
var System Probe = procProbe{root: "/proc"}

type procProbe struct{ root string }

func (p procProbe) Memory() (rss, peak int64, err error) {
	data, err := os.ReadFile(filepath.Join(p.root, "self", "status"))
	if err != nil {
		return 0, 0, fmt.Errorf("read memory status: %w", err)
	}
	return parseStatus(data)
}

// parseStatus reads VmRSS and VmHWM (in kB) from a /proc/<pid>/status.
func parseStatus(data []byte) (rss, peak int64, err error) {
	var haveRSS, havePeak bool
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return 0, 0, fmt.Errorf("status:%d:%s: want \"<n> kB\", got %q", line, k, strings.TrimSpace(v))
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("status:%d:%s: %w", line, k, err)
		}
		if k == "VmRSS" {
			rss, haveRSS = n*1024, true
		} else {
			peak, havePeak = n*1024, true
		}
	}
	if !haveRSS || !havePeak {
		return 0, 0, fmt.Errorf("status: VmRSS or VmHWM missing")
	}
	return rss, peak, nil
}

// CPUModel returns the first "model name" in /proc/cpuinfo, or "".
func (p procProbe) CPUModel() string {
	data, err := os.ReadFile(filepath.Join(p.root, "cpuinfo"))
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

func (p procProbe) ResetPeak() error {
	if err := os.WriteFile(filepath.Join(p.root, "self", "clear_refs"), []byte("5"), 0); err != nil {
		return fmt.Errorf("reset peak memory: %w", err)
	}
	return nil
}

func (p procProbe) LoadAvg() ([3]float64, error) {
	data, err := os.ReadFile(filepath.Join(p.root, "loadavg"))
	if err != nil {
		return [3]float64{}, fmt.Errorf("read load average: %w", err)
	}
	return parseLoadAvg(data)
}

func parseLoadAvg(data []byte) ([3]float64, error) {
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

// PackageSize is the size on disk of a model: the file itself, or for a
// directory (or a config.json inside one, as MNN packages are named) the
// total of the regular files under it.
func PackageSize(path string) (int64, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("package size: %w", err)
	}
	dir := path
	if !fi.IsDir() {
		if filepath.Ext(path) != ".json" {
			return fi.Size(), nil
		}
		dir = filepath.Dir(path)
	}
	var total int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			info, err := d.Info()
			if err != nil {
				return err
			}
			total += info.Size()
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("package size: %w", err)
	}
	return total, nil
}
