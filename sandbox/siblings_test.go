//go:build linux

package sandbox

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// siblingsPool is a pool of four workers served by one zygote process
// (Config.WorkersPerZygote), with every slot filled.
func siblingsPool(t *testing.T, base int, only string) (*Pool, []*worker) {
	t.Helper()
	requireRoot(t)
	cfg := Config{Workers: 4, WorkersPerZygote: 4, BaseUID: base, Limits: Limits{CPUTime: 5 * time.Second, MemoryBytes: 256 << 20}}
	if only != "" {
		// Debian's interpreter: the no-namespaces mode's dropped uid
		// cannot read one under /root.
		const debianPython = "/usr/bin/python3"
		if _, err := os.Stat(debianPython); err != nil {
			t.Skip("no ", debianPython)
		}
		cfg.Python, cfg.onlyMode = debianPython, only
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	if want := cmp.Or(only, "root"); p.mode.name != want {
		t.Skipf("mode %s, not %s", p.mode.name, want)
	}
	var ws []*worker
	slots := make([]*slot, 0, 4)
	for range 4 {
		slots = append(slots, <-p.slots)
	}
	p.starting.Wait()
	for _, s := range slots {
		ws = append(ws, s.w)
		p.slots <- s
	}
	return p, ws
}

// TestWorkersShareZygote: with WorkersPerZygote the pool starts one
// zygote process whose siblings serve the other workers; each sibling
// pinned its own copy of the learned pages and holds the interpreter's
// code in huge pages as the leader does; closing the pool ends them all.
func TestWorkersShareZygote(t *testing.T) {
	for _, only := range []string{"", "no-namespaces"} {
		t.Run(cmp.Or(only, "root"), func(t *testing.T) { testWorkersShareZygote(t, only) })
	}
}

func testWorkersShareZygote(t *testing.T, only string) {
	p, ws := siblingsPool(t, testBaseUID+5000, only)
	var lead *worker
	for i, w := range ws {
		if w == nil {
			t.Fatalf("slot %d: no worker", i)
		}
		if lead == nil {
			lead = w.grp.leader
		}
		if w.grp.leader != lead {
			t.Errorf("worker %d has a zygote of its own, want one zygote for all four", w.id)
		}
		if w != lead && w.cmd != nil {
			t.Errorf("sibling %d started a process of its own", w.id)
		}
		t.Logf("worker %d: %d pages learned, %d pinned, %d huge code ranges", w.id, w.batchPages, w.pinnedPages, w.hugeCode)
		if w.batchPages != lead.batchPages || w.pinnedPages != lead.pinnedPages || w.hugeCode != lead.hugeCode {
			t.Errorf("worker %d: %d/%d/%d pages learned/pinned/huge, the leader %d/%d/%d", w.id,
				w.batchPages, w.pinnedPages, w.hugeCode, lead.batchPages, lead.pinnedPages, lead.hugeCode)
		}
	}
	if lead == nil {
		return
	}
	// Programs run on every worker, the siblings' as the leader's.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			res, err := p.Run(context.Background(), Program{Source: "import time\ntime.sleep(0.05)\nassert sum([1, 2]) == 3\n"})
			if err != nil || res.Verdict != Pass {
				t.Errorf("program %d: %s %v %s %s", i, res.Verdict, err, res.Reason, res.Stderr)
			}
		})
	}
	wg.Wait()
	// Closing the leader first leaves its siblings serving; the process
	// goes with the last worker of the group.
	lead.close()
	select {
	case <-lead.exit:
		t.Error("the leader's close ended the zygote process")
	default:
	}
	res, err := ws[3].run(context.Background(), Program{Source: "assert 1 + 1 == 2\n"}, Limits{}.resolve(p.limits))
	if err != nil || res.Verdict != Pass {
		t.Errorf("a sibling after its leader closed: %s %v %s", res.Verdict, err, res.Reason)
	}
	p.Close()
	select {
	case <-lead.exit:
	case <-time.After(10 * time.Second):
		t.Error("the zygote process still runs after Close")
	}
}

