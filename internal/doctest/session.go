package doctest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Session is a bash session over several blocks: each block runs in its
// own bash process, which starts in the directory and with the exported
// variables the previous block left, as if the reader typed the blocks one
// after another into one shell.
type Session struct {
	// Dir is where the session starts.
	Dir string
	// Env is the starting environment.
	Env []string
	// Timeout bounds each block (a hang guard; 0: 10 minutes).
	Timeout time.Duration
	// Isolate runs each block in its own network namespace with only a
	// loopback interface (unshare --net): servers in the examples do not
	// collide with other processes' ports, and nothing reaches the
	// network. Set it only where Isolated reports true.
	Isolate bool

	state string // directory of the saved pwd and environment
}

// NewSession starts a session in dir with env.
func NewSession(dir string, env []string) (*Session, error) {
	state, err := os.MkdirTemp("", "doctest-state-")
	if err != nil {
		return nil, err
	}
	s := &Session{Dir: dir, Env: env, state: state}
	if err := os.WriteFile(filepath.Join(state, "pwd"), []byte(dir), 0o644); err != nil {
		return nil, err
	}
	return s, nil
}

// Close removes the session's state.
func (s *Session) Close() error { return os.RemoveAll(s.state) }

// Pwd is the session's current directory.
func (s *Session) Pwd() string {
	b, err := os.ReadFile(filepath.Join(s.state, "pwd"))
	if err != nil {
		return s.Dir
	}
	return strings.TrimSpace(string(b))
}

// Isolated reports whether blocks can run in their own network namespace
// here (unshare and ip present, and the right to create one).
func Isolated() bool {
	if _, err := exec.LookPath("unshare"); err != nil {
		return false
	}
	if _, err := exec.LookPath("ip"); err != nil {
		return false
	}
	return exec.Command("unshare", "--net", "--", "ip", "link", "set", "lo", "up").Run() == nil
}

// Result is what one step of a block printed and how it exited.
type Result struct {
	Output string
	Exit   int
}

const stepMark = "@@doctest-step-exit "

var stepRE = regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(stepMark) + `(\d+)@@$`)

// RunScript runs an sh block: the script under `set -e -o pipefail`.
func (s *Session) RunScript(script string) (Result, error) {
	out, code, err := s.exec("set -e -o pipefail\n" + script + "\n")
	return Result{Output: out, Exit: code}, err
}

// RunSteps runs a console block's commands in one bash process and
// returns each one's output and exit status. `$?` after a command is its
// status, as in a terminal.
func (s *Session) RunSteps(steps []Step) ([]Result, error) {
	var b strings.Builder
	for _, st := range steps {
		b.WriteString(st.Cmd)
		b.WriteString("\n__doctest_rc=$?; printf '\\n" + stepMark + "%d@@\\n' \"$__doctest_rc\"; (exit $__doctest_rc)\n")
	}
	out, _, err := s.exec(b.String())
	if err != nil {
		return nil, err
	}
	var res []Result
	rest := out
	for range steps {
		loc := stepRE.FindStringSubmatchIndex(rest)
		if loc == nil {
			// The shell ended before this step (an `exit` in a command).
			res = append(res, Result{Output: rest, Exit: -1})
			rest = ""
			continue
		}
		code, _ := strconv.Atoi(rest[loc[2]:loc[3]])
		res = append(res, Result{Output: strings.TrimRight(rest[:loc[0]], "\n"), Exit: code})
		rest = strings.TrimPrefix(rest[loc[1]:], "\n")
	}
	return res, nil
}

// exec runs body in bash in the session's directory and environment,
// saving both for the next block when the shell exits. Output is stdout
// and stderr together, in the order written.
func (s *Session) exec(body string) (string, int, error) {
	pwdFile, envFile := filepath.Join(s.state, "pwd"), filepath.Join(s.state, "env")
	var script strings.Builder
	fmt.Fprintf(&script, "cd %q || exit 97\n", s.Pwd())
	if _, err := os.Stat(envFile); err == nil {
		fmt.Fprintf(&script, ". %q\n", envFile)
	}
	fmt.Fprintf(&script, "trap 'pwd > %q; export -p > %q' EXIT\n", pwdFile, envFile)
	script.WriteString(body)
	file := filepath.Join(s.state, "block.sh")
	if err := os.WriteFile(file, []byte(script.String()), 0o644); err != nil {
		return "", 0, err
	}
	timeout := s.Timeout
	if timeout == 0 {
		timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	args := []string{"bash", file}
	if s.Isolate {
		args = []string{"unshare", "--net", "--", "bash", "-c", `ip link set lo up && exec bash "$0"`, file}
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = s.Env
	cmd.Dir = s.Dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	// Whatever the block left running in the background goes with it.
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if ctx.Err() != nil {
		return out.String(), -1, fmt.Errorf("block did not finish within %v", timeout)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		return out.String(), -1, err
	}
	return out.String(), code, nil
}
