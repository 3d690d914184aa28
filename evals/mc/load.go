package mc

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unsafe"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/scorers/choice"
)

// benchmark is the static description of one multiple-choice benchmark.
type benchmark struct {
	name        string
	description string
	source      string
	files       []string // TaskInfo.DatasetFiles, relative to the data dir
	// testDir/devDir are directories inside the dataset root; testSuffix
	// and devSuffix are stripped from file names to get the subject.
	testDir, testSuffix string
	devDir, devSuffix   string
	defaultShots        int
	format              *format
	loglikText          bool // loglik continuation is the option text
	wantSubjects        int  // for a warning when the data differs
	load                func(ctx context.Context, b *benchmark, cfg evals.LoadConfig) (*evals.Dataset, error)
	agg                 aggregation
	// official names the answer rule of the benchmark's official
	// generative evaluation (scorers/choice), "" for none.
	official string
}

func (b *benchmark) shots(n int) int {
	if n < 0 {
		return b.defaultShots
	}
	return n
}

var mmluBench = &benchmark{
	name:        "mmlu",
	description: "MMLU (Hendrycks et al. 2021): 57 subjects, 14,042 four-option test questions; few-shot exemplars from the dev split (official default 5).",
	source:      "https://people.eecs.berkeley.edu/~hendrycks/data.tar (HF cais/mmlu)",
	files:       []string{"mmlu/test", "mmlu/dev"},
	testDir:     "test", testSuffix: "_test.csv",
	devDir: "dev", devSuffix: "_dev.csv",
	defaultShots: 5,
	format:       mmluFormat,
	wantSubjects: 57,
	load:         loadCSVBenchmark("mmlu", "mmlu"),
	agg:          mmluAggregation,
}

var cevalBench = &benchmark{
	name:        "ceval",
	description: "C-Eval (Huang et al. 2023): 52 subjects; the val split (1,346 questions, the split with public answers) is evaluated, dev gives few-shot exemplars (official default 5).",
	source:      "https://huggingface.co/datasets/ceval/ceval-exam (ceval-exam.zip)",
	files:       []string{"ceval/ceval-exam.zip"},
	testDir:     "val", testSuffix: "_val.csv",
	devDir: "dev", devSuffix: "_dev.csv",
	defaultShots: 5,
	format:       cevalFormat,
	wantSubjects: 52,
	load:         loadCSVBenchmark("ceval", "ceval/ceval-exam.zip"),
	agg:          cevalAggregation,
	// OpenCompass's ceval_gen (ceval_gen_5f30c7): this few-shot prompt
	// ending in the answer cue, scored by first_capital_postprocess.
	official: choice.RuleFirstCapital,
}

var cmmluBench = &benchmark{
	name:        "cmmlu",
	description: "CMMLU (Li et al. 2023): 67 subjects, 11,582 test questions; few-shot exemplars from the dev split (official default 5).",
	source:      "https://github.com/haonan-li/CMMLU (data/test, data/dev; HF haonan-li/cmmlu)",
	files:       []string{"cmmlu/data/test", "cmmlu/data/dev"},
	testDir:     "test", testSuffix: ".csv",
	devDir: "dev", devSuffix: ".csv",
	defaultShots: 5,
	format:       cmmluFormat,
	wantSubjects: 67,
	load:         loadCSVBenchmark("cmmlu", "cmmlu/data"),
	agg:          cmmluAggregation,
	// OpenCompass's few-shot cmmlu_gen_c13365 (this prompt, 答案是:),
	// scored by first_capital_postprocess.
	official: choice.RuleFirstCapital,
}

var arcBench = &benchmark{
	name:         "arc_challenge",
	description:  "ARC-Challenge (Clark et al. 2018): 1,172 grade-school science test questions with 3-5 options, zero-shot.",
	source:       "AllenAI ARC-V1-Feb2018 (ARC-Challenge/ARC-Challenge-Test.jsonl; HF allenai/ai2_arc, config ARC-Challenge, split test)",
	files:        []string{"arc_challenge/arc_challenge_test.jsonl"},
	format:       arcFormat,
	loglikText:   true,
	defaultShots: 0,
	load:         loadARC,
	agg:          arcAggregation,
}

