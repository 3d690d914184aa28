package sandbox

import (
	_ "embed"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

//go:embed zygote.py
var zygoteSource string

// Config configures a Pool. The zero value is usable: it resolves python3
// from PATH, sizes the pool to the machine and uses DefaultLimits.
type Config struct {
	// Python is the interpreter to run. Empty means python3 from PATH. A
	// pyenv-style shim is resolved to the real interpreter once, at New.
	Python string
	// Workers bounds how many programs run at once (one warm worker per
	// slot, started on first use). Zero means GOMAXPROCS.
	Workers int
	// Limits are the defaults for programs that leave a limit at zero.
	// Zero fields take DefaultLimits.
	Limits Limits
	// Unsafe allows running below the minimum isolation (see Layers.Check).
	// It never disables a layer that works; it only lifts the refusal.
	Unsafe bool
	// TempDir holds the workers' private roots (and, without a mount
	// namespace, the per-run scratch directories). Empty means os.TempDir().
	TempDir string
	// HelperPath is the binary re-executed as the set-up helper. Empty
	// means this process's own executable, which must call MaybeRunHelper
	// first thing in main (or TestMain).
	HelperPath string
	// BaseUID is the first of the 65536 unprivileged uids used in root
	// mode, one per run in turn. Zero picks a block for this pool from
	// 200000 up (by process id and a per-process counter), so concurrent
	// pools do not share uids.
	BaseUID int
	// WorkersPerZygote lets one zygote process serve up to this many
	// workers: the zygote the worker's set-up helper starts forks the
	// others (siblings) once it is ready, before any program ran, instead
	// of each worker starting, importing, warming up and training its own
	// interpreter. Every program still gets all of its own per-program
	// layers; the workers of one zygote share the worker-level ones (the
	// private root, the zygote's cgroup and namespaces). Only where every
	// program runs under its own uid (root mode, or no namespaces as
	// root): in rootless mode all of a worker's processes share one uid
	// and so one RLIMIT_NPROC count. Zero or one: one zygote per worker.
	WorkersPerZygote int

	// onlyMode restricts the probe to one mode (tests of the ladder).
	onlyMode string
	// noCgroup runs without cgroups (tests of the rlimit fallback).
	noCgroup bool
	// failProbe makes the probe program fail in the mode of that name, as
	// on a machine where that set-up does not work (tests of the ladder).
	failProbe string
}

// DefaultLimits are used for any limit left at zero by both the Program
// and the Config. Idle and Wall derive from CPUTime (see Limits).
var DefaultLimits = Limits{
	CPUTime:     10 * time.Second,
	MemoryBytes: 1 << 30,
	OutputBytes: 8 << 20,
}

// keepBytes is how much of stdout and of stderr a Result keeps (the head).
const keepBytes = 64 << 10

// minWall is the smallest default wall-clock hang guard.
const minWall = 60 * time.Second

// resolve fills zero fields of l from def (then DefaultLimits). Idle and
// Wall left at zero derive from the run's own CPU limit when it sets one:
// Idle = CPUTime, Wall = max(60 s, 20 × CPUTime), or Alarm + 1 s when the
// harness timer is set.
func (l Limits) resolve(def Limits) Limits {
	own := l.CPUTime != 0
	if l.CPUTime == 0 {
		l.CPUTime = def.CPUTime
	}
	if l.CPUTime == 0 {
		l.CPUTime = DefaultLimits.CPUTime
	}
	if l.Idle == 0 && !own {
		l.Idle = def.Idle
	}
	if l.Idle == 0 {
		l.Idle = l.CPUTime
	}
	if l.Stopped == 0 && !own {
		l.Stopped = def.Stopped
	}
	if l.Stopped == 0 {
		l.Stopped = l.Idle
	}
	if l.Wall == 0 && l.Alarm > 0 {
		l.Wall = l.Alarm + time.Second
	}
	if l.Wall == 0 && !own {
		l.Wall = def.Wall
	}
	if l.Wall == 0 {
		l.Wall = minWall
		if l.CPUTime < math.MaxInt64/20 { // 20 × a huge limit overflows
			l.Wall = max(minWall, 20*l.CPUTime)
		} else {
			l.Wall = math.MaxInt64
		}
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = def.MemoryBytes
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = DefaultLimits.MemoryBytes
	}
	if l.OutputBytes == 0 {
		l.OutputBytes = def.OutputBytes
	}
	if l.OutputBytes == 0 {
		l.OutputBytes = DefaultLimits.OutputBytes
	}
	return l
}

// Layer is one isolation mechanism and whether a Pool uses it.
type Layer struct {
	Name   string `json:"name"`
	Active bool   `json:"active"`
	// Detail says how the layer is realised (e.g. "v1 memory+pids") or,
	// when inactive, why.
	Detail string `json:"detail,omitempty"`
}

// Layers is the probe's report: the run mode and every layer, in the
// order they are applied. Runners record it in the run manifest.
type Layers struct {
	// Mode is "root" (namespaces as real root, then a fresh uid per run),
	// "rootless" (user namespace), "no-namespaces" or "unsafe-plain".
	Mode   string  `json:"mode"`
	Python string  `json:"python"`
	Layers []Layer `json:"layers"`
	// Unsafe is set when the pool runs below the minimum isolation
	// because Config.Unsafe allowed it.
	Unsafe bool `json:"unsafe,omitempty"`
}

// Active reports whether the named layer is active.
func (ls Layers) Active(name string) bool {
	for _, l := range ls.Layers {
		if l.Name == name {
			return l.Active
		}
	}
	return false
}

// landlockABI returns the detected Landlock ABI from the layer detail
// ("ABI 7"), or 0.
func (ls Layers) landlockABI() int {
	for _, l := range ls.Layers {
		if l.Name == LayerLandlock && l.Active {
			var v int
			if _, err := fmt.Sscanf(l.Detail, "ABI %d", &v); err == nil {
				return v
			}
		}
	}
	return 0
}

// Layer names.
const (
	LayerSupervisor = "supervisor"    // timers, whole-tree kill, output caps, empty env, stdin /dev/null
	LayerPIDNS      = "pid-namespace" // daemons die with the program; no signals to host processes
	LayerNetNS      = "net-namespace" // only a loopback device
	LayerMountNS    = "mount-namespace"
	LayerIPCNS      = "ipc-namespace"
	LayerUTSNS      = "uts-namespace"
	LayerUserNS     = "user-namespace" // rootless mode only
	LayerRoot       = "private-root"   // tmpfs root, read-only system and interpreter, writable scratch
	LayerCgroup     = "cgroup"         // memory (swap 0) and pids limits per run
	LayerRlimits    = "rlimits"
	LayerUID        = "uid-drop"
	LayerLandlock   = "landlock"
	LayerSeccomp    = "seccomp"
	LayerIntegrity  = "integrity"   // run-to-completion nonce, assert == rewrite
	LayerFreshState = "fresh-state" // a fresh fork of a pre-initialised interpreter per program
)

// ErrInsufficientIsolation is returned by New when the machine cannot
// provide the minimum isolation and Config.Unsafe is not set.
var ErrInsufficientIsolation = errors.New("insufficient isolation")

// Check reports whether the layers reach the minimum isolation: one of
// {mount namespace, Landlock} for the filesystem and one of {network
// namespace, Landlock ABI >= 4} for the network.
func (ls Layers) Check() error {
	var missing []string
	if !ls.Active(LayerMountNS) && !ls.Active(LayerLandlock) {
		missing = append(missing, "filesystem (needs a mount namespace or Landlock)")
	}
	if !ls.Active(LayerNetNS) && ls.landlockABI() < 4 {
		missing = append(missing, "network (needs a network namespace or Landlock ABI >= 4)")
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: no isolation of %s; only unsafe mode runs anyway",
			ErrInsufficientIsolation, strings.Join(missing, " and "))
	}
	return nil
}

// String renders the report as aligned lines, one layer per line.
func (ls Layers) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mode: %s\npython: %s\n", ls.Mode, ls.Python)
	w := 0
	for _, l := range ls.Layers {
		w = max(w, len(l.Name))
	}
	for _, l := range ls.Layers {
		state := "active  "
		if !l.Active {
			state = "inactive"
		}
		fmt.Fprintf(&b, "  %-*s  %s  %s\n", w, l.Name, state, l.Detail)
	}
	if ls.Unsafe {
		b.WriteString("UNSAFE: running below the minimum isolation (explicitly requested)\n")
	}
	return b.String()
}
