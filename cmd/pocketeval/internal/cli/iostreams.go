package cli

import (
	"bytes"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams bundles the process's streams with terminal detection, so
// commands write only here and tests can capture everything.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// StderrTTY reports whether ErrOut is a terminal (progress bars).
	StderrTTY bool
	// StdoutTTY reports whether Out is a terminal (aligned tables).
	StdoutTTY bool
}

// System returns the real process streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
	}
}

// TestStreams returns streams backed by buffers: in, out, err.
func TestStreams() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
