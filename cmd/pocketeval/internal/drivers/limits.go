package drivers

import (
	"fmt"
	goruntime "runtime"

	"github.com/pocketeval/pocketeval/internal/procfs"
)

// Machine is the capacity the settings of a run are checked against
// before a runtime is opened. A zero field is unknown and not checked.
type Machine struct {
	// Cores is the number of logical CPUs this process may run on.
	Cores int
	// MemAvailable is the memory available without swapping, in bytes.
	MemAvailable int64
	// OpenFiles is the soft limit on open files (ulimit -n).
	OpenFiles int
}

// ThisMachine reads this machine's capacity.
func ThisMachine() Machine {
	return Machine{Cores: goruntime.NumCPU(), MemAvailable: procfs.FS{}.MemAvailable(), OpenFiles: openFilesLimit()}
}

// LimitError is a setting that this machine or the model cannot support:
// more engine threads than the cores can run, more engine contexts than
// memory holds, a context longer than the model was trained on, more
// requests in flight than connections. Each would start a run that
// thrashes, exhausts memory or produces garbage; IgnoreLimits
// (--ignore-limits) runs it anyway.
type LimitError struct {
	Flag   string // the flag to change, e.g. "--threads"
	Reason string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %s (lower it, or pass --ignore-limits to run anyway)", e.Flag, e.Reason)
}

// CheckLimits checks the settings every runtime shares against
// c.Machine, unless c.IgnoreLimits:
//
//   - an in-process engine gets at most one thread per core (--threads);
//   - all its contexts together run at most twice as many threads as
//     there are cores (--concurrency × --threads, or c.Contexts ×
//     --threads when several requests share a context);
//   - a runtime reached over connections keeps fewer requests in flight
//     than the process may open files, less 64 for everything else.
//
// Runtimes check their own settings (the context size against the model,
// the memory its contexts need) in their Validate.
func CheckLimits(caps Caps, c Common) error {
	if c.IgnoreLimits {
		return nil
	}
	m := c.Machine
	threads, workers := max(c.Threads, 1), max(c.Workers, 1)
	contexts := workers
	if c.Contexts > 0 {
		contexts = c.Contexts
	}
	switch {
	case caps.InProcess && m.Cores > 0 && threads > m.Cores:
		return &LimitError{Flag: "--threads", Reason: fmt.Sprintf("%d threads per engine, but this machine has %d cores; threads beyond the cores only slow each other down", threads, m.Cores)}
	case caps.InProcess && m.Cores > 0 && contexts > 2*m.Cores/threads:
		return &LimitError{Flag: "--concurrency/--parallel", Reason: fmt.Sprintf("%d engine contexts of %d threads each would run %d threads on %d cores (at most twice the cores)", contexts, threads, contexts*threads, m.Cores)}
	case !caps.InProcess && m.OpenFiles > 0 && workers > max(m.OpenFiles-64, 1):
		return &LimitError{Flag: "--concurrency/--parallel", Reason: fmt.Sprintf("%d requests in flight need as many connections, but this process may open %d files (ulimit -n)", workers, m.OpenFiles)}
	}
	return nil
}
