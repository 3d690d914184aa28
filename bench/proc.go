package bench

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pocketeval/pocketeval/internal/procfs"
)

// System is the Probe of this process on Linux (internal/procfs):
// /proc/self/status for VmRSS and VmHWM, /proc/self/clear_refs ("5") to
// reset the peak, and /proc/loadavg.
var System Probe = procfs.FS{}

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
