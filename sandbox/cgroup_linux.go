package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	cgroupRoot   = "/sys/fs/cgroup"
	cgroupPrefix = "pocketeval-sandbox-"
)

// cgroups is the pool's parent cgroup: one directory per controller on v1
// (memory, pids) or one directory on v2. Each run gets a child.
type cgroups struct {
	v2      bool
	memory  string // parent dir holding memory limits (v1: memory hierarchy)
	pids    string // parent dir holding pids limits (v1: pids hierarchy)
	memsw   bool   // v1 memory.memsw.* present (swap can be limited)
	created []string
}

// newCgroups creates the pool's parent cgroup under this process's own
// cgroup, for both the memory and pids controllers, or explains why not.
func newCgroups(name string) (*cgroups, error) {
	own, err := ownCgroups()
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(cgroupRoot, "cgroup.controllers")); err == nil {
		return newCgroupsV2(own[""], name)
	}
	mem, okm := own["memory"]
	pids, okp := own["pids"]
	if !okm || !okp {
		return nil, errors.New("cgroup v1 without both the memory and pids controllers")
	}
	cg := &cgroups{}
	cg.memory = filepath.Join(cgroupRoot, "memory", mem, name)
	cg.pids = filepath.Join(cgroupRoot, "pids", pids, name)
	removeStale(filepath.Dir(cg.memory))
	removeStale(filepath.Dir(cg.pids))
	for _, d := range []string{cg.memory, cg.pids} {
		if err := os.Mkdir(d, 0o755); err != nil {
			cg.close()
			return nil, fmt.Errorf("create cgroup: %w", err)
		}
		cg.created = append(cg.created, d)
	}
	_, err = os.Stat(filepath.Join(cg.memory, "memory.memsw.limit_in_bytes"))
	cg.memsw = err == nil
	return cg, nil
}

func newCgroupsV2(own, name string) (*cgroups, error) {
	parent := filepath.Join(cgroupRoot, own)
	ctl, err := os.ReadFile(filepath.Join(parent, "cgroup.controllers"))
	if err != nil {
		return nil, fmt.Errorf("read cgroup controllers: %w", err)
	}
	fields := strings.Fields(string(ctl))
	if !contains(fields, "memory") || !contains(fields, "pids") {
		return nil, fmt.Errorf("cgroup v2 %s lacks the memory or pids controller (has %q)", parent, ctl)
	}
	dir := filepath.Join(parent, name)
	removeStale(parent)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cgroup: %w", err)
	}
	cg := &cgroups{v2: true, memory: dir, pids: dir, created: []string{dir}}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+memory +pids"), 0o644); err != nil {
		cg.close()
		return nil, fmt.Errorf("delegate memory and pids to %s: %w", dir, err)
	}
	return cg, nil
}

// removeStale removes the empty cgroups left by pools of processes that
// died without Close (named pocketeval-sandbox-<pid>-<random>).
func removeStale(parent string) {
	dirs, _ := filepath.Glob(filepath.Join(parent, cgroupPrefix+"*"))
	for _, d := range dirs {
		pidStr, _, _ := strings.Cut(strings.TrimPrefix(filepath.Base(d), cgroupPrefix), "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid == os.Getpid() {
			continue
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			continue // its pool may still be running
		}
		runs, _ := filepath.Glob(filepath.Join(d, "run-*"))
		for _, r := range runs {
			_ = syscall.Rmdir(r)
		}
		_ = syscall.Rmdir(d)
	}
}

// ownCgroups maps controller name ("" for v2) to this process's cgroup path.
func ownCgroups() (map[string]string, error) {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("read own cgroup: %w", err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			m[""] = parts[2]
			continue
		}
		for _, c := range strings.Split(parts[1], ",") {
			m[c] = parts[2]
		}
	}
	return m, sc.Err()
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func (cg *cgroups) detail() string {
	if cg.v2 {
		return "v2 memory.max (swap 0) + pids.max at " + cg.memory
	}
	swap := "swap not limitable"
	if cg.memsw {
		swap = "swap 0"
	}
	return "v1 memory (" + swap + ") + pids under " + filepath.Dir(cg.memory)
}

