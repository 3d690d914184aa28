package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	cgroupRoot   = "/sys/fs/cgroup"
	cgroupPrefix = "pocketeval-sandbox-"
)

// cgroups is the pool's parent cgroup: on v1 one directory per controller
// hierarchy (memory, pids, and cpuacct when mounted), on v2 one directory.
// Every worker's zygote and every run gets a child group.
type cgroups struct {
	v2      bool
	memory  string // pool dir in the memory hierarchy (v2: the pool dir)
	pids    string // pool dir in the pids hierarchy
	cpuacct string // pool dir in the cpuacct hierarchy ("" when absent)
	memsw   bool   // v1 memory.memsw.* present (swap can be limited)
	created []string
}

// newCgroups creates the pool's parent cgroup under this process's own
// cgroup, for the memory, pids and (when available) CPU accounting
// controllers, or explains why not.
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
	dirs := []string{cg.memory, cg.pids}
	if acct, ok := own["cpuacct"]; ok {
		if _, err := os.Stat(filepath.Join(cgroupRoot, "cpuacct", acct, "cpuacct.usage")); err == nil {
			cg.cpuacct = filepath.Join(cgroupRoot, "cpuacct", acct, name)
			dirs = append(dirs, cg.cpuacct)
		}
	}
	for _, d := range dirs {
		removeStale(filepath.Dir(d))
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
	if !slices.Contains(fields, "memory") || !slices.Contains(fields, "pids") {
		return nil, fmt.Errorf("cgroup v2 %s lacks the memory or pids controller (has %q)", parent, ctl)
	}
	dir := filepath.Join(parent, name)
	removeStale(parent)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create cgroup: %w", err)
	}
	cg := &cgroups{v2: true, memory: dir, pids: dir, cpuacct: dir, created: []string{dir}}
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
		children, _ := filepath.Glob(filepath.Join(d, "*"))
		for _, c := range children {
			if fi, err := os.Stat(c); err == nil && fi.IsDir() {
				_ = syscall.Rmdir(c)
			}
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

func (cg *cgroups) detail() string {
	if cg.v2 {
		return "v2 memory.max (swap 0) + pids.max + cpu.stat at " + cg.memory
	}
	swap := "swap not limitable"
	if cg.memsw {
		swap = "swap 0"
	}
	acct := ""
	if cg.cpuacct != "" {
		acct = " + cpuacct"
	}
	return "v1 memory (" + swap + ") + pids" + acct + " under " + filepath.Dir(cg.memory)
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

// group is one child cgroup of the pool: a worker's zygote or one run.
type group struct {
	parent  *cgroups
	dirs    []string // distinct dirs (v1: memory, pids[, cpuacct]; v2: one)
	memory  string
	pids    string
	cpuacct string
	// files keeps the counters a run's monitor reads every tick open
	// (nil: each read opens the file).
	files *statFiles
}

// newGroup creates the child cgroup name with a memory limit (swap 0 where
// it can be limited) and pids.max.
func (cg *cgroups) newGroup(name string, memBytes int64, pidsMax int) (*group, error) {
	g := &group{parent: cg, memory: filepath.Join(cg.memory, name), pids: filepath.Join(cg.pids, name)}
	if cg.cpuacct != "" {
		g.cpuacct = filepath.Join(cg.cpuacct, name)
	}
	for _, d := range []string{g.memory, g.pids, g.cpuacct} {
		if d != "" && !slices.Contains(g.dirs, d) {
			g.dirs = append(g.dirs, d)
		}
	}
	for _, d := range g.dirs {
		if err := os.Mkdir(d, 0o755); err != nil {
			g.remove()
			return nil, fmt.Errorf("create cgroup %s: %w", name, err)
		}
	}
	mem := strconv.FormatInt(memBytes, 10)
	var writes [][2]string
	if cg.v2 {
		writes = [][2]string{
			{filepath.Join(g.memory, "memory.max"), mem},
			{filepath.Join(g.memory, "memory.swap.max"), "0"},
		}
	} else {
		writes = [][2]string{{filepath.Join(g.memory, "memory.limit_in_bytes"), mem}}
		if cg.memsw {
			writes = append(writes, [2]string{filepath.Join(g.memory, "memory.memsw.limit_in_bytes"), mem})
		}
	}
	writes = append(writes, [2]string{filepath.Join(g.pids, "pids.max"), strconv.Itoa(pidsMax)})
	for _, w := range writes {
		if err := os.WriteFile(w[0], []byte(w[1]), 0o644); err != nil {
			if strings.HasSuffix(w[0], "memory.swap.max") && errors.Is(err, os.ErrNotExist) {
				continue
			}
			g.remove()
			return nil, fmt.Errorf("set %s: %w", filepath.Base(w[0]), err)
		}
	}
	return g, nil
}

// procsFiles opens cgroup.procs of every controller's directory for
// writing: a process that writes "0" to each joins the group.
func (g *group) procsFiles() ([]*os.File, error) {
	var fs []*os.File
	for _, d := range g.dirs {
		f, err := os.OpenFile(filepath.Join(d, "cgroup.procs"), os.O_WRONLY, 0)
		if err != nil {
			for _, f := range fs {
				f.Close()
			}
			return nil, fmt.Errorf("open cgroup.procs: %w", err)
		}
		fs = append(fs, f)
	}
	return fs, nil
}

// fd opens the v2 cgroup directory for CLONE_INTO_CGROUP.
func (g *group) fd() (*os.File, error) {
	return os.Open(g.memory)
}

// add moves pid into every controller's directory (v1).
func (g *group) add(pid int) error {
	for _, d := range g.dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			return fmt.Errorf("join cgroup %s: %w", d, err)
		}
	}
	return nil
}

