package taskfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/lazyre"
	"github.com/pocketeval/pocketeval/internal/regfile"
)

// dataExts are the file formats read, in the order they are looked for.
var dataExts = []string{".jsonl", ".json", ".csv", ".tsv"}

func decodeData(c *Config, raw map[string]value) error {
	d := &c.Data
	d.task = c.Name
	d.dir = filepath.Dir(c.File)
	d.where = raw
	if v, ok := raw["dataset_kwargs"]; ok {
		es, err := v.entries("dataset_kwargs")
		if err != nil {
			return err
		}
		for _, e := range es {
			switch e.key {
			case "data_files":
				files, err := decodeDataFiles(e.v)
				if err != nil {
					return err
				}
				d.DataFiles = files
			case "trust_remote_code":
				// Only meaningful for Hub loading scripts, which are never run.
			default:
				return e.v.errorf(e.field, "%w (data_files is)", ErrUnsupported)
			}
		}
	}
	if v, ok := raw["dataset_sha256"]; ok {
		d.SHA256 = map[string]string{}
		switch v.node.Kind {
		case yaml.ScalarNode:
			d.SHA256[""] = strings.ToLower(v.node.Value)
		case yaml.MappingNode:
			for i := 0; i+1 < len(v.node.Content); i += 2 {
				d.SHA256[v.node.Content[i].Value] = strings.ToLower(v.node.Content[i+1].Value)
			}
		default:
			return v.errorf("dataset_sha256", "want a hex digest or a mapping of split to digest")
		}
		for split, h := range d.SHA256 {
			if b, err := hex.DecodeString(h); err != nil || len(b) != sha256.Size {
				return v.errorf("dataset_sha256", "split %q: %q is not a sha256 hex digest", split, h)
			}
		}
	}
	for _, s := range []struct{ key, name string }{{"training_split", d.Train}, {"validation_split", d.Valid}, {"test_split", d.Test}, {"fewshot_split", d.FewSplit}} {
		if strings.ContainsAny(s.name, "[]%") {
			return raw[s.key].errorf(s.key, "split slicing (%q) is not supported", s.name)
		}
	}
	return nil
}

// decodeDataFiles reads data_files as datasets.load_dataset does: one file
// or a list of files (the "train" split), or a mapping of split names to a
// file or list of files.
func decodeDataFiles(v value) (map[string][]string, error) {
	field := "dataset_kwargs.data_files"
	list := func(n *yaml.Node) ([]string, error) {
		switch n.Kind {
		case yaml.ScalarNode:
			return []string{n.Value}, nil
		case yaml.SequenceNode:
			var out []string
			for _, c := range n.Content {
				if c.Kind != yaml.ScalarNode {
					return nil, v.errorf(field, "want file names")
				}
				out = append(out, c.Value)
			}
			return out, nil
		}
		return nil, v.errorf(field, "want a file name, a list of them, or a mapping of split to files")
	}
	if v.node.Kind == yaml.MappingNode {
		out := map[string][]string{}
		for i := 0; i+1 < len(v.node.Content); i += 2 {
			files, err := list(v.node.Content[i+1])
			if err != nil {
				return nil, err
			}
			out[v.node.Content[i].Value] = files
		}
		return out, nil
	}
	files, err := list(v.node)
	if err != nil {
		return nil, err
	}
	return map[string][]string{"train": files}, nil
}

// splitData is one split's documents.
type splitData struct {
	name     string
	files    []string
	docs     []pyvalue.Value
	lines    []int // source line of each document
	features []string
}

// isLocalPath reports whether dataset_path names a file or directory
// rather than a Hub dataset id.
func isLocalPath(p string) bool {
	if strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") || filepath.IsAbs(p) || strings.HasPrefix(p, "~") {
		return true
	}
	for _, ext := range dataExts {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	return false
}

