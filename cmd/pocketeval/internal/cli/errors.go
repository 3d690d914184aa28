package cli

import (
	"errors"
	"fmt"
)

// Exit codes, mapped from errors in one place (Main).
const (
	ExitOK         = 0
	ExitError      = 1 // the operation failed (or, for gate, a regression)
	ExitUsage      = 2 // bad flags, arguments or configuration
	ExitCancelled  = 130
	exitCodeCustom = -1
)

// FlagError is a usage error: the command's usage is printed with it.
type FlagError struct{ err error }

func (e *FlagError) Error() string { return e.err.Error() }
func (e *FlagError) Unwrap() error { return e.err }

// FlagErrorf formats a usage error.
func FlagErrorf(format string, args ...any) error {
	return &FlagError{err: fmt.Errorf(format, args...)}
}

// ExitCodeError makes Main exit with Code. When Err is nil nothing is
// printed (the command already reported).
type ExitCodeError struct {
	Code int
	Err  error
}

func (e *ExitCodeError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}
func (e *ExitCodeError) Unwrap() error { return e.Err }

// ErrCancelled reports that the user interrupted the command.
var ErrCancelled = errors.New("cancelled")
