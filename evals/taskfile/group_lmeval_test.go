package taskfile

import (
	"context"
	"encoding/json"
	"flag"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/runner"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/runtimetest"
)

var updateGroupScores = flag.Bool("update-group-scores", false, "TestGroupsMatchLMEval rewrites testdata/lmeval/groups/scores.json from its runs")

// groupCases are the group files whose aggregation is checked against
// lm-eval's (testdata/lmeval/groups, made by make_groups.py).
var groupCases = []struct{ name, yaml string }{
	{"mmlu", "tasks/mmlu/default/_mmlu.yaml"}, // lm-eval's, nested: categories of tags
	{"gen", "pocketeval_gen_group.yaml"},      // filters, unweighted, inline subgroup, override
}

// groupRuntime answers deterministically: log-likelihoods from
// runtimetest.Fake, and generations picked by hashing the prompt among
// answers that the lm-eval filters read differently.
type groupRuntime struct{ *runtimetest.Fake }

var groupAnswers = []string{"The answer is 72.", "#### 18", "True", "False", "A: False.", "5", "答案是 18", "18"}

func (r groupRuntime) Generate(ctx context.Context, req runtime.Request) (runtime.Response, error) {
	h := fnv.New32a()
	h.Write([]byte(req.Prompt))
	for _, m := range req.Messages {
		h.Write([]byte(m.Content))
	}
	return runtime.Response{Text: groupAnswers[h.Sum32()%uint32(len(groupAnswers))], FinishReason: runtime.FinishStop}, nil
}

// groupGolden is testdata/lmeval/groups/golden.json: what lm-eval's own
// code (evaluator_utils._process_results: task aggregation, then
// Group.aggregate) computes from the per-sample scores of scores.json.
type groupGolden struct {
	Commit string `json:"lm_eval_commit"`
	Cases  map[string]struct {
		Groups map[string]struct {
			Children  []string               `json:"children"`
			Tasks     []string               `json:"tasks"`
			SampleLen int                    `json:"sample_len"`
			Metrics   map[string][2]*float64 `json:"metrics"`
		} `json:"groups"`
		Tasks map[string]struct {
			SampleLen int                    `json:"sample_len"`
			Metrics   map[string][2]*float64 `json:"metrics"`
		} `json:"tasks"`
	} `json:"cases"`
}

