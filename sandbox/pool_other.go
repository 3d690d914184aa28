//go:build !linux

package sandbox

import (
	"context"
	"errors"
)

// ErrUnsupported: the sandbox needs Linux (namespaces, Landlock, seccomp).
var ErrUnsupported = errors.New("sandbox: only supported on Linux")

// MaybeRunHelper does nothing off Linux.
func MaybeRunHelper() {}

// Pool is unavailable off Linux; New always fails.
type Pool struct{}

// New fails with ErrUnsupported off Linux.
func New(cfg Config) (*Pool, error) { return nil, ErrUnsupported }

// Probe reports that no layer is available off Linux.
func Probe() Layers {
	return Layers{Mode: "unavailable", Layers: []Layer{{Name: LayerSupervisor, Detail: ErrUnsupported.Error()}}}
}

// Run fails with ErrUnsupported.
func (p *Pool) Run(ctx context.Context, prog Program) (Result, error) {
	return Result{Verdict: Error, Reason: ErrUnsupported.Error()}, ErrUnsupported
}

// Layers is empty off Linux.
func (p *Pool) Layers() Layers { return Probe() }

// Python is unknown off Linux.
func (p *Pool) Python() (path, version string) { return "", "" }

// Workers is zero off Linux.
func (p *Pool) Workers() int { return 0 }

// Close does nothing off Linux.
func (p *Pool) Close() error { return nil }

// StartCPUHogs fails with ErrUnsupported off Linux.
func StartCPUHogs(n int) (stop func(), err error) { return nil, ErrUnsupported }

func (p *Pool) modules() []string { return nil }