// cpuUsage is the CPU time used by every process that ever ran in the
// group; ok is false without CPU accounting.
func (g *group) cpuUsage() (time.Duration, bool) {
	if g.cpuacct == "" {
		return 0, false
	}
	if g.parent.v2 {
		v, ok := g.readKeyed(filepath.Join(g.cpuacct, "cpu.stat"), "usage_usec")
		return time.Duration(v) * time.Microsecond, ok
	}
	b, ok := g.files.read(filepath.Join(g.cpuacct, "cpuacct.usage"))
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return time.Duration(v), err == nil
}

// tasks lists the host thread ids in the group.
func (g *group) tasks() []int {
	file := filepath.Join(g.pids, "tasks")
	if g.parent.v2 {
		file = filepath.Join(g.pids, "cgroup.threads")
	}
	// Opened for every read: a v1 tasks file read again from offset 0
	// repeats the list it built first (for a second after the last read).
	b, ok := readFresh(file)
	if !ok {
		return nil
	}
	var out []int
	for _, s := range strings.Fields(string(b)) {
		if id, err := strconv.Atoi(s); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// oomKilled reports whether the kernel OOM-killed a process of the group.
func (g *group) oomKilled() bool {
	file := filepath.Join(g.memory, "memory.oom_control")
	if g.parent.v2 {
		file = filepath.Join(g.memory, "memory.events")
	}
	v, _ := g.readKeyed(file, "oom_kill")
	return v > 0
}

// limitHit reports whether the group's memory use reached its limit.
func (g *group) limitHit() bool {
	if g.parent.v2 {
		v, _ := g.readKeyed(filepath.Join(g.memory, "memory.events"), "max")
		return v > 0
	}
	for _, f := range []string{"memory.failcnt", "memory.memsw.failcnt"} {
		if b, err := os.ReadFile(filepath.Join(g.memory, f)); err == nil && strings.TrimSpace(string(b)) != "0" {
			return true
		}
	}
	return false
}

// readKeyed reads "key value" lines and returns key's value.
func (g *group) readKeyed(file, key string) (int64, bool) {
	b, ok := g.files.read(file)
	if !ok {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == key {
			v, err := strconv.ParseInt(f[1], 10, 64)
			return v, err == nil
		}
	}
	return 0, false
}

// procs lists the processes in the group.
func (g *group) procs() []int {
	var out []int
	for _, d := range g.dirs {
		b, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(s); err == nil && !slices.Contains(out, pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// kill SIGKILLs every process in the group until it is empty, and reports
// whether it is.
func (g *group) kill() bool {
	if g.parent.v2 {
		_ = os.WriteFile(filepath.Join(g.memory, "cgroup.kill"), []byte("1"), 0o644)
	}
	for range 500 {
		pids := g.procs()
		if len(pids) == 0 {
			return true
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(2 * time.Millisecond)
	}
	return len(g.procs()) == 0
}

func (g *group) remove() {
	g.files.close()
	for _, d := range g.dirs {
		_ = rmdirRetry(d)
	}
}

// rmdirRetry removes a cgroup directory, waiting briefly for exiting
// processes to leave it.
func rmdirRetry(d string) error {
	var err error
	for range 400 {
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
