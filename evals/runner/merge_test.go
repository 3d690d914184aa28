package runner

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/runtime"
)

func lookupFake(name string) (evals.Task, error) {
	switch name {
	case "alpha":
		return fakeTask{"alpha", 40}, nil
	case "beta":
		return fakeTask{"beta", 25}, nil
	}
	return nil, fmt.Errorf("unknown task %q", name)
}

// runShards runs shard i/n of opts(dir) into a new directory for each i
// and returns the directories.
func runShards(t *testing.T, n int, opts func(dir string) Options) []string {
	t.Helper()
	var dirs []string
	for i := 0; i < n; i++ {
		dir := t.TempDir()
		o := opts(dir)
		o.Shard = results.Shard{Index: i, Count: n}
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	return dirs
}

func TestThreeShardsMergeEqualsWholeRun(t *testing.T) {
	t.Parallel()
	whole := t.TempDir()
	if _, err := Run(context.Background(), baseOptions(whole, &fakeRuntime{})); err != nil {
		t.Fatal(err)
	}
	shards := runShards(t, 3, func(dir string) Options { return baseOptions(dir, &fakeRuntime{}) })
	out := filepath.Join(t.TempDir(), "merged")
	if _, err := Merge(context.Background(), MergeOptions{Dirs: shards, Out: out, Lookup: lookupFake}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.SummaryFile, "samples/alpha.jsonl", "samples/beta.jsonl"} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the whole run and the merged shards:\n%s\n---\n%s", f, a, b)
		}
	}
	// The merged manifest keeps every shard's invocations, each with its
	// shard, in order of start.
	m, err := results.ReadManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	shardsSeen := map[string]int{}
	generated := 0
	for i, s := range m.Segments {
		shardsSeen[s.Shard]++
		generated += s.Generated
		if i > 0 && s.Start.Before(m.Segments[i-1].Start) {
			t.Errorf("segment %d starts before segment %d", i, i-1)
		}
	}
	if len(m.Segments) != 3 || shardsSeen["0/3"] != 1 || shardsSeen["1/3"] != 1 || shardsSeen["2/3"] != 1 {
		t.Errorf("merged segments by shard %v (%d segments), want one each of 0/3, 1/3, 2/3", shardsSeen, len(m.Segments))
	}
	if generated != 65 {
		t.Errorf("merged segments generated %d samples, want 65 (40 alpha + 25 beta)", generated)
	}
}

func TestMergeRefusals(t *testing.T) {
	t.Parallel()
	mk := func(i, n int, mutate func(*Options)) string {
		dir := t.TempDir()
		o := baseOptions(dir, &fakeRuntime{})
		o.Shard = results.Shard{Index: i, Count: n}
		if mutate != nil {
			mutate(&o)
		}
		if _, err := Run(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	s0, s1 := mk(0, 2, nil), mk(1, 2, nil)
	check := func(dirs []string, want string) {
		t.Helper()
		_, err := Merge(context.Background(), MergeOptions{Dirs: dirs, Out: filepath.Join(t.TempDir(), "m"), Lookup: lookupFake})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Merge(%v) = %v, want error containing %q", dirs, err, want)
		}
	}
	check([]string{s0}, "missing shards 1/2")
	check([]string{s0, s0}, "both shard 0/2")
	check([]string{s0, mk(1, 2, func(o *Options) { o.Gen.MaxTokens = 9 })}, "different configurations")
	check([]string{s0, mk(1, 3, nil)}, "different shard counts")
	// A shard still running is refused.
	m, _ := results.ReadManifest(s1)
	m.Status = results.StatusRunning
	results.WriteManifest(s1, m)
	check([]string{s0, s1}, "not complete")
}

// fakeMCTask is a two-mode multiple-choice task like evals/mc: its version
// carries the mode, and WithMode("loglik") scores choices by
// log-likelihood.
type fakeMCTask struct {
	fakeTask
	mode string
}

func (t fakeMCTask) Info() evals.TaskInfo {
	info := t.fakeTask.Info()
	info.Version = "1+" + t.mode
	return info
}

func (t fakeMCTask) WithMode(mode string) (evals.Task, error) {
	return fakeMCTask{t.fakeTask, mode}, nil
}

func (t fakeMCTask) LoglikRequests(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) ([]runtime.LoglikRequest, error) {
	return []runtime.LoglikRequest{{Context: s.Input, Continuation: " A"}, {Context: s.Input, Continuation: " B"}}, nil
}

func (t fakeMCTask) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	if t.mode != "loglik" {
		return t.fakeTask.Score(ctx, s, out)
	}
	v := 0.0
	if out.Loglik[0].LogProb > out.Loglik[1].LogProb {
		v = 1
	}
	return evals.Score{Values: map[string]float64{"acc": v}}, nil
}

// loglikRuntime scores continuations deterministically from their text.
type loglikRuntime struct{ fakeRuntime }

func (r *loglikRuntime) LogLikelihood(ctx context.Context, reqs []runtime.LoglikRequest) ([]runtime.LoglikResult, error) {
	out := make([]runtime.LoglikResult, len(reqs))
	for i, q := range reqs {
		h := fnv.New32a()
		h.Write([]byte(q.Context + q.Continuation))
		out[i] = runtime.LoglikResult{LogProb: -float64(h.Sum32() % 100), Tokens: 1}
	}
	return out, nil
}