// loadCSVBenchmark reads one CSV file per subject from the evaluation and
// dev directories of a dataset root. The root is a directory or a zip
// (C-Eval's ceval-exam.zip is read in place); for MMLU the data.tar layout
// (data/test, data/dev) is accepted too.
func loadCSVBenchmark(name, defaultRel string) func(context.Context, *benchmark, evals.LoadConfig) (*evals.Dataset, error) {
	return func(ctx context.Context, b *benchmark, cfg evals.LoadConfig) (*evals.Dataset, error) {
		root := cfg.DatasetFile
		if root == "" {
			root = filepath.Join(cfg.DataDir, filepath.FromSlash(defaultRel))
		} else if flat, err := isSubjectFiles(b, root); err != nil {
			return nil, err
		} else if flat {
			return loadSubjectFiles(ctx, b, root, cfg)
		}
		src, err := openRoot(b, root)
		if err != nil {
			return nil, err
		}
		defer src.close()

		d := &evals.Dataset{Files: map[string]string{}}
		if src.digest != "" {
			d.Files[root] = src.digest
		}
		test, err := readSubjects(ctx, src, b.testDir, b.testSuffix, d)
		if err != nil {
			return nil, err
		}
		if len(test) == 0 {
			return nil, fmt.Errorf("no *%s files in %s", b.testSuffix, src.join(b.testDir))
		}
		dev, err := readSubjects(ctx, src, b.devDir, b.devSuffix, d)
		if err != nil {
			return nil, err
		}
		subjects := make([]string, 0, len(test))
		for s := range test {
			subjects = append(subjects, s)
		}
		sort.Strings(subjects)
		if b.wantSubjects > 0 && len(subjects) != b.wantSubjects {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s: %d subjects, the benchmark has %d", src.join(b.testDir), len(subjects), b.wantSubjects))
		}
		k := b.shots(cfg.NumFewshot)
		n := 0
		for _, s := range subjects {
			n += len(test[s])
		}
		d.Samples = make([]evals.Sample, 0, n)
		for _, s := range subjects {
			if _, ok := b.agg.categories(s); !ok {
				d.Warnings = append(d.Warnings, fmt.Sprintf("%s: subject %q has no official category", src.join(b.testDir), s))
			}
			if k > 0 && len(dev[s]) < k {
				return nil, fmt.Errorf("%d-shot requested but %s has %d dev examples for subject %q", k, src.join(b.devDir), len(dev[s]), s)
			}
			d.Samples = append(d.Samples, test[s]...)
		}
		d.Extra = &extra{dev: dev}
		return d, nil
	}
}

// source is an opened dataset root.
type source struct {
	fsys    fs.FS
	display string // root path for messages and the manifest
	digest  string // sha256 of the root when it is a single file (zip)
	close   func()
	// read reads a file of a directory root through evals.ReadDataFile
	// (regular files only, bounded); nil for a zip, already in memory.
	read func(path string) ([]byte, string, error)
}

func (s *source) join(p string) string { return filepath.Join(s.display, filepath.FromSlash(p)) }

func openRoot(b *benchmark, root string) (*source, error) {
	testDir := b.testDir
	st, err := evals.StatDataPath(b.name, root, b.source)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		dir := root
		if _, err := os.Stat(filepath.Join(dir, testDir)); err != nil {
			// data.tar unpacks to data/{dev,val,test}.
			alt := filepath.Join(root, "data")
			if _, err2 := os.Stat(filepath.Join(alt, testDir)); err2 == nil {
				dir = alt
			} else {
				return nil, fmt.Errorf("dataset %s has no %s directory (official source: %s)", root, testDir, b.source)
			}
		}
		read := func(p string) ([]byte, string, error) { return evals.ReadDataFile(b.name, p, b.source) }
		return &source{fsys: os.DirFS(dir), display: dir, close: func() {}, read: read}, nil
	}
	raw, sum, err := evals.ReadDataFile(b.name, root, b.source)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		return nil, fmt.Errorf("open %s as zip: %w", root, err)
	}
	return &source{fsys: zr, display: root, digest: sum, close: func() {}}, nil
}

// readSubjects reads every <subject><suffix> file in dir. A missing dev
// directory yields no subjects (zero-shot still works).
func readSubjects(ctx context.Context, src *source, dir, suffix string, d *evals.Dataset) (map[string][]evals.Sample, error) {
	out := map[string][]evals.Sample{}
	if dir == "" {
		return out, nil
	}
	entries, err := fs.ReadDir(src.fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return out, nil
		}
		return nil, fmt.Errorf("list %s: %w", src.join(dir), err)
	}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), suffix) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		subject := strings.TrimSuffix(e.Name(), suffix)
		p := path.Join(dir, e.Name())
		var raw []byte
		var err error
		if src.read != nil {
			var sum string
			if raw, sum, err = src.read(src.join(p)); err != nil {
				return nil, err
			}
			d.Files[src.join(p)] = sum
		} else if raw, err = fs.ReadFile(src.fsys, p); err != nil {
			return nil, fmt.Errorf("read %s: %w", src.join(p), err)
		}
		samples, err := parseSubjectCSV(raw, src.join(p), subject)
		if err != nil {
			return nil, err
		}
		out[subject] = samples
	}
	return out, nil
}

