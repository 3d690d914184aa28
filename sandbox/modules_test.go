//go:build linux

package sandbox

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestZygoteModule: a module registered before a pool starts is loaded
// and warmed once by its zygote, and every program process inherits it in
// the zygote's state, whatever an earlier program did to its own copy.
func TestZygoteModule(t *testing.T) {
	requireRoot(t)
	const name = "_pocketeval_sandbox_test_module"
	RegisterZygoteModule(name, "import os\nzygote = os.getpid()\nwarmed = 0\n\ndef _pe_zygote_warm():\n    global warmed\n    warmed += 1\n")
	p, err := New(Config{Workers: 1, BaseUID: testBaseUID + 4000, Limits: Limits{CPUTime: 2 * time.Second, MemoryBytes: 256 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.HasZygoteModule(name) || p.HasZygoteModule("_pocketeval_not_registered") {
		t.Fatalf("HasZygoteModule: %v", p.modules())
	}
	src := "import os, sys\nm = sys.modules[" + `"` + name + `"` + "]\nassert m.warmed == 1, m.warmed\nassert m.zygote != os.getpid()\nm.warmed = 7\nprint('ok')\n"
	for _, exec := range []Exec{ExecScript, ExecHarness} {
		for range 2 {
			r, err := p.Run(context.Background(), Program{Source: src, Exec: exec})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != Pass || strings.TrimSpace(r.Stdout) != "ok" {
				t.Errorf("exec %v: %s (%s)\n%s%s", exec, r.Verdict, r.Reason, r.Stdout, r.Stderr)
			}
		}
	}
}
