package compare

import (
	"encoding/json"
	"fmt"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
)

// Reproduction says whether two runs of one configuration (the same
// config fingerprint: model files, tasks, data, prompts, generation
// settings) produced the same responses. Between runs whose runtime
// reproduces every response exactly (manifest "reproducible": exact) any
// difference is a finding: a changed engine or binary, a machine that
// computes differently, or an edited directory.
type Reproduction struct {
	// Exact is true when both runs claim exact reproduction.
	Exact bool `json:"exact"`
	// Compared counts the samples both runs hold; Differing those whose
	// response (or log-likelihood results) differ, First the first few of
	// them as task/id.
	Compared  int      `json:"compared"`
	Differing int      `json:"differing"`
	First     []string `json:"first"`
}

// Reproduce compares the responses of two runs of the same configuration;
// it returns nil when the configurations differ (nothing is expected to
// repeat).
func Reproduce(a, b *rundir.Run, tasks []string) (*Reproduction, error) {
	if a.Manifest.Config.Fingerprint() != b.Manifest.Config.Fingerprint() {
		return nil, nil
	}
	ra, rb := a.Manifest.Reproducible, b.Manifest.Reproducible
	r := &Reproduction{Exact: ra != nil && rb != nil && ra.Exact && rb.Exact, First: []string{}}
	for _, task := range tasks {
		ka, err := a.Records(task)
		if err != nil {
			return nil, err
		}
		kb, err := b.Records(task)
		if err != nil {
			return nil, err
		}
		byKey := make(map[results.Key]results.Record, len(kb))
		for _, rec := range kb {
			byKey[rec.Key()] = rec
		}
		for _, x := range ka {
			y, ok := byKey[x.Key()]
			if !ok || x.Error != "" || y.Error != "" {
				continue
			}
			r.Compared++
			if x.Response != y.Response || !sameJSON(x.LoglikResults, y.LoglikResults) {
				r.Differing++
				if len(r.First) < 5 {
					r.First = append(r.First, task+"/"+x.ID)
				}
			}
		}
	}
	return r, nil
}

// Warning is what a command prints about r, or "" when the responses are
// identical (or not expected to be).
func (r *Reproduction) Warning() string {
	if r == nil || r.Differing == 0 {
		return ""
	}
	expect := "their runtime settings do not claim exact reproduction (batched decoding, a prefix cache that is not exact, or a server)"
	if r.Exact {
		expect = "both claim exact reproduction, so the engine, the binary, the machine's arithmetic or the files changed"
	}
	return fmt.Sprintf("the two runs have the same configuration but %d of %d responses differ (first: %v); %s", r.Differing, r.Compared, r.First, expect)
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}