// parseSubjectCSV reads one subject file. Two layouts are accepted:
//   - with a header naming the columns (question/Question, A-D or
//     choice0-choice3, answer/Answer; extra columns such as C-Eval's id and
//     explanation or CMMLU's unnamed index are ignored);
//   - without a header, as in MMLU's data.tar: question, four options,
//     answer.
//
// Answers may be letters (A-D) or 0-based indices (the cais/mmlu export).
func parseSubjectCSV(raw []byte, name, subject string) ([]evals.Sample, error) {
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	// Most files are read by the fast reader; one it does not handle is
	// read again, from its start, by encoding/csv, so that the samples and
	// the errors are always encoding/csv's.
	if out, err := parseSubjectRecords(newFastCSV(raw), name, subject); err != errNotFast {
		return out, err
	}
	r := csv.NewReader(bytes.NewReader(raw))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true // the fields are copied out (strings, not the slice)
	return parseSubjectRecords(stdCSV{r}, name, subject)
}

// csvRecords reads a CSV file's records: next returns the next one (its
// fields, valid until the following call) and the line its first field
// starts on, or io.EOF after the last; lines estimates how many records
// there are (for sizing).
type csvRecords interface {
	next() ([]string, int, error)
	lines() int
}

// stdCSV is encoding/csv's reader.
type stdCSV struct{ r *csv.Reader }

func (c stdCSV) next() ([]string, int, error) {
	rec, err := c.r.Read()
	if err != nil {
		return nil, 0, err
	}
	line, _ := c.r.FieldPos(0)
	return rec, line, nil
}

func (c stdCSV) lines() int { return 0 }

// parseSubjectRecords makes a subject's samples from its CSV records.
func parseSubjectRecords(r csvRecords, name, subject string) ([]evals.Sample, error) {
	qCol, aCol, optCols := 0, -1, []int(nil)
	first := true
	out := make([]evals.Sample, 0, r.lines())
	// The samples' options are gathered in one slice and then cut from one
	// block of the exact size (each sample's slice capped, so appending to
	// it copies).
	var all []string
	for {
		rec, line, err := r.next()
		if err == io.EOF {
			break
		}
		if err == errNotFast {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("parse %s: %w", name, err)
		}
		if first {
			first = false
			if q, a, opts, ok := headerColumns(rec); ok {
				qCol, aCol, optCols = q, a, opts
				continue
			}
			if len(rec) < 3 {
				return nil, fmt.Errorf("%s:%d: %d fields, want question, options and answer", name, line, len(rec))
			}
			qCol, aCol = 0, len(rec)-1
			for i := 1; i < aCol; i++ {
				optCols = append(optCols, i)
			}
			all = make([]string, 0, r.lines()*len(optCols))
		}
		if len(rec) <= max(qCol, aCol) {
			return nil, fmt.Errorf("%s:%d: %d fields, want at least %d", name, line, len(rec), max(qCol, aCol)+1)
		}
		for i, c := range optCols {
			if c >= len(rec) {
				return nil, fmt.Errorf("%s:%d: option %s: missing field", name, line, choice.Letter(i))
			}
			all = append(all, rec[c])
		}
		ans, err := answerIndex(rec[aCol], len(optCols))
		if err != nil {
			return nil, fmt.Errorf("%s:%d: answer: %w", name, line, err)
		}
		out = append(out, evals.Sample{
			Input:  rec[qCol],
			Target: choice.Letter(ans),
			Group:  subject,
		})
	}
	out = slices.Clip(out)
	block, k := slices.Clone(all), len(optCols)
	for i := range out {
		out[i].Choices = block[i*k : (i+1)*k : (i+1)*k]
	}
	setIDs(out, subject)
	return out, nil
}

// errNotFast is fastCSV's refusal of a file it does not read as
// encoding/csv would: the caller reads it with encoding/csv.
var errNotFast = errors.New("mc: not for the fast CSV reader")

// fastCSV reads the files encoding/csv reads with FieldsPerRecord -1 and
// strict quotes, for the common case: lines ending in "\n" (no "\r"
// anywhere), fields either plain (no quote) or quoted (doubled quotes
// and line breaks inside, the closing quote followed by a comma, a line
// end or the file's end). Anything else (which encoding/csv refuses, or
// reads with its "\r\n" rules) is errNotFast. The fields are cut from
// the file's bytes as read (which the caller hands over: nothing changes
// them later), where encoding/csv makes a string per record; a field with
// doubled quotes gets a string of its own.
type fastCSV struct {
	b    []byte // the file
	s    string // b, for reading (strings are made with field)
	pos  int
	line int // the 1-based line pos is on
	rec  []string
	bad  bool
}

