package fidelity

import (
	"fmt"
	"sort"
	"unicode/utf8"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/stats"
)

// Run is a finished result directory read for an answer-level comparison.
type Run struct {
	Dir      string
	Manifest *results.Manifest
	Summary  *results.Summary
}

// LoadRun reads dir's manifest and summary.
func LoadRun(dir string) (*Run, error) {
	m, err := results.ReadManifest(dir)
	if err != nil {
		return nil, fmt.Errorf("run %s: %w", dir, err)
	}
	s, err := results.ReadSummary(dir)
	if err != nil {
		return nil, fmt.Errorf("run %s: no readable summary.json (status %q): %w", dir, m.Status, err)
	}
	return &Run{Dir: dir, Manifest: m, Summary: s}, nil
}

// records returns task's selected records by key, without failed samples.
func (r *Run) records(task string) (map[results.Key]results.Record, error) {
	all, _, err := results.ReadTaskSamples(r.Dir, task)
	if err != nil {
		return nil, err
	}
	out := map[results.Key]results.Record{}
	for i := range all {
		if all[i].Error == "" && r.Manifest.Config.Selects(task, &all[i]) {
			out[all[i].Key()] = all[i]
		}
	}
	return out, nil
}

// TaskFlips is the answer-level comparison of one task.
type TaskFlips struct {
	Task   string `json:"task"`
	Metric string `json:"metric"`
	// Paired holds both means (the reference as A), the difference, its
	// interval and the paired test (exact McNemar for 0/1 scores).
	Paired stats.PairedResult `json:"paired"`
	// RelativeScore is the candidate's task score over the reference's
	// (the summary's task-level values; 0 when the reference scored 0).
	RefScore      float64 `json:"ref_score"`
	CandScore     float64 `json:"cand_score"`
	RelativeScore float64 `json:"relative_score"`
	// RightToWrong and WrongToRight count samples whose score fell or
	// rose (for 0/1 metrics: answers that flipped); Flipped lists them in
	// id order.
	RightToWrong int    `json:"right_to_wrong"`
	WrongToRight int    `json:"wrong_to_right"`
	Flipped      []Flip `json:"flipped"`
	// Missing counts samples scored in one run only (left out of the
	// pairing).
	Missing int `json:"missing,omitempty"`
}

// Flip is one sample whose score changed.
type Flip struct {
	ID     string  `json:"id"`
	Repeat int     `json:"repeat,omitempty"`
	Ref    float64 `json:"ref"`
	Cand   float64 `json:"cand"`
	// Part is where the two responses first differ (nil when the sample
	// has no text response, e.g. log-likelihood scoring, or both are
	// equal).
	Part *Parting `json:"part,omitempty"`
}

// Parting is where two greedy texts part.
type Parting struct {
	// Byte is the offset of the first differing byte, moved back to the
	// start of its character; Token the index of the first differing
	// token when a tokenizer was given (-1 otherwise).
	Byte  int `json:"byte"`
	Token int `json:"token"`
	// Ref and Cand are up to 40 bytes of each text from there.
	Ref  string `json:"ref"`
	Cand string `json:"cand"`
}

// FlipsOptions configure Flips.
type FlipsOptions struct {
	Tasks     []string // only these ("" = every task both runs scored)
	Resamples int      // paired bootstrap resamples (0: 10000)
	Seed      uint64
	// Tokenizer, when set, locates the first differing token.
	Tokenizer Tokenizer
}

// Flips compares the candidate run's per-sample scores with the
// reference's, task by task on each task's primary metric, pairing
// samples by id and repeat.
func Flips(ref, cand *Run, o FlipsOptions) ([]TaskFlips, error) {
	if o.Resamples == 0 {
		o.Resamples = 10000
	}
	want := map[string]bool{}
	for _, t := range o.Tasks {
		want[t] = true
	}
	var tasks []string
	for t, ts := range ref.Summary.Tasks {
		if cs, ok := cand.Summary.Tasks[t]; ok && (len(want) == 0 || want[t]) && ts.Scored > 0 && cs.Scored > 0 {
			tasks = append(tasks, t)
		}
	}
	sort.Strings(tasks)
	for t := range want {
		if _, ok := ref.Summary.Tasks[t]; !ok {
			return nil, fmt.Errorf("task %s is not in the reference run %s", t, ref.Dir)
		}
		if _, ok := cand.Summary.Tasks[t]; !ok {
			return nil, fmt.Errorf("task %s is not in the candidate run %s", t, cand.Dir)
		}
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("runs %s and %s share no task both scored", ref.Dir, cand.Dir)
	}
	var out []TaskFlips
	for _, task := range tasks {
		tf, err := taskFlips(ref, cand, task, o)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", task, err)
		}
		out = append(out, *tf)
	}
	return out, nil
}

func taskFlips(ref, cand *Run, task string, o FlipsOptions) (*TaskFlips, error) {
	rs, cs := ref.Summary.Tasks[task], cand.Summary.Tasks[task]
	metric := rs.PrimaryMetric
	if cs.PrimaryMetric != metric {
		return nil, fmt.Errorf("primary metrics differ: %q and %q", metric, cs.PrimaryMetric)
	}
	ra, err := ref.records(task)
	if err != nil {
		return nil, err
	}
	ca, err := cand.records(task)
	if err != nil {
		return nil, err
	}
	tf := &TaskFlips{Task: task, Metric: metric, RefScore: rs.Metrics[metric].Mean, CandScore: cs.Metrics[metric].Mean, Flipped: []Flip{}}
	if tf.RefScore != 0 {
		tf.RelativeScore = tf.CandScore / tf.RefScore
	}
	var keys []results.Key
	for k, r := range ra {
		c, ok := ca[k]
		_, okR := r.Scores[metric]
		_, okC := c.Scores[metric]
		if ok && okR && okC {
			keys = append(keys, k)
		} else {
			tf.Missing++
		}
	}
	for k := range ca {
		if _, ok := ra[k]; !ok {
			tf.Missing++
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].ID != keys[j].ID {
			return keys[i].ID < keys[j].ID
		}
		return keys[i].Repeat < keys[j].Repeat
	})
	xa, xb := make([]float64, len(keys)), make([]float64, len(keys))
	for i, k := range keys {
		r, c := ra[k], ca[k]
		xa[i], xb[i] = r.Scores[metric], c.Scores[metric]
		if xa[i] == xb[i] {
			continue
		}
		if xb[i] < xa[i] {
			tf.RightToWrong++
		} else {
			tf.WrongToRight++
		}
		tf.Flipped = append(tf.Flipped, Flip{ID: k.ID, Repeat: k.Repeat, Ref: xa[i], Cand: xb[i], Part: parting(r.Response, c.Response, o.Tokenizer)})
	}
	tf.Paired = stats.Paired(xa, xb, o.Resamples, o.Seed)
	return tf, nil
}

// parting finds where two responses first differ.
func parting(a, b string, tk Tokenizer) *Parting {
	if a == b || (a == "" && b == "") {
		return nil
	}
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i--
	}
	p := &Parting{Byte: i, Token: -1, Ref: clip(a[i:]), Cand: clip(b[i:])}
	if tk != nil {
		ta, errA := tk.Tokenize(a, false)
		tb, errB := tk.Tokenize(b, false)
		if errA == nil && errB == nil {
			k := 0
			for k < len(ta) && k < len(tb) && ta[k] == tb[k] {
				k++
			}
			p.Token = k
		}
	}
	return p
}

func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	n := 40
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