// resolve returns the files of a split. dataDir is where Hub-style
// dataset ids are looked up.
func (d *DataConfig) resolve(split, dataDir string) ([]string, error) {
	if len(d.DataFiles) > 0 {
		files, ok := d.DataFiles[split]
		if !ok {
			return nil, &Error{File: d.fileOf("dataset_kwargs"), Line: d.lineOf("dataset_kwargs"), Field: "dataset_kwargs.data_files", Err: fmt.Errorf("no files for split %q", split)}
		}
		out := make([]string, len(files))
		for i, f := range files {
			out[i] = d.local(f)
		}
		return out, nil
	}
	if isLocalPath(d.Path) {
		p := d.local(d.Path)
		st, err := os.Stat(p)
		if err != nil {
			return nil, &evals.MissingDataError{Task: d.task, Path: p, Source: "dataset_path in " + d.fileOf("dataset_path")}
		}
		if !st.IsDir() {
			if split == d.Test || (d.Test == "" && split == d.Valid) {
				return []string{p}, nil
			}
			return nil, &Error{File: d.fileOf("dataset_path"), Line: d.lineOf("dataset_path"), Field: "dataset_path",
				Err: fmt.Errorf("%s is one file, the test split; give split %q its own file with dataset_kwargs.data_files", d.Path, split)}
		}
		return findSplit(d.task, p, d.Name, split, "dataset_path in "+d.fileOf("dataset_path"))
	}
	root := filepath.Join(dataDir, filepath.FromSlash(d.Path))
	return findSplit(d.task, root, d.Name, split,
		fmt.Sprintf("Hugging Face dataset %s (pocketeval does not download it: put a local copy there)", d.hubName()))
}

// files names the data for TaskInfo: the data_files (test split first),
// else dataset_path and dataset_name.
func (d *DataConfig) files() []string {
	if len(d.DataFiles) == 0 {
		if d.Name != "" {
			return []string{d.Path + "/" + d.Name}
		}
		return []string{d.Path}
	}
	var out []string
	out = append(out, d.DataFiles[d.Test]...)
	for _, split := range slices.Sorted(maps.Keys(d.DataFiles)) {
		if split != d.Test {
			out = append(out, d.DataFiles[split]...)
		}
	}
	return out
}

func (d *DataConfig) hubName() string {
	if d.Name == "" {
		return d.Path
	}
	return d.Path + " config " + d.Name
}

func (d *DataConfig) local(p string) string {
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[2:])
		}
	}
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.dir, filepath.FromSlash(p))
}

func (d *DataConfig) fileOf(key string) string {
	if v, ok := d.where[key]; ok {
		return v.file
	}
	return filepath.Join(d.dir, "?")
}

func (d *DataConfig) lineOf(key string) int {
	if v, ok := d.where[key]; ok {
		return v.node.Line
	}
	return 0
}

// findSplit looks for <root>/<name>/<split>.<ext>, then <root>/<split>.<ext>.
func findSplit(task, root, name, split, source string) ([]string, error) {
	var tried []string
	dirs := []string{root}
	if name != "" {
		dirs = []string{filepath.Join(root, name), root}
	}
	for _, dir := range dirs {
		for _, ext := range dataExts {
			p := filepath.Join(dir, split+ext)
			if _, err := os.Stat(p); err == nil {
				return []string{p}, nil
			}
			tried = append(tried, p)
		}
	}
	return nil, &evals.MissingDataError{Task: task, Path: strings.Join(tried[:len(dataExts)], " or "), Source: source}
}

// readSplit reads the files of a split, checks their pins and returns the
// documents with their sha256 digests recorded in files.
func (d *DataConfig) readSplit(name string, paths []string, files map[string]string) (*splitData, error) {
	s := &splitData{name: name, files: paths}
	for _, p := range paths {
		raw, digest, err := evals.ReadDataFile(d.task, p, "the data files of "+d.fileOf("dataset_path"))
		if err != nil {
			return nil, err
		}
		if err := d.checkPin(name, p, digest, len(paths)); err != nil {
			return nil, err
		}
		files[p] = digest
		docs, lines, err := parseDocs(p, raw)
		if err != nil {
			return nil, err
		}
		s.docs = append(s.docs, docs...)
		s.lines = append(s.lines, lines...)
	}
	s.docs, s.features = unifyColumns(s.docs)
	return s, nil
}