// TestGroupsMatchLMEval runs real lm-eval group files (mmlu over five
// subjects in its four categories; a group of three generate_until task
// files with filters) through the runner with a deterministic runtime and
// requires lm-eval's expansion (members and tasks of every group) and
// lm-eval's numbers: each task's metrics and standard errors, and each
// group's aggregate and pooled standard error, computed by lm-eval's code
// from the same per-sample scores.
func TestGroupsMatchLMEval(t *testing.T) {
	root := t.TempDir()
	writeLMEvalData(t, root)
	dir := filepath.Join("testdata", "lmeval", "groups")
	var golden groupGolden
	scores := map[string]map[string]map[string][]float64{}
	if !*updateGroupScores {
		readJSONFile(t, filepath.Join(dir, "golden.json"), &golden)
		readJSONFile(t, filepath.Join(dir, "scores.json"), &scores)
	}
	got := map[string]map[string]map[string][]float64{}
	for _, c := range groupCases {
		t.Run(c.name, func(t *testing.T) {
			set, err := LoadGroup(filepath.Join("testdata", "lmeval", filepath.FromSlash(c.yaml)), func(string) (evals.Task, bool) { return nil, false })
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			res, err := runner.Run(context.Background(), runner.Options{
				Tasks: set.Tasks, Groups: set.Groups, Runtime: groupRuntime{&runtimetest.Fake{}}, RuntimeName: "fake",
				OutDir: out, DataDir: root, NumFewshot: -1, Gen: runtime.GenConfig{Seed: 1234},
			})
			if err != nil {
				t.Fatal(err)
			}
			got[c.name] = sampleScores(t, out, res.Summary.Order)
			if *updateGroupScores {
				return
			}
			if !reflect.DeepEqual(got[c.name], scores[c.name]) {
				t.Fatalf("per-sample scores differ from scores.json (the goldens were made from them); rerun with -update-group-scores and make_groups.py if the change is intended")
			}
			want := golden.Cases[c.name]
			if len(want.Groups) == 0 {
				t.Fatalf("golden.json has no case %s", c.name)
			}
			for name, wt := range want.Tasks {
				ts := res.Summary.Tasks[name]
				if ts == nil {
					t.Errorf("task %s: lm-eval ran it, pocketeval did not", name)
					continue
				}
				if ts.Scored != wt.SampleLen {
					t.Errorf("task %s: %d scored samples, lm-eval sample_len %d", name, ts.Scored, wt.SampleLen)
				}
				for key, vs := range wt.Metrics {
					m := ts.Metrics[pocketevalKey(key)]
					checkNumber(t, name+" "+key, m.Mean, vs[0])
					checkStderr(t, name+" "+key, m.Stderr, vs[1])
				}
			}
			if len(res.Summary.Tasks) != len(want.Tasks) {
				t.Errorf("pocketeval ran %v, lm-eval %d tasks", res.Summary.Order, len(want.Tasks))
			}
			for name, wg := range want.Groups {
				gs := res.Summary.Groups[name]
				if gs == nil {
					t.Errorf("group %s: missing from the summary (groups %v)", name, res.Summary.GroupOrder)
					continue
				}
				if !slices.Equal(gs.Members, wg.Children) || !slices.Equal(gs.Tasks, wg.Tasks) {
					t.Errorf("group %s: members %v tasks %v; lm-eval children %v tasks %v", name, gs.Members, gs.Tasks, wg.Children, wg.Tasks)
				}
				if gs.Samples != wg.SampleLen {
					t.Errorf("group %s: %d samples, lm-eval sample_len %d", name, gs.Samples, wg.SampleLen)
				}
				if len(gs.Metrics) != len(wg.Metrics) {
					t.Errorf("group %s: metrics %v, lm-eval %v", name, keysOf2(gs.Metrics), keysOf2(wg.Metrics))
				}
				for key, vs := range wg.Metrics {
					m, ok := gs.Metrics[pocketevalKey(key)]
					if !ok {
						t.Errorf("group %s: no %s", name, key)
						continue
					}
					checkNumber(t, name+" "+key, m.Mean, vs[0])
					checkStderr(t, name+" "+key, m.Stderr, vs[1])
				}
			}
			if len(res.Summary.Groups) != len(want.Groups) {
				t.Errorf("pocketeval groups %v, lm-eval %d", res.Summary.GroupOrder, len(want.Groups))
			}
		})
	}
	if *updateGroupScores {
		b, _ := json.MarshalIndent(got, "", " ")
		if err := os.WriteFile(filepath.Join(dir, "scores.json"), append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sampleScores reads every task's per-sample scores, in dataset order.
func sampleScores(t *testing.T, dir string, tasks []string) map[string]map[string][]float64 {
	t.Helper()
	out := map[string]map[string][]float64{}
	for _, name := range tasks {
		recs, _, err := results.ReadSamples(results.SamplesPath(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = map[string][]float64{}
		for _, r := range recs {
			for k, v := range r.Scores {
				out[name][k] = append(out[name][k], v)
			}
		}
	}
	return out
}

// pocketevalKey names lm-eval's "metric,filter" as pocketeval does: the
// bare metric for the filter "none".
func pocketevalKey(key string) string { return strings.TrimSuffix(key, ",none") }

func checkNumber(t *testing.T, what string, got float64, want *float64) {
	t.Helper()
	if want == nil || math.Abs(got-*want) > 1e-12 {
		t.Errorf("%s = %.17g, lm-eval %v", what, got, fmtPtr(want))
	}
}

// checkStderr compares a standard error; lm-eval's "N/A" is nil, which
// pocketeval reports as 0.
func checkStderr(t *testing.T, what string, got float64, want *float64) {
	t.Helper()
	if want == nil {
		if got != 0 {
			t.Errorf("%s stderr = %.17g, lm-eval N/A", what, got)
		}
		return
	}
	checkNumber(t, what+" stderr", got, want)
}

func fmtPtr(p *float64) any {
	if p == nil {
		return "N/A"
	}
	return *p
}

func keysOf2[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func readJSONFile(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
