package cli

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// parse runs cmd on args (split on spaces) and reports the error, as the
// root would see it (argument and flag errors are *FlagError).
func parse(t *testing.T, cmd *cobra.Command, args string) error {
	t.Helper()
	ios, _, _, _ := TestStreams()
	usageArgs(cmd)
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &FlagError{err: err} })
	cmd.SetArgs(strings.Fields(args))
	cmd.SetOut(ios.Out)
	cmd.SetErr(ios.ErrOut)
	return cmd.Execute()
}

// TestNewCmdOptions checks that each command's flags and arguments land in
// its Options, captured through runF, and that bad ones are usage errors
// before runF is called.
func TestNewCmdOptions(t *testing.T) {
	t.Parallel()
	f, _, _ := testFactory()
	tests := []struct {
		name    string
		cmd     func(capture func(any) error) *cobra.Command
		args    string
		want    any
		wantErr string
	}{
		{"compare", func(c func(any) error) *cobra.Command {
			return NewCmdCompare(f, func(o *CompareOptions) error { return c(o) })
		}, "a b --alpha 0.1 --resamples 50 --seed 3 --tasks x,y --json",
			&CompareOptions{IO: f.IO, A: "a", B: "b", JSON: true, Alpha: 0.1, Resamples: 50, Seed: 3, Tasks: []string{"x", "y"}}, ""},
		{"compare bad alpha", func(c func(any) error) *cobra.Command {
			return NewCmdCompare(f, func(o *CompareOptions) error { return c(o) })
		}, "a b --alpha 1", nil, "--alpha must be in (0,1)"},
		{"compare one run", func(c func(any) error) *cobra.Command {
			return NewCmdCompare(f, func(o *CompareOptions) error { return c(o) })
		}, "a", nil, "accepts 2 arg(s)"},
		{"gate", func(c func(any) error) *cobra.Command {
			return NewCmdGate(f, func(o *GateOptions) error { o.Tasks = nil; return c(o) })
		}, "--baseline a --candidate b --policy p.yaml --junit j.xml --markdown m.md --seed 9 --allow-unlike --data-dir d --no-verify",
			&GateOptions{IO: f.IO, Baseline: "a", Candidate: "b", Policy: "p.yaml", JUnit: "j.xml", Markdown: "m.md", Seed: 9, AllowUnlike: true, DataDir: "d", NoVerify: true}, ""},
		{"gate without policy", func(c func(any) error) *cobra.Command {
			return NewCmdGate(f, func(o *GateOptions) error { return c(o) })
		}, "--baseline a --candidate b", nil, "--policy are required"},
		{"leaderboard", func(c func(any) error) *cobra.Command {
			return NewCmdLeaderboard(f, func(o *LeaderboardOptions) error { return c(o) })
		}, "a b --html b.html --title T --suite pocket11",
			&LeaderboardOptions{IO: f.IO, Dirs: []string{"a", "b"}, HTML: "b.html", Title: "T", Suite: "pocket11"}, ""},
		{"suite", func(c func(any) error) *cobra.Command {
			return NewCmdSuite(f, func(o *SuiteOptions) error { o.Tasks = nil; return c(o) })
		}, "runs/x --suite s --json", &SuiteOptions{IO: f.IO, Dir: "runs/x", Suite: "s", JSON: true}, ""},
		{"suite list takes no dir", func(c func(any) error) *cobra.Command {
			return NewCmdSuite(f, func(o *SuiteOptions) error { return c(o) })
		}, "--list runs/x", nil, "unknown command"},
		{"merge", func(c func(any) error) *cobra.Command {
			return NewCmdMerge(f, func(o *MergeOptions) error { o.Tasks, o.Now = nil, nil; return c(o) })
		}, "s0 s1 --out m --data-dir d", &MergeOptions{IO: f.IO, Dirs: []string{"s0", "s1"}, Out: "m", DataDir: "d", Args: f.Args}, ""},
		{"merge without out", func(c func(any) error) *cobra.Command {
			return NewCmdMerge(f, func(o *MergeOptions) error { return c(o) })
		}, "s0", nil, "--out is required"},
		{"version", func(c func(any) error) *cobra.Command {
			return NewCmdVersion(f, func(o *VersionOptions) error { o.BuildInfo, o.Engines = nil, nil; return c(o) })
		}, "--json", &VersionOptions{IO: f.IO, JSON: true}, ""},
		{"models download", func(c func(any) error) *cobra.Command {
			return NewCmdModelsDownload(f, &ModelsOptions{IO: f.IO, File: "m.json"}, func(o *ModelsDownloadOptions) error { o.Progress = nil; return c(o) })
		}, "a b", &ModelsDownloadOptions{ModelsOptions: &ModelsOptions{IO: f.IO, File: "m.json"}, Names: []string{"a", "b"}}, ""},
		{"datasets verify unknown", func(c func(any) error) *cobra.Command {
			return NewCmdDatasetsVerify(f, &DatasetsOptions{IO: f.IO}, func(o *DatasetsVerifyOptions) error { return c(o) })
		}, "nosuchdata", nil, `unknown dataset or task "nosuchdata"`},
	}
	for _, tt := range tests {
		var got any
		err := parse(t, tt.cmd(func(o any) error { got = o; return nil }), tt.args)
		if tt.wantErr != "" {
			var fe *FlagError
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, &fe) {
				t.Errorf("%s: err = %v, want a usage error containing %q", tt.name, err, tt.wantErr)
			}
			if got != nil {
				t.Errorf("%s: runF was called despite the error", tt.name)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: options\n%+v\nwant\n%+v", tt.name, got, tt.want)
		}
	}
}