// checkPin compares a file's digest with dataset_sha256 and with a
// SHA256SUMS file next to it, when either names it.
func (d *DataConfig) checkPin(split, path, digest string, nfiles int) error {
	want, ok := d.SHA256[split]
	if !ok && nfiles == 1 {
		want, ok = d.SHA256[""]
	}
	if ok && want != digest {
		return regfile.Unusable("", &Error{File: d.fileOf("dataset_sha256"), Line: d.lineOf("dataset_sha256"), Field: "dataset_sha256",
			Err: fmt.Errorf("%s has sha256 %s, the task file pins %s", path, digest, want)})
	}
	sums := filepath.Join(filepath.Dir(path), "SHA256SUMS")
	f, err := regfile.Open(sums, os.O_RDONLY, 0, false) // a FIFO must not block the load
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 && strings.TrimPrefix(fields[1], "*") == filepath.Base(path) && !strings.EqualFold(fields[0], digest) {
			return &evals.DataError{Path: sums, Line: line, Err: fmt.Errorf("%s has sha256 %s, SHA256SUMS pins %s", path, digest, fields[0])}
		}
	}
	return nil
}

// parseDocs reads documents by file extension.
func parseDocs(path string, raw []byte) ([]pyvalue.Value, []int, error) {
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl":
		return parseJSONL(path, raw)
	case ".json":
		if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
			return parseJSONArray(path, raw)
		}
		return parseJSONL(path, raw)
	case ".csv":
		return parseCSV(path, raw, ',')
	case ".tsv":
		return parseCSV(path, raw, '\t')
	}
	return nil, nil, fmt.Errorf("read %s: unknown data format (want %s)", path, strings.Join(dataExts, ", "))
}

func parseJSONL(path string, raw []byte) ([]pyvalue.Value, []int, error) {
	var docs []pyvalue.Value
	var lines []int
	for i, line := range bytes.Split(raw, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		v, err := pyvalue.FromJSON(line)
		if err != nil {
			return nil, nil, &evals.DataError{Path: path, Line: i + 1, Err: err}
		}
		if !v.IsDict() {
			return nil, nil, &evals.DataError{Path: path, Line: i + 1, Err: errors.New("a record is a JSON object")}
		}
		docs = append(docs, v)
		lines = append(lines, i+1)
	}
	return docs, lines, nil
}

func parseJSONArray(path string, raw []byte) ([]pyvalue.Value, []int, error) {
	v, err := pyvalue.FromJSON(raw)
	if err != nil {
		return nil, nil, &evals.DataError{Path: path, Line: 1, Err: err}
	}
	var lines []int
	for i, it := range v.AsList().Items {
		if !it.IsDict() {
			return nil, nil, &evals.DataError{Path: path, Line: 1, Field: fmt.Sprintf("[%d]", i), Err: errors.New("a record is a JSON object")}
		}
		lines = append(lines, 1)
	}
	return v.AsList().Items, lines, nil
}

// unifyColumns gives every document the same fields, as a datasets table
// does: the union of the fields in order of first appearance, a missing
// field is None, and a column holding both integers and floats holds
// floats.
func unifyColumns(docs []pyvalue.Value) ([]pyvalue.Value, []string) {
	var features []string
	seen := map[string]bool{}
	hasFloat := map[string]bool{}
	for _, d := range docs {
		for _, k := range d.AsDict().OrderedKeys() {
			if !seen[k] {
				seen[k] = true
				features = append(features, k)
			}
			if v, _ := d.AsDict().Get(k); v.IsFloat() {
				hasFloat[k] = true
			}
		}
	}
	uniform := true
	for _, d := range docs {
		if d.AsDict().Len() != len(features) {
			uniform = false
			break
		}
	}
	if uniform && len(hasFloat) == 0 {
		return docs, features
	}
	out := make([]pyvalue.Value, len(docs))
	for i, d := range docs {
		nd := pyvalue.NewDict()
		for _, k := range features {
			v, ok := d.AsDict().Get(k)
			if !ok {
				v = pyvalue.None()
			}
			if hasFloat[k] && v.IsInt() {
				v = pyvalue.NewFloat(float64(v.AsInt()))
			}
			nd.AsDict().Set(k, v)
		}
		out[i] = nd
	}
	return out, features
}

