package mc

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// checkFastCSV reads data with the fast reader and with encoding/csv:
// up to where the fast reader gives up (errNotFast), both give the same
// records on the same lines, and where it reads the whole file so does
// encoding/csv; parseSubjectCSV gives what encoding/csv's records give.
func checkFastCSV(t *testing.T, data []byte) {
	t.Helper()
	fast := newFastCSV(data)
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	std := stdCSV{r}
	for n := 0; ; n++ {
		frec, fline, ferr := fast.next()
		if ferr == errNotFast {
			break
		}
		srec, sline, serr := std.next()
		if ferr == io.EOF || serr != nil {
			if ferr != serr {
				t.Fatalf("%q: record %d: fast reader %v, encoding/csv %v", data, n, ferr, serr)
			}
			break
		}
		if ferr != nil {
			t.Fatalf("%q: record %d: fast reader: %v", data, n, ferr)
		}
		if !reflect.DeepEqual(frec, srec) || fline != sline {
			t.Fatalf("%q: record %d: fast reader %q on line %d, encoding/csv %q on line %d", data, n, frec, fline, srec, sline)
		}
	}
	got, gerr := parseSubjectCSV(data, "s.csv", "s")
	r = csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	want, werr := parseSubjectRecords(stdCSV{r}, "s.csv", "s")
	if !reflect.DeepEqual(got, want) || (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
		t.Fatalf("%q: parseSubjectCSV = %v, %v; with encoding/csv %v, %v", data, got, gerr, want, werr)
	}
}

var csvSeeds = []string{
	"", "\n", "\n\n", "a", "a\n", "a,b\n", "a,b,\n", "a,b,", ",\n", "\"a\"", "\"a\"\n", "\"a\",\"b\"\n", "\"a\"\"b\",c\n",
	"\"a\nb\",c\nd,e\n", "\"a\"x,b\n", "\"a\" ,b\n", "a\"b,c\n", "\"a,b\n", "\"\"\n", "\"\"\"\"\n", "a\r\nb\n", "a\rb\n",
	"\n\na,b\n\nc,d", " \n", "What is 1+1?,1,2,3,4,B\nWhat is 2+2?,4,5,6,7,A\n", "id,question,A,B,C,D,answer\n0,1+1=?,1,2,3,4,B\n",
	"\ufeff,Question,A,B,C,D,Answer\n0,\"1+1=?\nplease\",1,2,3,4,B\n", "q,\"say \"\"hi\"\"\",2,3,4,A\n", "q,1,2,3,4,E\n",
}

// TestFastCSVMatchesEncodingCSV compares the fast reader with
// encoding/csv on hand-made files, every prefix of each, and random ones.
func TestFastCSVMatchesEncodingCSV(t *testing.T) {
	t.Parallel()
	for _, s := range csvSeeds {
		for i := 0; i <= len(s); i++ {
			checkFastCSV(t, []byte(s[:i]))
		}
	}
	pieces := []string{",", "\n", "\"", "\"\"", "a", "word", " ", "\r", "B", "1", "日本", "\n\n", "\",", "\"\n", "q?"}
	rng := rand.New(rand.NewPCG(5, 6))
	n := 50000
	if testing.Short() {
		n = 10000
	}
	for range n {
		var b strings.Builder
		for range rng.IntN(16) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		checkFastCSV(t, []byte(b.String()))
	}
}

// FuzzFastCSV: the fast reader agrees with encoding/csv.
func FuzzFastCSV(f *testing.F) {
	for _, s := range csvSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { checkFastCSV(t, data) })
}

// TestFastCSVReadsTheDatasets: the subject files of the shared MMLU and
// CMMLU copies give encoding/csv's samples, and all but a few (those with
// a "\r", which encoding/csv reads) are read by the fast reader.
func TestFastCSVReadsTheDatasets(t *testing.T) {
	t.Parallel()
	root := sharedtest.Datasets(t)
	files, _ := filepath.Glob(filepath.Join(root, "mmlu", "*", "*.csv"))
	more, _ := filepath.Glob(filepath.Join(root, "cmmlu", "data", "*", "*.csv"))
	files = append(files, more...)
	if len(files) < 200 {
		t.Fatalf("%d subject files under %s", len(files), root)
	}
	slow := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseSubjectRecords(newFastCSV(bytes.TrimPrefix(raw, []byte("\ufeff"))), f, "s"); errors.Is(err, errNotFast) {
			if bytes.IndexByte(raw, '\r') < 0 {
				t.Errorf("%s: the fast reader gave up", f)
			}
			slow++
		}
		checkFastCSV(t, raw)
	}
	if slow > len(files)/50 {
		t.Errorf("%d of %d files read by encoding/csv", slow, len(files))
	}
}
