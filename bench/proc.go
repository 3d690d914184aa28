package bench

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"runtime/metrics"

	"github.com/pocketeval/pocketeval/internal/procfs"
)

// System is the Probe of this process on Linux (internal/procfs):
// /proc/self/status for VmRSS and VmHWM, /proc/self/clear_refs ("5") to
// reset the peak, and /proc/loadavg; it is also a GoMemoryProbe.
var System Probe = system{}

type system struct{ procfs.FS }

// GoMemory collects garbage, then returns the memory the Go runtime
// holds in use (runtime/metrics: all its classes less the free and
// released heap).
func (system) GoMemory() int64 {
	goruntime.GC()
	samples := []metrics.Sample{
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
	}
	metrics.Read(samples)
	var v [3]int64
	for i, s := range samples {
		if s.Value.Kind() != metrics.KindUint64 {
			return 0
		}
		v[i] = int64(s.Value.Uint64())
	}
	return v[0] - v[1] - v[2]
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
