// Package texttab aligns tab-separated columns as text/tabwriter does, but
// measures each cell by its width on a terminal (East Asian wide and
// full-width characters take two columns, combining marks none), so that
// tables with Chinese task names, labels and answers line up.
//
// Writer is a drop-in replacement for the subset of tabwriter the project
// uses: cells end at '\t', lines at '\n', padding is padchar (a space), and
// AlignRight right-aligns. For text whose characters are all one column
// wide its output is byte-identical to tabwriter's (a differential test
// holds it to that): the same column blocks, the same unpadded last cell of
// each line.
package texttab

import (
	"bytes"
	"io"

	"github.com/rivo/uniseg"
)

// AlignRight right-aligns cell text, as tabwriter.AlignRight.
const AlignRight uint = 1 << 2

// Writer is a filter that aligns the columns of the text written to it.
// Call Flush when done.
type Writer struct {
	out               io.Writer
	minwidth, padding int
	padchar           byte
	flags             uint
	buf               []byte
	widths            []int
	lines             [][]cell
	err               error
}

type cell struct {
	text  []byte
	width int
}

// NewWriter returns a Writer with tabwriter.NewWriter's parameters.
// tabwidth is accepted for the same signature and unused: padding is
// always padchar.
func NewWriter(out io.Writer, minwidth, tabwidth, padding int, padchar byte, flags uint) *Writer {
	return &Writer{out: out, minwidth: minwidth, padding: padding, padchar: padchar, flags: flags}
}

// Write buffers p. A line without a tab ends every column block, so what
// came before it is written out, as tabwriter does.
func (w *Writer) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		line := w.buf[:i]
		w.lines = append(w.lines, split(line))
		w.buf = w.buf[i+1:]
		if bytes.IndexByte(line, '\t') < 0 {
			w.flush(false)
		}
	}
	return len(p), w.err
}

// Flush writes out everything buffered, the last line without a newline
// as it was written.
func (w *Writer) Flush() error {
	w.flush(true)
	return w.err
}

func (w *Writer) flush(all bool) {
	if w.err != nil {
		return
	}
	// Lines that ended in '\n' get one back; a final partial line (at
	// Flush) is written as it is.
	n := len(w.lines)
	if all && len(w.buf) > 0 {
		// tabwriter keeps no empty cell after a final line's last tab.
		cells := split(w.buf)
		if last := cells[len(cells)-1]; len(last.text) == 0 {
			cells = cells[:len(cells)-1]
		}
		w.lines = append(w.lines, cells)
		w.buf = nil
	}
	var out bytes.Buffer
	w.widths = w.widths[:0]
	w.format(&out, 0, len(w.lines), n)
	w.lines = w.lines[:0]
	if _, err := w.out.Write(out.Bytes()); err != nil {
		w.err = err
	}
}

func split(line []byte) []cell {
	parts := bytes.Split(line, []byte{'\t'})
	cells := make([]cell, len(parts))
	for i, p := range parts {
		cells[i] = cell{text: append([]byte(nil), p...), width: uniseg.StringWidth(string(p))}
	}
	return cells
}

// format lays out lines [line0, line1) whose columns before len(w.widths)
// are fixed, as tabwriter's format: a column block is a run of lines that
// have a cell in this column that is not their last.
func (w *Writer) format(out *bytes.Buffer, line0, line1, terminated int) {
	column := len(w.widths)
	for this := line0; this < line1; this++ {
		if column >= len(w.lines[this])-1 {
			continue
		}
		w.writeLines(out, line0, this, terminated)
		line0 = this
		width := w.minwidth
		for ; this < line1; this++ {
			line := w.lines[this]
			if column >= len(line)-1 {
				break
			}
			if cw := line[column].width + w.padding; cw > width {
				width = cw
			}
		}
		w.widths = append(w.widths, width)
		w.format(out, line0, this, terminated)
		w.widths = w.widths[:len(w.widths)-1]
		line0 = this
	}
	w.writeLines(out, line0, line1, terminated)
}

func (w *Writer) writeLines(out *bytes.Buffer, line0, line1, terminated int) {
	for i := line0; i < line1; i++ {
		for j, c := range w.lines[i] {
			pad := 0
			if j < len(w.widths) {
				pad = w.widths[j] - c.width
			}
			if w.flags&AlignRight != 0 && len(c.text) > 0 {
				out.Write(bytes.Repeat([]byte{w.padchar}, max(pad, 0)))
				out.Write(c.text)
				continue
			}
			out.Write(c.text)
			out.Write(bytes.Repeat([]byte{w.padchar}, max(pad, 0)))
		}
		if i < terminated {
			out.WriteByte('\n')
		}
	}
}