// newFastCSV reads raw, which must not change afterwards: the fields
// are strings of its bytes.
func newFastCSV(raw []byte) *fastCSV {
	return &fastCSV{b: raw, s: unsafe.String(unsafe.SliceData(raw), len(raw)), line: 1, bad: bytes.IndexByte(raw, '\r') >= 0}
}

func (r *fastCSV) lines() int { return bytes.Count(r.b, []byte("\n")) + 1 }

// field is the string of b[i:j], whose bytes do not change any more.
func (r *fastCSV) field(i, j int) string {
	if i == j {
		return ""
	}
	return unsafe.String(&r.b[i], j-i)
}

func (r *fastCSV) next() ([]string, int, error) {
	if r.bad {
		return nil, 0, errNotFast
	}
	s := r.s
	for r.pos < len(s) && s[r.pos] == '\n' { // empty lines are skipped
		r.pos++
		r.line++
	}
	if r.pos == len(s) {
		return nil, 0, io.EOF
	}
	start := r.line
	r.rec = r.rec[:0]
	for {
		if r.pos < len(s) && s[r.pos] == '"' {
			i, escaped := r.pos+1, false
			for {
				j := strings.IndexByte(s[i:], '"')
				if j < 0 {
					return nil, 0, errNotFast // the file ends inside quotes
				}
				i += j + 1
				if i < len(s) && s[i] == '"' {
					escaped = true
					i++
					continue
				}
				break
			}
			a, z := r.pos+1, i-1 // the field's bytes
			r.line += bytes.Count(r.b[a:z], []byte("\n"))
			if escaped {
				// Inside the quotes, quotes come in pairs: keep one of
				// each, in a string of its own (the file's bytes stay as
				// they are, for encoding/csv should the reader give up).
				r.rec = append(r.rec, strings.ReplaceAll(s[a:z], `""`, `"`))
			} else {
				r.rec = append(r.rec, r.field(a, z))
			}
			r.pos = i
			switch {
			case i == len(s):
				return r.rec, start, nil
			case s[i] == ',':
				r.pos++
				continue
			case s[i] == '\n':
				r.pos++
				r.line++
				return r.rec, start, nil
			}
			return nil, 0, errNotFast // encoding/csv: extraneous quote
		}
		end := len(s)
		if j := strings.IndexByte(s[r.pos:], '\n'); j >= 0 {
			end = r.pos + j
		}
		if j := strings.IndexByte(s[r.pos:end], ','); j >= 0 {
			end = r.pos + j
		}
		if strings.IndexByte(s[r.pos:end], '"') >= 0 {
			return nil, 0, errNotFast // encoding/csv: bare quote
		}
		r.rec = append(r.rec, r.field(r.pos, end))
		r.pos = end
		switch {
		case end == len(s):
			return r.rec, start, nil
		case s[end] == ',':
			r.pos++
			continue
		}
		r.pos++ // '\n'
		r.line++
		return r.rec, start, nil
	}
}

// setIDs names sample i of a subject's file subject/i, the names cut from
// one string.
func setIDs(out []evals.Sample, subject string) {
	n := 0
	for i := range out {
		n += len(subject) + 1 + digits(i)
	}
	var b strings.Builder
	b.Grow(n)
	var num [20]byte
	for i := range out {
		b.WriteString(subject)
		b.WriteByte('/')
		b.Write(strconv.AppendInt(num[:0], int64(i), 10))
	}
	all, at := b.String(), 0
	for i := range out {
		end := at + len(subject) + 1 + digits(i)
		out[i].ID = all[at:end]
		at = end
	}
}

// digits is the length of i in decimal (i ≥ 0).
func digits(i int) int {
	n := 1
	for ; i >= 10; i /= 10 {
		n++
	}
	return n
}

