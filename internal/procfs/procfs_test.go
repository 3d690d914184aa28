package procfs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		in        string
		rss, peak int64
		wantErr   bool
	}{
		{"ok", "Name:\tx\nVmPeak:\t  9 kB\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n", 1 << 20, 2 << 20, false},
		{"missing", "VmRSS:\t1 kB\n", 0, 0, true},
		{"bad unit", "VmRSS:\t1 MB\nVmHWM:\t1 kB\n", 0, 0, true},
		{"bad number", "VmRSS:\tx kB\nVmHWM:\t1 kB\n", 0, 0, true},
	}
	for _, tt := range tests {
		rss, peak, err := ParseStatus([]byte(tt.in))
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, wantErr %v", tt.name, err, tt.wantErr)
		}
		if rss != tt.rss || peak != tt.peak {
			t.Errorf("%s: got %d, %d; want %d, %d", tt.name, rss, peak, tt.rss, tt.peak)
		}
	}
}

func TestParseLoadAvg(t *testing.T) {
	t.Parallel()
	la, err := ParseLoadAvg([]byte("1.87 0.74 0.28 3/107 10854\n"))
	if err != nil || la != [3]float64{1.87, 0.74, 0.28} {
		t.Errorf("got %v, %v", la, err)
	}
	if _, err := ParseLoadAvg([]byte("1.0 x 2\n")); err == nil {
		t.Error("no error for a bad field")
	}
}

// TestFakeTree reads every fact from a fake /proc.
func TestFakeTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(s), 0o644)
	}
	write("self/status", "VmHWM:\t 300 kB\nVmRSS:\t 200 kB\n")
	write("loadavg", "0.50 0.25 0.10 1/2 3\n")
	write("cpuinfo", "processor\t: 0\nmodel name\t: Toy CPU @ 1GHz\n")
	write("meminfo", "MemTotal:       2048 kB\nMemFree: 1 kB\n")
	write("sys/kernel/osrelease", "6.1.0-toy\n")
	fs := FS{Root: root}
	if rss, peak, err := fs.Memory(); err != nil || rss != 200*1024 || peak != 300*1024 {
		t.Errorf("Memory = %d, %d, %v", rss, peak, err)
	}
	if la, err := fs.LoadAvg(); err != nil || la[0] != 0.5 {
		t.Errorf("LoadAvg = %v, %v", la, err)
	}
	if m := fs.CPUModel(); m != "Toy CPU @ 1GHz" {
		t.Errorf("CPUModel = %q", m)
	}
	if m := fs.MemTotal(); m != 2048*1024 {
		t.Errorf("MemTotal = %d", m)
	}
	if k := fs.KernelRelease(); k != "6.1.0-toy" {
		t.Errorf("KernelRelease = %q", k)
	}
	empty := FS{Root: t.TempDir()}
	if _, _, err := empty.Memory(); err == nil {
		t.Error("Memory of an empty tree: no error")
	}
	if empty.CPUModel() != "" || empty.MemTotal() != 0 || empty.KernelRelease() != "" {
		t.Error("an empty tree reported facts")
	}
}
