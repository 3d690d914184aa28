package sandbox

import (
	"fmt"
	"slices"
	"sync"
)

// pyModule is Python code every zygote loads at its start (see
// RegisterZygoteModule).
type pyModule struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

var zygoteModules struct {
	sync.Mutex
	list []pyModule
}

// RegisterZygoteModule adds Python code that every zygote of the pools
// this process starts afterwards loads once, before it forks any program:
// the source is compiled and run as the module name and put in
// sys.modules, so every program process inherits it ready to use (import
// it, or take it from sys.modules) instead of compiling and running the
// same code itself. If the module defines _pe_zygote_warm, the zygote
// calls it once after loading, so the code a program will run is already
// specialised and its caches filled in the zygote: it must only compute
// (no threads, descriptors, signals or other process state). If it
// defines _pe_zygote_train, the zygote's training child (the throwaway
// process that learns which of the zygote's pages programs write; see
// docs/sandbox.md, "Speed") calls it after the warm-up, already inside
// its own sandbox: it may start threads and open pipes of its own (the
// child ends right after), and the pages it writes are copied, or
// pinned, for every program process, so the code it runs faults on
// fewer pages there.
//
// The code is the supervisor's own, never a program's: the zygote still
// never runs program code. Every program process, of either verdict mode,
// inherits the module. A module that fails to load fails the zygote's
// start, with its traceback in the error. Call it from an init function
// (package isolated does): pools started before the call lack the module.
// Registering a name twice panics.
func RegisterZygoteModule(name, source string) {
	zygoteModules.Lock()
	defer zygoteModules.Unlock()
	if slices.ContainsFunc(zygoteModules.list, func(m pyModule) bool { return m.Name == name }) {
		panic(fmt.Sprintf("sandbox: zygote module %q registered twice", name))
	}
	zygoteModules.list = append(zygoteModules.list, pyModule{Name: name, Source: source})
}

// registeredModules is the list the zygotes started now load.
func registeredModules() []pyModule {
	zygoteModules.Lock()
	defer zygoteModules.Unlock()
	return slices.Clone(zygoteModules.list)
}

// HasZygoteModule reports whether the pool's zygotes load the module name
// (it was registered before the pool started).
func (p *Pool) HasZygoteModule(name string) bool {
	if p == nil {
		return false
	}
	return slices.ContainsFunc(p.modules(), func(m string) bool { return m == name })
}
