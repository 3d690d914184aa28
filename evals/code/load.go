package code

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/internal/lazyre"
	"github.com/pocketeval/pocketeval/internal/regfile"
)

// Meta keys of code samples (Sample.Meta).
const (
	MetaPrompt     = "prompt"      // HumanEval: the prompt the completion continues
	MetaTest       = "test"        // HumanEval: the check(candidate) function
	MetaEntryPoint = "entry_point" // the function under test
	MetaTests      = "test_list"   // MBPP: assert statements ([]string)
	MetaSetup      = "test_setup"  // MBPP: test_imports (sanitized) or test_setup_code (full)
	MetaChallenge  = "challenge_test_list"
	MetaDatasetSHA = "dataset_sha256" // the dataset file's sha256 (keys the reference times)
)

// resolveFile returns the file to read and the name to record for it.
func resolveFile(cfg evals.LoadConfig, primary string) (path, name string) {
	if cfg.DatasetFile != "" {
		if filepath.IsAbs(cfg.DatasetFile) {
			return cfg.DatasetFile, cfg.DatasetFile
		}
		if _, err := os.Stat(cfg.DatasetFile); err == nil || cfg.DataDir == "" {
			return cfg.DatasetFile, cfg.DatasetFile
		}
		return filepath.Join(cfg.DataDir, cfg.DatasetFile), cfg.DatasetFile
	}
	return filepath.Join(cfg.DataDir, primary), primary
}

// humanEvalRecord is one line of HumanEval.jsonl(.gz).
type humanEvalRecord struct {
	TaskID            *string `json:"task_id"`
	Prompt            *string `json:"prompt"`
	EntryPoint        *string `json:"entry_point"`
	CanonicalSolution *string `json:"canonical_solution"`
	Test              *string `json:"test"`
}

// loadHumanEval parses HumanEval JSON lines, gzip-compressed or not.
func loadHumanEval(name string, data []byte) ([]evals.Sample, error) {
	var r io.Reader = bytes.NewReader(data)
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := regfile.Gunzip(r, name, regfile.MaxData)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", name, err)
		}
		defer zr.Close()
		r = zr
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	var out []evals.Sample
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var rec humanEvalRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("load %s:%d: %w", name, line, err)
		}
		for _, f := range []struct {
			name string
			v    *string
		}{{"task_id", rec.TaskID}, {"prompt", rec.Prompt}, {"entry_point", rec.EntryPoint}, {"test", rec.Test}} {
			if f.v == nil || (f.name != "prompt" && *f.v == "") {
				return nil, fmt.Errorf("load %s:%d:%s: missing", name, line, f.name)
			}
		}
		if prev, dup := seen[*rec.TaskID]; dup {
			return nil, fmt.Errorf("load %s:%d:task_id: %q repeats line %d", name, line, *rec.TaskID, prev)
		}
		seen[*rec.TaskID] = line
		s := evals.Sample{
			ID:    *rec.TaskID,
			Input: *rec.Prompt,
			Meta: map[string]any{
				MetaPrompt:     *rec.Prompt,
				MetaTest:       *rec.Test,
				MetaEntryPoint: *rec.EntryPoint,
			},
		}
		if rec.CanonicalSolution != nil {
			s.Target = *rec.CanonicalSolution
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("load %s: no records", name)
	}
	return out, nil
}

// mbppRecord covers both MBPP schemas: full (text, test_setup_code,
// challenge_test_list) and sanitized (prompt, test_imports).
type mbppRecord struct {
	TaskID            *int     `json:"task_id"`
	Text              *string  `json:"text"`
	Prompt            *string  `json:"prompt"`
	Code              *string  `json:"code"`
	TestList          []string `json:"test_list"`
	TestSetupCode     string   `json:"test_setup_code"`
	TestImports       []string `json:"test_imports"`
	ChallengeTestList []string `json:"challenge_test_list"`
}

type mbppItem struct {
	line int
	rec  mbppRecord
}

// readMBPP reads MBPP records from JSON lines (full) or a JSON array
// (sanitized), keeping the line each record starts on.
func readMBPP(name string, data []byte) ([]mbppItem, error) {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	var items []mbppItem
	if len(trimmed) > 0 && trimmed[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			return nil, fmt.Errorf("load %s: %w", name, err)
		}
		for dec.More() {
			off := dec.InputOffset()
			// The record starts at the next '{' after the offset.
			line := 1 + bytes.Count(data[:off], []byte("\n"))
			if i := bytes.IndexByte(data[off:], '{'); i >= 0 {
				line = 1 + bytes.Count(data[:off+int64(i)], []byte("\n"))
			}
			var rec mbppRecord
			if err := dec.Decode(&rec); err != nil {
				return nil, fmt.Errorf("load %s:%d: %w", name, line, err)
			}
			items = append(items, mbppItem{line, rec})
		}
		return items, nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var rec mbppRecord
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("load %s:%d: %w", name, line, err)
		}
		items = append(items, mbppItem{line, rec})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("load %s: %w", name, err)
	}
	return items, nil
}