// TestNewCmdRunOptions: run's flags, including a runtime's own, reach
// RunOptions; runtime-specific checks happen when the run starts.
func TestNewCmdRunOptions(t *testing.T) {
	t.Parallel()
	f, _, _ := testFactory()
	var got *RunOptions
	err := parse(t, NewCmdRun(f, func(o *RunOptions) error { got = o; return nil }),
		"--runtime llamacpp --model m.gguf --ctx-size 512 --threads 2 --tasks alpha,beta --out o --limit 5 --concurrency 3 --shard 1/2 --raw")
	if err != nil {
		t.Fatal(err)
	}
	if got.Runtime.Name != "llamacpp" || got.Runtime.Model != "m.gguf" || got.Runtime.Threads != 2 ||
		!reflect.DeepEqual(got.Tasks, []string{"alpha", "beta"}) || got.Limit != 5 || got.Concurrency != 3 || got.Shard != "1/2" || !got.Raw {
		t.Errorf("options: %+v", got)
	}
	if err := got.Runtime.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
	got = nil
	err = parse(t, NewCmdRun(f, func(o *RunOptions) error { got = o; return nil }), "--runtime replay --predictions p.jsonl --backend gpu --tasks alpha --out o")
	if err != nil {
		t.Fatal(err)
	}
	var fe *FlagError
	if err := got.Runtime.Validate(); !errors.As(err, &fe) || !strings.Contains(err.Error(), "--backend (mnn): not flags of --runtime replay") {
		t.Errorf("Validate = %v, want a usage error naming --backend", err)
	}
	// --prefix-cache is llamacpp's and mnn's: registered once, its value
	// reaches the selected runtime, and it is foreign to the others.
	for _, tt := range []struct{ args, wantErr string }{
		{"--runtime llamacpp --model m.gguf", ""},
		{"--runtime mnn --model pkg", ""},
		{"--runtime openai --base-url http://x/v1 --model m", "--prefix-cache (llamacpp, mnn): not flags of --runtime openai"},
	} {
		got = nil
		if err := parse(t, NewCmdRun(f, func(o *RunOptions) error { got = o; return nil }), tt.args+" --prefix-cache off --tasks alpha --out o"); err != nil {
			t.Fatal(err)
		}
		err := got.Runtime.Validate()
		if tt.wantErr != "" {
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: Validate = %v, want %q", tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: Validate: %v", tt.args, err)
		}
		if mf, ok := got.Runtime.mnnFlags(); ok && mf.PrefixCache != "off" {
			t.Errorf("%s: mnn's --prefix-cache = %q, want off", tt.args, mf.PrefixCache)
		}
	}
}