// headerColumns recognises a header row and returns the question, answer
// and option column indices.
func headerColumns(rec []string) (q, a int, opts []int, ok bool) {
	q, a = -1, -1
	letter := map[string]int{}
	numbered := map[string]int{}
	for i, f := range rec {
		switch g := strings.TrimSpace(f); strings.ToLower(g) {
		case "question":
			q = i
		case "answer":
			a = i
		default:
			if len(g) == 1 && g[0] >= 'A' && g[0] <= 'J' {
				letter[g] = i
			} else if strings.HasPrefix(strings.ToLower(g), "choice") {
				numbered[strings.ToLower(g)] = i
			}
		}
	}
	if q < 0 || a < 0 {
		return 0, 0, nil, false
	}
	for j := 0; ; j++ {
		if c, found := letter[choice.Letter(j)]; found {
			opts = append(opts, c)
		} else if c, found := numbered["choice"+strconv.Itoa(j)]; found {
			opts = append(opts, c)
		} else {
			break
		}
	}
	return q, a, opts, len(opts) >= 2
}

func answerIndex(s string, n int) (int, error) {
	s = strings.TrimSpace(s)
	if i, err := strconv.Atoi(s); err == nil {
		if i < 0 || i >= n {
			return 0, fmt.Errorf("index %d out of range for %d options", i, n)
		}
		return i, nil
	}
	i := choice.LetterIndex(s)
	if i < 0 || i >= n || s[0] < 'A' || s[0] > 'Z' {
		return 0, fmt.Errorf("%q is neither an option letter nor an index for %d options", s, n)
	}
	return i, nil
}

// loadARC reads ARC-Challenge JSONL in either layout: the official one
// ({"id", "question": {"stem", "choices": [{"text", "label"}]},
// "answerKey"}, labels A-E or 1-5) or the re-export in the shared data
// ({"id", "question", "options": [{"label", "text"}], "answer"}). Options
// are shown with letters by position whatever their labels. Sample IDs are
// ARC's own question ids.
func loadARC(ctx context.Context, b *benchmark, cfg evals.LoadConfig) (*evals.Dataset, error) {
	p := cfg.DatasetFile
	if p == "" {
		p = filepath.Join(cfg.DataDir, filepath.FromSlash(b.files[0]))
	}
	raw, sum, err := evals.ReadDataFile(b.name, p, b.source)
	if err != nil {
		return nil, err
	}
	d := &evals.Dataset{Files: map[string]string{p: sum}}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		s, err := parseARCRecord(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", p, line, err)
		}
		if prev, dup := seen[s.ID]; dup {
			return nil, fmt.Errorf("%s:%d: id: %q already used on line %d", p, line, s.ID, prev)
		}
		seen[s.ID] = line
		s.Meta = map[string]any{"index": len(d.Samples)}
		d.Samples = append(d.Samples, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", p, err)
	}
	if len(d.Samples) == 0 {
		return nil, fmt.Errorf("%s: no records", p)
	}
	return d, ctx.Err()
}

type arcChoice struct {
	Label string `json:"label"`
	Text  string `json:"text"`
}

func parseARCRecord(text []byte) (evals.Sample, error) {
	var rec struct {
		ID        string          `json:"id"`
		Question  json.RawMessage `json:"question"`
		Options   []arcChoice     `json:"options"`
		Answer    string          `json:"answer"`
		AnswerKey string          `json:"answerKey"`
	}
	if err := json.Unmarshal(text, &rec); err != nil {
		return evals.Sample{}, fmt.Errorf("invalid JSON: %w", err)
	}
	if rec.ID == "" {
		return evals.Sample{}, errors.New("id: missing")
	}
	var stem, key string
	var opts []arcChoice
	if len(rec.Question) > 0 && rec.Question[0] == '{' {
		var q struct {
			Stem    string      `json:"stem"`
			Choices []arcChoice `json:"choices"`
		}
		if err := json.Unmarshal(rec.Question, &q); err != nil {
			return evals.Sample{}, fmt.Errorf("question: %w", err)
		}
		stem, opts, key = q.Stem, q.Choices, rec.AnswerKey
	} else {
		if err := json.Unmarshal(rec.Question, &stem); err != nil {
			return evals.Sample{}, fmt.Errorf("question: %w", err)
		}
		opts, key = rec.Options, rec.Answer
		if key == "" {
			key = rec.AnswerKey
		}
	}
	if stem == "" {
		return evals.Sample{}, errors.New("question: empty")
	}
	if len(opts) < 2 {
		return evals.Sample{}, fmt.Errorf("choices: %d options, want at least 2", len(opts))
	}
	ans := -1
	texts := make([]string, len(opts))
	for i, o := range opts {
		texts[i] = o.Text
		if strings.TrimSpace(o.Label) == strings.TrimSpace(key) {
			ans = i
		}
	}
	if ans < 0 {
		return evals.Sample{}, fmt.Errorf("answerKey: %q is not one of the option labels", key)
	}
	return evals.Sample{
		ID:      rec.ID,
		Input:   stem,
		Target:  choice.Letter(ans),
		Choices: texts,
	}, nil
}
