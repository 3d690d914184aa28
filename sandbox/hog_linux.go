package sandbox

import (
	"fmt"
	"os/exec"
	"syscall"
)

// StartCPUHogs starts n processes that each burn one CPU until stop is
// called (or this process dies). The verdict-stability check runs every
// program again with every core saturated by them. The binary must call
// MaybeRunHelper first thing in main (the hogs re-execute it).
func StartCPUHogs(n int) (stop func(), err error) {
	if !helperHooked.Load() {
		return nil, errNoHelperHook
	}
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
		cmds = nil
	}
	for range n {
		c := exec.Command("/proc/self/exe", hogArg)
		c.Env = []string{}
		c.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("start cpu hog: %w", err)
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}
