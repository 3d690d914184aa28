//go:build !unix

package results

import "os"

// maxIovecs is how many lines a writev(2) takes where there is one.
const maxIovecs = 1024

// writeLines writes lines to f, in order, with one write: joined first.
func writeLines(f *os.File, lines [][]byte) error {
	if len(lines) == 1 {
		_, err := f.Write(lines[0])
		return err
	}
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	data := make([]byte, 0, n)
	for _, l := range lines {
		data = append(data, l...)
	}
	_, err := f.Write(data)
	return err
}
