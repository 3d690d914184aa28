//go:build linux

package sandbox

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// codeChunks is a program (run by the interpreter outside the sandbox and
// inside it) that prints how many 2 MiB-aligned ranges of the file holding
// the interpreter's code are wholly covered by that file's read-only,
// unwritten mappings at their file offsets ("file N"), how many 2 MiB
// ranges are anonymous among the file's mappings ("moved N"), and fails unless
// each of those holds exactly the file's bytes at that place.
const codeChunks = `import ctypes, os
page = os.sysconf("SC_PAGESIZE")
huge = page * (page // 8)
code = ctypes.cast(ctypes.pythonapi.PyEval_EvalCode, ctypes.c_void_p).value
maps = []
with open("/proc/self/smaps") as f:
    for line in f:
        p = line.split()
        if "-" in p[0] and len(p) >= 5 and p[0][0] in "0123456789abcdef":
            lo, hi = (int(x, 16) for x in p[0].split("-"))
            maps.append([lo, hi, p[1], int(p[2], 16), p[3], int(p[4]), p[5] if len(p) > 5 else "", 0])
        elif p[0] == "Anonymous:":
            maps[-1][7] = int(p[1])
path = PATH
if path is None:
    path = [m for m in maps if m[0] <= code < m[1]][0][6]
mine = [m for m in maps if m[6] == path]
ro = [m for m in mine if m[2] in ("r--p", "r-xp") and m[7] == 0]
first = min(ro, key=lambda m: m[3])
base = first[0] - first[3]
ro = sorted(m for m in ro if m[0] - m[3] == base)
hi_all = max(m[1] for m in mine)
chunks = 0
c = base & ~(huge - 1)
while c < hi_all:
    pos = c
    for m in ro:
        if m[0] <= pos < m[1]:
            pos = m[1]
    chunks += pos >= c + huge
    c += huge
moved = [m for m in maps if m[5] == 0 and m[6] == "" and m[2] in ("r--p", "r-xp") and base <= m[0] and m[1] <= hi_all]
with open(path, "rb") as f:
    for m in moved:
        assert m[0] % huge == 0 and (m[1] - m[0]) % huge == 0, m
        f.seek(m[0] - base)
        assert ctypes.string_at(m[0], m[1] - m[0]) == f.read(m[1] - m[0]), "moved range %x differs from the file" % m[0]
print(path, "file", chunks, "moved", sum((m[1] - m[0]) // huge for m in moved))
`

// TestHugeCode: each zygote moves the 2 MiB ranges of the interpreter's
// code into huge pages where the kernel gives them, with the file's
// contents at the same addresses, and programs run from them.
func TestHugeCode(t *testing.T) {
	requireRoot(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	out, err := exec.Command(py, "-I", "-c", strings.Replace(codeChunks, "PATH", "None", 1)).CombinedOutput()
	if err != nil {
		t.Fatalf("outside the sandbox: %v\n%s", err, out)
	}
	f := strings.Fields(string(out))
	if len(f) != 5 || f[1] != "file" || f[3] != "moved" || f[4] != "0" {
		t.Fatalf("outside the sandbox: %q, want PATH file N moved 0", out)
	}
	chunks, _ := strconv.Atoi(f[2])
	inside := strings.Replace(codeChunks, "PATH", strconv.Quote(f[0]), 1)
	thp, _ := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	hugeOK := len(thp) > 0 && !strings.Contains(string(thp), "[never]")
	if hugeOK && !hugePageGiven(t) {
		// The kernel offers huge pages but has none free (fragmented
		// memory): the zygotes may move fewer ranges, never more.
		t.Logf("no huge page free for this process: not every range need move")
		hugeOK = false
	}

	p := testPool(t)
	for i := 0; i < 2; i++ { // on both workers
		r, err := p.Run(context.Background(), Program{Source: inside})
		if err != nil || r.Verdict != Pass {
			t.Fatalf("in the sandbox: %s (%s) %v\n%s%s", r.Verdict, r.Reason, err, r.Stdout, r.Stderr)
		}
		g := strings.Fields(r.Stdout)
		if len(g) != 5 || g[0] != f[0] {
			t.Fatalf("in the sandbox: %q", r.Stdout)
		}
		moved, _ := strconv.Atoi(g[4])
		t.Logf("interpreter %s (code in %s): %d whole 2 MiB ranges, %d moved (transparent huge pages: %s)", py, f[0], chunks, moved, strings.TrimSpace(string(thp)))
		if moved > chunks {
			t.Errorf("%d ranges moved, only %d can be", moved, chunks)
		}
		if hugeOK && moved != chunks {
			t.Errorf("%d of %d ranges moved, want all (huge pages on request)", moved, chunks)
		}
		if len(thp) == 0 || strings.Contains(string(thp), "[never]") {
			if moved != 0 {
				t.Errorf("%d ranges moved without huge pages", moved)
			}
		}
	}
	p.starting.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for w := range p.workers {
		if w.hugeCode < 0 || w.hugeCode > chunks || hugeOK && w.hugeCode != chunks {
			t.Errorf("worker %d reports %d ranges moved of %d", w.id, w.hugeCode, chunks)
		}
	}
}

// hugePageGiven reports whether a fresh 2 MiB-aligned MADV_HUGEPAGE range
// of this process gets a huge page at its first touch.
func hugePageGiven(t *testing.T) bool {
	const huge = 2 << 20
	b, err := unix.Mmap(-1, 0, 2*huge, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return false
	}
	defer unix.Munmap(b)
	off := int((huge - uintptr(unsafe.Pointer(&b[0]))%huge) % huge)
	r := b[off : off+huge]
	if unix.Madvise(r, unix.MADV_HUGEPAGE) != nil {
		return false
	}
	r[0] = 1
	lo := uintptr(unsafe.Pointer(&r[0]))
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return false
	}
	in := false
	for line := range strings.Lines(string(data)) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if a, b, ok := strings.Cut(f[0], "-"); ok && len(f) >= 5 {
			start, err1 := strconv.ParseUint(a, 16, 64)
			end, err2 := strconv.ParseUint(b, 16, 64)
			in = err1 == nil && err2 == nil && uint64(lo) >= start && uint64(lo) < end
			continue
		}
		if in && f[0] == "AnonHugePages:" {
			kb, _ := strconv.Atoi(f[1])
			t.Logf("a fresh huge-page range of this process: AnonHugePages %d kB", kb)
			return kb >= huge>>10
		}
	}
	return false
}