// TestSiblingProgramsApart: four programs running at once on the four
// workers of one zygote process (as the two sides of isolated programs
// do) each have their own PID, mount, IPC, UTS, network and cgroup
// namespaces, uid, /tmp and scratch; none can see, signal or reach
// (abstract UNIX sockets) another.
func TestSiblingProgramsApart(t *testing.T) {
	p, _ := siblingsPool(t, testBaseUID+6000, "")
	const src = `import os, json, signal, time, socket
me = os.getpid()
info = {"me": me, "uid": os.getuid(), "procs": sorted(n for n in os.listdir("/proc") if n.isdigit())}
for ns in ("pid", "mnt", "ipc", "uts", "net", "cgroup"):
    info[ns] = os.readlink("/proc/self/ns/" + ns)
open("/tmp/mark", "w").write(str(os.getuid()))
# Wait until every program has started (the marks of the others are never
# visible: each /tmp is its own, as is each scratch directory).
time.sleep(0.5)
info["tmp"] = sorted(os.listdir("/tmp"))
info["scratch"] = sorted(os.listdir("."))
# Abstract UNIX sockets of the others: each program binds its own name,
# then tries to reach every other's.
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0pocketeval-sib-%d" % os.getuid())
time.sleep(0.3)
reached = []
for u in range(UIDLO, UIDLO + 64):
    if u == os.getuid():
        continue
    try:
        s.sendto(b"x", "\0pocketeval-sib-%d" % u)
        reached.append(u)
    except OSError:
        pass
info["reached"] = reached
killed = []
for pid in range(1, 300):
    if pid in (1, me):
        continue
    try:
        os.kill(pid, 0)
        killed.append(pid)
    except OSError:
        pass
info["signalled"] = killed
print(json.dumps(info))
`
	src2 := strings.ReplaceAll(src, "UIDLO", itoa(testBaseUID+6000))
	var wg sync.WaitGroup
	infos := make([]map[string]any, 4)
	for i := range infos {
		wg.Go(func() {
			res, err := p.Run(context.Background(), Program{Source: src2})
			if err != nil || res.Verdict != Pass {
				t.Errorf("program %d: %s %v %s %s", i, res.Verdict, err, res.Reason, res.Stderr)
				return
			}
			if err := json.Unmarshal([]byte(res.Stdout), &infos[i]); err != nil {
				t.Errorf("program %d: %v: %q", i, err, res.Stdout)
			}
		})
	}
	wg.Wait()
	for _, key := range []string{"pid", "mnt", "ipc", "uts", "net", "cgroup", "uid"} {
		seen := map[string]int{}
		for i, in := range infos {
			if in == nil {
				continue
			}
			v := strings.TrimSpace(toString(in[key]))
			if j, dup := seen[v]; dup {
				t.Errorf("programs %d and %d share %s %s", j, i, key, v)
			}
			seen[v] = i
		}
	}
	for i, in := range infos {
		if in == nil {
			continue
		}
		t.Logf("program %d: pid %v uid %v procs %v tmp %v scratch %v reached %v signalled %v", i,
			in["me"], in["uid"], in["procs"], in["tmp"], in["scratch"], in["reached"], in["signalled"])
		if toString(in["me"]) != "2" || toString(in["procs"]) != "[1 2]" {
			t.Errorf("program %d is pid %v and sees %v, want pid 2 seeing [1 2]", i, in["me"], in["procs"])
		}
		if toString(in["tmp"]) != "[mark]" || toString(in["scratch"]) != "[main.py]" {
			t.Errorf("program %d sees /tmp %v and scratch %v, want its own mark only", i, in["tmp"], in["scratch"])
		}
		if toString(in["reached"]) != "[]" {
			t.Errorf("program %d reached the abstract sockets of uids %v", i, in["reached"])
		}
		if toString(in["signalled"]) != "[]" {
			t.Errorf("program %d could signal pids %v", i, in["signalled"])
		}
	}
}

func toString(v any) string {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = toString(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case float64:
		return itoa(int(x))
	case string:
		return x
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
