package evals

import (
	"fmt"
	"io/fs"
)

// MissingDataError reports a dataset file that is not where the task looks
// for it, with its official source. It matches fs.ErrNotExist, so the CLI
// can add the command that downloads it.
type MissingDataError struct {
	Task   string
	Path   string
	Source string
	// Schema, when set, names the schema in which any file may stand in
	// for the missing one (LoadConfig.DatasetFile).
	Schema string
}

func (e *MissingDataError) Error() string {
	return fmt.Sprintf("%s: dataset file %s not found (official source: %s)", e.Task, e.Path, e.Source)
}

// Unwrap lets callers test with errors.Is(err, fs.ErrNotExist).
func (e *MissingDataError) Unwrap() error { return fs.ErrNotExist }

// DataError is a malformed dataset record: file, 1-based line and field
// ("" when the whole record is unreadable).
type DataError struct {
	Path  string
	Line  int
	Field string
	Err   error
	// Skippable is set by loaders that could skip the record when asked
	// (LoadConfig.SkipBadRecords).
	Skippable bool
}

func (e *DataError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d: field %q: %v", e.Path, e.Line, e.Field, e.Err)
}

func (e *DataError) Unwrap() error { return e.Err }

// FewShotError is a number of few-shot examples a task cannot give.
// Allowed are the counts it can (0 is always one); the CLI names the flag.
type FewShotError struct {
	Task      string
	Requested int
	Allowed   []int
	Why       string // e.g. "the official CoT prompts are 3-shot"
}

func (e *FewShotError) Error() string {
	return fmt.Sprintf("%s: %d-shot requested; %s", e.Task, e.Requested, e.Why)
}

// OptionalDataError is an optional dataset file (one only some settings
// read, such as GSM8K's train split for few-shot raw prompts) that could
// not be read.
type OptionalDataError struct {
	Task string
	Why  string // what needs it
	Err  error
}

func (e *OptionalDataError) Error() string {
	return fmt.Sprintf("%s: %s need the dataset's optional file: %v", e.Task, e.Why, e.Err)
}

func (e *OptionalDataError) Unwrap() error { return e.Err }