// mbppExample is a record turned into what prompts and programs need.
type mbppExample struct {
	TaskID int
	Text   string
	Code   string
	Tests  []string
	Setup  string
}

var defNameRe = lazyre.New(`(?m)^[ \t]*def[ \t]+([A-Za-z_]\w*)[ \t]*\(`)

// mbppEntryPoint is the function the asserts call: the first function the
// reference code defines whose name the first assert uses; else the first
// name called in the first assert.
func mbppEntryPoint(code string, tests []string) string {
	first := ""
	if len(tests) > 0 {
		first = tests[0]
	}
	for _, m := range defNameRe.FindAllStringSubmatch(code, -1) {
		if regexp.MustCompile(`\b` + regexp.QuoteMeta(m[1]) + `\s*\(`).MatchString(first) {
			return m[1]
		}
	}
	if m := regexp.MustCompile(`([A-Za-z_]\w*)\s*\(`).FindAllStringSubmatch(first, -1); m != nil {
		for _, c := range m {
			switch c[1] {
			case "assert", "set", "sorted", "list", "tuple", "abs", "math", "isclose", "str", "int", "float", "round", "len", "frozenset", "dict":
				continue
			}
			return c[1]
		}
	}
	return ""
}

// parseMBPP validates records and splits them into the test split (task_id
// lo..hi) and the few-shot exemplars (task_ids 2, 3, 4, the prompts of
// Austin et al. 2021). Records outside both are ignored.
func parseMBPP(name string, items []mbppItem, lo, hi int) (test []evals.Sample, shots []mbppExample, warnings []string, err error) {
	seen := map[int]int{}
	shotByID := map[int]mbppExample{}
	for _, it := range items {
		rec := it.rec
		where := fmt.Sprintf("%s:%d", name, it.line)
		if rec.TaskID == nil {
			return nil, nil, nil, fmt.Errorf("load %s:task_id: missing", where)
		}
		id := *rec.TaskID
		if prev, dup := seen[id]; dup {
			return nil, nil, nil, fmt.Errorf("load %s:task_id: %d repeats line %d", where, id, prev)
		}
		seen[id] = it.line
		text := rec.Text
		if text == nil {
			text = rec.Prompt
		}
		switch {
		case text == nil:
			return nil, nil, nil, fmt.Errorf("load %s:text: missing (neither text nor prompt)", where)
		case rec.Code == nil:
			return nil, nil, nil, fmt.Errorf("load %s:code: missing", where)
		case len(rec.TestList) == 0:
			return nil, nil, nil, fmt.Errorf("load %s:test_list: missing or empty", where)
		}
		setup := rec.TestSetupCode
		if len(rec.TestImports) > 0 {
			setup = strings.Join(rec.TestImports, "\n")
		}
		ex := mbppExample{TaskID: id, Text: *text, Code: *rec.Code, Tests: rec.TestList, Setup: setup}
		if id == 2 || id == 3 || id == 4 {
			shotByID[id] = ex
		}
		if id < lo || id > hi {
			continue
		}
		entry := mbppEntryPoint(ex.Code, ex.Tests)
		if entry == "" {
			warnings = append(warnings, fmt.Sprintf("%s:test_list: task %d: cannot tell which function the asserts call", where, id))
		}
		meta := map[string]any{
			MetaEntryPoint: entry,
			MetaTests:      ex.Tests,
			MetaSetup:      ex.Setup,
		}
		if len(rec.ChallengeTestList) > 0 {
			meta[MetaChallenge] = rec.ChallengeTestList
		}
		test = append(test, evals.Sample{
			ID:     strconv.Itoa(id),
			Input:  ex.Text,
			Target: ex.Code,
			Meta:   meta,
		})
	}
	for _, id := range []int{2, 3, 4} {
		if ex, ok := shotByID[id]; ok {
			shots = append(shots, ex)
		}
	}
	if len(test) == 0 {
		return nil, nil, nil, fmt.Errorf("load %s: no records with task_id %d-%d", name, lo, hi)
	}
	return test, shots, warnings, nil
}
