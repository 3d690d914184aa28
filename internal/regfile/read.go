package regfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// Every input file pocketeval reads — models, task files and their
// includes, suites, policies, predictions, datasets, run --samples @FILE,
// sandbox programs — goes through this file: refused unread unless it is
// a regular file, refused when larger than its cap, and, when gzipped,
// decompressed no further than its cap (a 4 MB bomb never becomes
// gigabytes). Whatever such a refusal is, it is an *UnusableError or an
// *Error, which the command line turns into exit status 2.

// Caps for the kinds of input files.
const (
	// MaxConfig bounds a small text input read whole: a task file, an
	// include, a suite, a policy, a models file, a sample list, a program.
	MaxConfig = 16 << 20
	// MaxData bounds a data file read whole or decompressed (datasets,
	// predictions): 1 GiB.
	MaxData = 1 << 30
)

// UnusableError is an input file that cannot be used as it is: too big,
// corrupt, empty, cut... It names the file; the command line exits 2.
type UnusableError struct {
	Path string
	Err  error
}

func (e *UnusableError) Error() string {
	msg := e.Err.Error()
	if e.Path == "" || strings.Contains(msg, e.Path) {
		return msg // the cause names the file already
	}
	return e.Path + ": " + msg
}
func (e *UnusableError) Unwrap() error { return e.Err }

// Unusable marks err, about the input file path, as an *UnusableError
// (nil stays nil; an error already marked is returned as it is).
func Unusable(path string, err error) error {
	if err == nil || IsUnusable(err) {
		return err
	}
	return &UnusableError{Path: path, Err: err}
}

// IsUnusable reports whether err is an input file refused as unusable:
// an *UnusableError, an *Error (not a regular file) or a symbolic link
// loop.
func IsUnusable(err error) bool {
	var ue *UnusableError
	var re *Error
	return errors.As(err, &ue) || errors.As(err, &re) || errors.Is(err, syscall.ELOOP)
}

// ErrTooBig is the cause of a file refused for its size.
var ErrTooBig = errors.New("too big")

func tooBig(path string, size, max int64, what string) error {
	if size < 0 {
		return &UnusableError{Path: path, Err: fmt.Errorf("%w: %s more than the %d bytes allowed", ErrTooBig, what, max)}
	}
	return &UnusableError{Path: path, Err: fmt.Errorf("%w: %d bytes, more than the %d allowed", ErrTooBig, size, max)}
}

// Check refuses, without opening it, a path that is not a regular file
// (following symbolic links) or whose size is over max (0: no cap): for
// files an engine opens itself, such as a model.
func Check(path string, max int64) error {
	st, err := os.Stat(path)
	if err != nil {
		return loop(path, err)
	}
	if !st.Mode().IsRegular() {
		return &Error{Path: path, Kind: Kind(st.Mode())}
	}
	if max > 0 && st.Size() > max {
		return tooBig(path, st.Size(), max, "")
	}
	return nil
}

// ReadFile reads the regular file at path (a symbolic link is followed)
// when it has at most max bytes: a named pipe or device is refused
// unread, a larger file after a stat, and a file that grows while read
// after max+1 bytes.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := Open(path, os.O_RDONLY, 0, false)
	if err != nil {
		return nil, loop(path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > max {
		return nil, tooBig(path, st.Size(), max, "")
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, tooBig(path, -1, max, "grew while read to")
	}
	return b, nil
}

// loop names a loop of symbolic links (ELOOP from a following open).
func loop(path string, err error) error {
	var re *Error
	if errors.Is(err, syscall.ELOOP) && !errors.As(err, &re) {
		return &UnusableError{Path: path, Err: errors.New("a loop of symbolic links")}
	}
	return err
}

// ReadFileMaybeGzip is ReadFile, and when path ends in .gz decompresses
// it, to at most max bytes: a corrupt or oversized stream is an
// *UnusableError.
func ReadFileMaybeGzip(path string, max int64) ([]byte, error) {
	b, err := ReadFile(path, max)
	if err != nil || !strings.HasSuffix(path, ".gz") {
		return b, err
	}
	zr, err := Gunzip(bytes.NewReader(b), path, max)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(zr)
}

// Gunzip decompresses r, the content of path, and fails with an
// *UnusableError once it has given max bytes or when the stream is
// corrupt.
func Gunzip(r io.Reader, path string, max int64) (io.ReadCloser, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, &UnusableError{Path: path, Err: fmt.Errorf("not a gzip stream: %w", err)}
	}
	return &boundedGzip{zr: zr, path: path, left: max, max: max}, nil
}

type boundedGzip struct {
	zr        *gzip.Reader
	path      string
	left, max int64
}

func (g *boundedGzip) Read(p []byte) (int, error) {
	if g.left <= 0 {
		// One byte more tells a stream of exactly max bytes from a bomb.
		var one [1]byte
		if n, err := g.zr.Read(one[:]); n > 0 {
			return 0, tooBig(g.path, -1, g.max, "decompresses to")
		} else if err != nil {
			return 0, g.wrap(err)
		}
		return 0, nil
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	n, err := g.zr.Read(p)
	g.left -= int64(n)
	return n, g.wrap(err)
}

func (g *boundedGzip) wrap(err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	return &UnusableError{Path: g.path, Err: fmt.Errorf("corrupt gzip stream: %w", err)}
}

func (g *boundedGzip) Close() error { return g.zr.Close() }