// TestMergeLoglikShards is issue 15's merge bug: shards of a --mode loglik
// run were refused ("version 1+loglik in the shards but 1+gen") because
// Merge looked tasks up in their default mode instead of preparing them as
// the run did.
func TestMergeLoglikShards(t *testing.T) {
	t.Parallel()
	tasks := []evals.Task{fakeMCTask{fakeTask{"alpha", 40}, "gen"}}
	opts := func(dir string) Options {
		o := baseOptions(dir, &loglikRuntime{})
		o.Tasks, o.Mode = tasks, "loglik"
		return o
	}
	whole := t.TempDir()
	if _, err := Run(context.Background(), opts(whole)); err != nil {
		t.Fatal(err)
	}
	shards := runShards(t, 2, opts)
	out := filepath.Join(t.TempDir(), "merged")
	lookup := func(name string) (evals.Task, error) { return tasks[0], nil }
	if _, err := Merge(context.Background(), MergeOptions{Dirs: shards, Out: out, Lookup: lookup}); err != nil {
		t.Fatal(err)
	}
	// Loglik records carry the measured latency of each decision; the
	// rest must be identical.
	if a, b := stripTimings(t, whole), stripTimings(t, out); a != b {
		t.Errorf("the whole loglik run and the merged shards differ:\n%s\n---\n%s", a, b)
	}
	m, err := results.ReadManifest(out)
	if err != nil || m.Config.Tasks[0].Version != "1+loglik" || m.Config.Mode != "loglik" {
		t.Errorf("merged manifest: %+v, %v", m, err)
	}
}

// TestMergeRefusesOtherPrompts checks that Merge prepares tasks with the
// shards' settings and refuses shards whose prompts this build renders
// differently.
func TestMergeRefusesOtherPrompts(t *testing.T) {
	t.Parallel()
	shards := runShards(t, 2, func(dir string) Options { return baseOptions(dir, &fakeRuntime{}) })
	for _, dir := range shards {
		m, _ := results.ReadManifest(dir)
		m.Config.Tasks[0].PromptHash = "0123456789abcdef"
		results.WriteManifest(dir, m)
	}
	_, err := Merge(context.Background(), MergeOptions{Dirs: shards, Out: filepath.Join(t.TempDir(), "m"), Lookup: lookupFake})
	if err == nil || !strings.Contains(err.Error(), "prompts render differently") {
		t.Errorf("err = %v, want a refusal naming the prompts", err)
	}
}

// fakeSeededTask has a run option, like IFEval's langdetect seed: a seed
// other than 0 is in its version and its options, and changes its scores.
type fakeSeededTask struct {
	fakeTask
	seed int
}

func (t fakeSeededTask) Info() evals.TaskInfo {
	info := t.fakeTask.Info()
	if t.seed != 0 {
		info.Version += fmt.Sprintf("+seed.%d", t.seed)
	}
	return info
}

func (t fakeSeededTask) OptionKeys() []string { return []string{"seed"} }

func (t fakeSeededTask) TaskOptions() map[string]string {
	if t.seed == 0 {
		return nil
	}
	return map[string]string{"seed": fmt.Sprint(t.seed)}
}

func (t fakeSeededTask) WithTaskOptions(opts map[string]string) (evals.Task, error) {
	c := t
	c.seed = 0
	for k, v := range opts {
		if k != "seed" {
			return nil, fmt.Errorf("unknown option %q", k)
		}
		if _, err := fmt.Sscan(v, &c.seed); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (t fakeSeededTask) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	sc, err := t.fakeTask.Score(ctx, s, out)
	if t.seed != 0 && len(s.ID)%2 == 0 {
		sc.Values["acc"] = 1 - sc.Values["acc"]
	}
	return sc, err
}

// TestMergeTaskOptions is issue 12's merge bug: shards of a task run with
// a non-default option (--ifeval-seed 7) were refused ("version
// 2+langdetect-seed.7 in the shards but 2") because Merge looked the task
// up with its defaults. The options are recorded in the manifest and
// Merge applies them.
func TestMergeTaskOptions(t *testing.T) {
	t.Parallel()
	seeded := fakeSeededTask{fakeTask{"alpha", 40}, 7}
	opts := func(dir string) Options {
		o := baseOptions(dir, &fakeRuntime{})
		o.Tasks = []evals.Task{seeded}
		return o
	}
	whole := t.TempDir()
	if _, err := Run(context.Background(), opts(whole)); err != nil {
		t.Fatal(err)
	}
	shards := runShards(t, 3, opts)
	m, err := results.ReadManifest(shards[0])
	if err != nil || m.Config.Tasks[0].Options["seed"] != "7" {
		t.Fatalf("shard manifest task config %+v, %v: want options seed 7", m.Config.Tasks, err)
	}
	// The registry knows the task with its defaults, as `pocketeval
	// merge` does.
	lookup := func(string) (evals.Task, error) { return fakeSeededTask{fakeTask{"alpha", 40}, 0}, nil }
	out := filepath.Join(t.TempDir(), "merged")
	if _, err := Merge(context.Background(), MergeOptions{Dirs: shards, Out: out, Lookup: lookup}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.SummaryFile, "samples/alpha.jsonl"} {
		a, _ := os.ReadFile(filepath.Join(whole, f))
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between the whole seeded run and the merged shards:\n%s\n---\n%s", f, a, b)
		}
	}
	if m, err := results.ReadManifest(out); err != nil || m.Config.Tasks[0].Version != "1+seed.7" || m.Config.Tasks[0].Options["seed"] != "7" {
		t.Errorf("merged manifest tasks: %+v, %v", m.Config.Tasks, err)
	}
	// A task that takes no options cannot rebuild them.
	_, err = Merge(context.Background(), MergeOptions{Dirs: shards, Out: filepath.Join(t.TempDir(), "m"), Lookup: lookupFake})
	if err == nil || !strings.Contains(err.Error(), "does not take") {
		t.Errorf("merge with an option-less task: %v, want a refusal", err)
	}
}
