package ifeval

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/pocketeval/pocketeval/evals"
)

// upstreamDefects are the records of official files that are malformed
// upstream, by the file's sha256: they are skipped (and reported) without
// SkipBadRecords, because the task is defined on the official file's
// other records (docs/ifeval-zh.md, ../shared/datasets/SOURCES.md).
var upstreamDefects = map[string][]int{
	// Marco-Bench-MIF zh_local.jsonl @ 6c1f790: line 15 (key 181) has an
	// unescaped quote inside its prompt.
	"26df8593a964853bb10d43d6efdc0f11e7e8ae1c9ea24827978d73f214b79ca7": {15},
}

// skipRecord handles a malformed record: it is skipped and reported in the
// dataset's warnings when skipping was asked for or the record is a known
// upstream defect of the file (sha256 sum); otherwise it is returned as
// the load error, marked skippable.
func skipRecord(ds *evals.Dataset, err error, sum string, skip bool) error {
	var de *DataError
	if !errors.As(err, &de) {
		return err
	}
	known := false
	for _, l := range upstreamDefects[sum] {
		known = known || l == de.Line
	}
	if !skip && !known {
		de.Skippable = true
		return de
	}
	ds.Warnings = append(ds.Warnings, de.Error()+" (record skipped)")
	return nil
}

// repeatedField returns a top-level field that appears twice in a JSON
// object ("" when none does, or when raw is not an object): encoding/json
// would silently keep the last value.
func repeatedField(raw []byte) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		k, _ := t.(string)
		if seen[k] {
			return k
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return ""
		}
	}
	return ""
}
