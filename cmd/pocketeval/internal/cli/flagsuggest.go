package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagError is the root's flag error function: an unknown flag names the
// command's flag it most likely meant ("--num_fewshot": lm-eval's
// spelling of --num-fewshot).
func flagError(c *cobra.Command, err error) error {
	const prefix = "unknown flag: --"
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return &FlagError{err: err}
	}
	if s := suggestFlag(c.Flags(), strings.TrimPrefix(msg, prefix)); s != "" {
		err = fmt.Errorf("%w (did you mean --%s?)", err, s)
	}
	return &FlagError{err: err}
}

// suggestFlag returns the flag of fs nearest to name, "" when none is
// near: the same name with "_" for "-" or in another case, else the
// least edit distance of at most a third of the name's length.
func suggestFlag(fs *pflag.FlagSet, name string) string {
	norm := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "-")) }
	want := norm(name)
	best, bestD := "", len(want)/3+1
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(want, norm(f.Name))
		if d < bestD || d == bestD && best != "" && f.Name < best {
			best, bestD = f.Name, d
		}
	})
	if bestD > len(want)/3 {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance of a and b in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// limitValue is --limit: a whole number of samples per task. lm-eval's
// --limit also takes a fraction of each task (0.5); pocketeval refuses
// one plainly rather than with strconv's parse error.
type limitValue int

func (v *limitValue) String() string { return fmt.Sprint(int(*v)) }
func (v *limitValue) Type() string   { return "int" }

func (v *limitValue) Set(s string) error {
	var n int
	if _, err := fmt.Sscan(s, &n); err == nil && fmt.Sprint(n) == strings.TrimPrefix(strings.TrimSpace(s), "+") {
		*v = limitValue(n)
		return nil
	}
	var x float64
	if _, err := fmt.Sscan(s, &x); err == nil && x > 0 && x < 1 {
		return fmt.Errorf("%s is a fraction: --limit takes a whole number of samples per task (lm-eval's fractional --limit is not supported; give the count, e.g. --limit 100)", s)
	}
	return fmt.Errorf("%q is not a whole number of samples", s)
}
