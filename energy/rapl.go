package energy

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// rapl reads the package domains of the powercap class.
type rapl struct {
	dirs []string
	desc Description
}

// topZone matches a top-level RAPL zone directory (intel-rapl:0, not the
// sub-zone intel-rapl:0:1 nor intel-rapl-mmio:0, which mirrors a package).
var topZone = lazyre.New(`^intel-rapl:[0-9]+$`)

// OpenRAPL opens the package domains under root/class/powercap. It fails
// with ErrAbsent when there are none or their counters cannot be read
// (they are root-only on most kernels).
func OpenRAPL(root string) (Source, error) {
	if root == "" {
		root = "/sys"
	}
	base := filepath.Join(root, "class", "powercap")
	entries, err := os.ReadDir(base)
	if err != nil {
		return nil, fmt.Errorf("energy rapl: %w: %w", ErrAbsent, err)
	}
	r := &rapl{desc: Description{Name: "rapl", Counter: true}}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var skipped []string
	for _, n := range names {
		if !topZone.MatchString(n) {
			continue
		}
		dir := filepath.Join(base, n)
		name, err := readString(filepath.Join(dir, "name"))
		if err != nil {
			return nil, fmt.Errorf("energy rapl: %w: %w", ErrAbsent, err)
		}
		if !strings.HasPrefix(name, "package-") {
			skipped = append(skipped, n+" ("+name+")")
			continue
		}
		if _, err := readUint(filepath.Join(dir, "energy_uj")); err != nil {
			return nil, fmt.Errorf("energy rapl %s: %w: %w", dir, ErrAbsent, err)
		}
		max, err := readUint(filepath.Join(dir, "max_energy_range_uj"))
		if err != nil || max == 0 {
			return nil, fmt.Errorf("energy rapl %s: %w: no max_energy_range_uj: %v", dir, ErrAbsent, err)
		}
		r.dirs = append(r.dirs, dir)
		r.desc.Ranges = append(r.desc.Ranges, max)
		r.desc.Conventions = append(r.desc.Conventions, fmt.Sprintf("%s (%s): energy_uj wraps after %d µJ", n, name, max))
	}
	if len(r.dirs) == 0 {
		return nil, fmt.Errorf("energy rapl: %w: no package domain (intel-rapl:N named package-N) under %s", ErrAbsent, base)
	}
	if len(skipped) > 0 {
		r.desc.Conventions = append(r.desc.Conventions, "not summed: "+strings.Join(skipped, ", "))
	}
	r.desc.Path = strings.Join(r.dirs, ",")
	return r, nil
}

func (r *rapl) Describe() Description { return r.desc }

func (r *rapl) Read() (Reading, error) {
	out := Reading{Counters: make([]uint64, len(r.dirs))}
	for i, d := range r.dirs {
		v, err := readUint(filepath.Join(d, "energy_uj"))
		if err != nil {
			return Reading{}, fmt.Errorf("read rapl energy: %w", err)
		}
		out.Counters[i] = v
	}
	return out, nil
}

// CounterDelta is the energy in microjoules between two readings of a
// counter that wraps to 0 after rangeUJ: cur − prev, or, when the counter
// went down, the rest of the range plus cur. (The kernel does not say
// whether the counter can equal rangeUJ; the difference is 1 µJ.)
func CounterDelta(prev, cur, rangeUJ uint64) uint64 {
	if cur >= prev {
		return cur - prev
	}
	return rangeUJ - prev + cur
}