// naValues are the strings pandas.read_csv reads as missing by default.
var naValues = map[string]bool{
	"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true, "-1.#QNAN": true, "-NaN": true,
	"-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true, "N/A": true, "NA": true, "NULL": true,
	"NaN": true, "None": true, "n/a": true, "nan": true, "null": true,
}

var (
	csvInt   = lazyre.New(`^[-+]?[0-9]+$`)
	csvFloat = lazyre.New(`^[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$|^[-+]?(?:inf|Inf|INF|infinity|Infinity)$`)
)

// parseCSV reads a table with a header row, typing each column as
// datasets' csv builder (pandas.read_csv) does: all integers → int, all
// numbers with some missing → float (missing is NaN), all True/False →
// bool, anything else → str with missing values None.
func parseCSV(path string, raw []byte, sep rune) ([]pyvalue.Value, []int, error) {
	r := csv.NewReader(bytes.NewReader(raw))
	r.Comma = sep
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, nil, &evals.DataError{Path: path, Line: 1, Err: fmt.Errorf("read header: %w", err)}
	}
	var rows [][]string
	var lines []int
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, &evals.DataError{Path: path, Line: lineOfCSVError(err), Err: err}
		}
		line, _ := r.FieldPos(0)
		if len(rec) > len(header) {
			return nil, nil, &evals.DataError{Path: path, Line: line, Err: fmt.Errorf("%d fields, the header has %d", len(rec), len(header))}
		}
		rows = append(rows, rec)
		lines = append(lines, line)
	}
	kinds := make([]byte, len(header)) // 'i', 'f', 'b', 's'
	for c := range header {
		isInt, isFloat, isBool, missing := true, true, true, false
		for _, rec := range rows {
			if c >= len(rec) || naValues[rec[c]] {
				missing = true
				continue
			}
			v := rec[c]
			isInt = isInt && csvInt.MatchString(v)
			isFloat = isFloat && csvFloat.MatchString(v)
			isBool = isBool && (v == "True" || v == "False" || v == "TRUE" || v == "FALSE" || v == "true" || v == "false")
		}
		switch {
		case isBool && !missing && len(rows) > 0:
			kinds[c] = 'b'
		case isInt && !missing && len(rows) > 0:
			kinds[c] = 'i'
		case isFloat && len(rows) > 0:
			kinds[c] = 'f'
		default:
			kinds[c] = 's'
		}
	}
	docs := make([]pyvalue.Value, len(rows))
	for i, rec := range rows {
		d := pyvalue.NewDict()
		for c, name := range header {
			var cell string
			present := c < len(rec) && !naValues[rec[c]]
			if present {
				cell = rec[c]
			}
			var v pyvalue.Value
			switch {
			case kinds[c] == 'f' && !present:
				v = pyvalue.NewFloat(math.NaN())
			case !present:
				v = pyvalue.None()
			case kinds[c] == 'i':
				n, err := strconv.ParseInt(cell, 10, 64)
				if err != nil {
					f, _ := strconv.ParseFloat(cell, 64)
					v = pyvalue.NewFloat(f)
				} else {
					v = pyvalue.NewInt(n)
				}
			case kinds[c] == 'f':
				f, _ := strconv.ParseFloat(cell, 64)
				v = pyvalue.NewFloat(f)
			case kinds[c] == 'b':
				v = pyvalue.NewBool(strings.EqualFold(cell, "true"))
			default:
				v = pyvalue.NewString(cell)
			}
			d.AsDict().Set(name, v)
		}
		docs[i] = d
	}
	return docs, lines, nil
}

func lineOfCSVError(err error) int {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Line
	}
	return 0
}
