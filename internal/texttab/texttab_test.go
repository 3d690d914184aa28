package texttab

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// TestSameAsTabwriter: on text of one-column characters the output is
// tabwriter's, byte for byte, for random tables written in random pieces.
func TestSameAsTabwriter(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"", "a", "bb", "ccc", "gsm8k", "humaneval", "1.00", "-", "  x", "[0.10, 0.90]"}
	for n := range 3000 {
		var text strings.Builder
		for range r.IntN(8) {
			for range r.IntN(5) {
				text.WriteString(words[r.IntN(len(words))])
				text.WriteByte('\t')
			}
			text.WriteString(words[r.IntN(len(words))])
			if r.IntN(6) > 0 {
				text.WriteByte('\n')
			}
		}
		minw, pad := r.IntN(4), r.IntN(4)
		flags := uint(0)
		if n%2 == 1 {
			flags = AlignRight
		}
		var want, got bytes.Buffer
		tw := tabwriter.NewWriter(&want, minw, 4, pad, ' ', flags)
		mw := NewWriter(&got, minw, 4, pad, ' ', flags)
		s := text.String()
		for len(s) > 0 {
			k := 1 + r.IntN(len(s))
			tw.Write([]byte(s[:k]))
			mw.Write([]byte(s[:k]))
			s = s[k:]
		}
		tw.Flush()
		mw.Flush()
		if got.String() != want.String() {
			t.Fatalf("minwidth %d padding %d flags %d, input %q:\ngot  %q\nwant %q", minw, pad, flags, text.String(), got.String(), want.String())
		}
	}
}

// TestDisplayWidth: wide characters count two columns, so the next column
// starts at the same terminal column on every line.
func TestDisplayWidth(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, 0, 4, 2, ' ', 0)
	w.Write([]byte("task\tscore\tlabel\nifeval_zh\t74.59\t中文\ncmmlu\t35.10\tx\n指令遵循\t1.00\t——\nｆｕｌｌ\t2\tz\n"))
	w.Flush()
	want := "" +
		"task       score  label\n" +
		"ifeval_zh  74.59  中文\n" +
		"cmmlu      35.10  x\n" +
		"指令遵循   1.00   ——\n" +
		"ｆｕｌｌ   2      z\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