// close removes the pool's parent cgroups (they must be empty).
func (cg *cgroups) close() error {
	var errs []error
	for i := len(cg.created) - 1; i >= 0; i-- {
		if err := rmdirRetry(cg.created[i]); err != nil {
			errs = append(errs, err)
		}
	}
	cg.created = nil
	return errors.Join(errs...)
}

// runCgroup is one run's cgroup.
type runCgroup struct {
	parent *cgroups
	dirs   []string // distinct dirs (v1: memory, pids; v2: one)
	memory string
}

func (cg *cgroups) newRun(name string, memBytes int64, pidsMax int) (*runCgroup, error) {
	rc := &runCgroup{parent: cg, memory: filepath.Join(cg.memory, name)}
	rc.dirs = []string{rc.memory}
	if p := filepath.Join(cg.pids, name); p != rc.memory {
		rc.dirs = append(rc.dirs, p)
	}
	for _, d := range rc.dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			rc.remove()
			return nil, fmt.Errorf("create run cgroup: %w", err)
		}
	}
	pidsDir := rc.dirs[len(rc.dirs)-1]
	var writes [][2]string
	if cg.v2 {
		writes = [][2]string{
			{"memory.max", strconv.FormatInt(memBytes, 10)},
			{"memory.swap.max", "0"},
			{"pids.max", strconv.Itoa(pidsMax)},
		}
	} else {
		writes = [][2]string{{"memory.limit_in_bytes", strconv.FormatInt(memBytes, 10)}}
		if cg.memsw {
			writes = append(writes, [2]string{"memory.memsw.limit_in_bytes", strconv.FormatInt(memBytes, 10)})
		}
	}
	for _, w := range writes {
		if err := os.WriteFile(filepath.Join(rc.memory, w[0]), []byte(w[1]), 0o644); err != nil {
			if w[0] == "memory.swap.max" && errors.Is(err, os.ErrNotExist) {
				continue
			}
			rc.remove()
			return nil, fmt.Errorf("set %s: %w", w[0], err)
		}
	}
	if !cg.v2 {
		if err := os.WriteFile(filepath.Join(pidsDir, "pids.max"), []byte(strconv.Itoa(pidsMax)), 0o644); err != nil {
			rc.remove()
			return nil, fmt.Errorf("set pids.max: %w", err)
		}
	}
	return rc, nil
}

// fd opens the v2 cgroup directory for CLONE_INTO_CGROUP.
func (rc *runCgroup) fd() (*os.File, error) {
	return os.Open(rc.memory)
}

// add moves pid into every controller's run cgroup (v1).
func (rc *runCgroup) add(pid int) error {
	for _, d := range rc.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			return fmt.Errorf("join cgroup %s: %w", d, err)
		}
	}
	return nil
}

// oomKilled reports whether the kernel OOM-killed a process of the run.
func (rc *runCgroup) oomKilled() bool {
	file, key := "memory.oom_control", "oom_kill"
	if rc.parent.v2 {
		file = "memory.events"
	}
	b, err := os.ReadFile(filepath.Join(rc.memory, file))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == key && f[1] != "0" {
			return true
		}
	}
	return false
}

// kill SIGKILLs every process in the run's cgroups until they are empty.
func (rc *runCgroup) kill() {
	if rc.parent.v2 {
		if err := os.WriteFile(filepath.Join(rc.memory, "cgroup.kill"), []byte("1"), 0o644); err == nil {
			return
		}
	}
	for range 50 {
		alive := 0
		for _, d := range rc.dirs {
			b, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
			if err != nil {
				continue
			}
			for _, s := range strings.Fields(string(b)) {
				if pid, err := strconv.Atoi(s); err == nil {
					alive++
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
		if alive == 0 {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (rc *runCgroup) remove() {
	for _, d := range rc.dirs {
		_ = rmdirRetry(d)
	}
}

// rmdirRetry removes a cgroup directory, waiting briefly for exiting
// processes to leave it.
func rmdirRetry(d string) error {
	var err error
	for range 200 {
		err = syscall.Rmdir(d)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("remove cgroup %s: %w", d, err)
}
