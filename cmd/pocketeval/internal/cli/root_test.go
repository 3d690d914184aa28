package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// names returns the names of c's subcommands, in order.
func names(c *cobra.Command) []string {
	var out []string
	for _, sub := range c.Commands() {
		out = append(out, sub.Name())
		out = append(out, sub.Aliases...)
	}
	return out
}

// TestTopCommandNames holds topCommands' names to the commands each entry
// builds, and the entries to the whole tree: a command missing from an
// entry's names would be built only with the whole tree (slower, still
// right); a name no command answers to would build an entry for nothing.
func TestTopCommandNames(t *testing.T) {
	f, _, _ := testFactory()
	var all []string
	for _, e := range topCommands {
		var got []string
		for _, c := range e.build(f) {
			got = append(got, c.Name())
			got = append(got, c.Aliases...)
		}
		if !slices.Equal(got, e.names) {
			t.Errorf("entry %v builds commands %v", e.names, got)
		}
		all = append(all, got...)
	}
	slices.Sort(all)
	if whole := names(NewCmdRoot(f)); !slices.Equal(all, whole) {
		t.Errorf("entries name %v, the tree has %v", all, whole)
	}
	if slices.ContainsFunc(all, func(n string) bool { return n == "help" || n == "completion" || strings.HasPrefix(n, "__") }) {
		t.Errorf("an entry takes one of cobra's own commands: %v", all)
	}
}

// TestRootFor checks which command lines get a partial tree and that the
// partial tree holds the whole entry, subcommands included.
func TestRootFor(t *testing.T) {
	f, _, _ := testFactory()
	whole := names(NewCmdRoot(f))
	for _, tc := range []struct {
		args []string
		want []string // nil: the whole tree
	}{
		{[]string{"run", "--tasks", "ifeval", "--runtime", "replay"}, []string{"run"}},
		{[]string{"run", "--help"}, []string{"run"}},
		{[]string{"sandbox", "probe", "--json"}, []string{"sandbox"}},
		{[]string{"gate", "a", "b"}, []string{"compare", "gate", "leaderboard", "suite"}},
		{[]string{"energy"}, []string{"bench", "energy"}},
		{nil, nil},
		{[]string{"--help"}, nil},
		{[]string{"--version"}, nil},
		{[]string{"help", "run"}, nil},
		{[]string{"completion", "bash"}, nil},
		{[]string{"__complete", "run", "--tas"}, nil},
		{[]string{"runn"}, nil},
		{[]string{"Run"}, nil},
	} {
		got := names(rootFor(f, tc.args))
		want := tc.want
		if want == nil {
			want = whole
		}
		if !slices.Equal(got, want) {
			t.Errorf("rootFor(%q) has %v, want %v", tc.args, got, want)
		}
	}
	sandbox := rootFor(f, []string{"sandbox", "conformance"}).Commands()[0]
	if got := names(sandbox); !slices.Equal(got, []string{"conformance", "probe", "run"}) {
		t.Errorf("sandbox's subcommands in the partial tree: %v", got)
	}
}

// TestExecutePartialTree runs command lines through Execute with the
// partial tree and with the whole one: the same output, errors and exit
// codes.
func TestExecutePartialTree(t *testing.T) {
	run := func(args []string, partial bool) (string, string, int) {
		t.Helper()
		old := partialTrees
		partialTrees = partial
		defer func() { partialTrees = old }()
		f, out, errb := testFactory()
		code := Execute(context.Background(), f, args)
		return out.String(), errb.String(), code
	}
	for _, args := range [][]string{
		{"run", "--help"},
		{"run", "--tasks", "nosuchtask", "--runtime", "replay", "--predictions", "/nonexistent"},
		{"run", "--temperature", "nan"},
		{"tasks", "--bogus"},
		{"tasks", "--json"},
		{"sandbox", "--help"},
		{"sandbox", "nope"},
		{"version", "extra"},
		{"gate"},
		{"bench", "--help"},
		{"datasets", "list", "--help"},
	} {
		out, errs, code := run(args, true)
		wout, werrs, wcode := run(args, false)
		if out != wout || errs != werrs || code != wcode {
			t.Errorf("%q: partial tree printed %q, %q, exit %d; whole tree %q, %q, exit %d", args, out, errs, code, wout, werrs, wcode)
		}
	}
}
