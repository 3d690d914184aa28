package cli

import (
	"regexp"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// placeholderRE is what a flag's value placeholder in --help may be: a
// back-quoted word of the usage text in capitals (FILE, N,M, MODE) or the
// type name pflag prints when there is none.
var placeholderRE = regexp.MustCompile(`^([A-Z][A-Z0-9_]*([,=:][A-Z][A-Z0-9_]*)*(,\.\.\.)?|[a-z][a-zA-Z0-9]*)?$`)

// TestFlagPlaceholders walks every command and checks the value
// placeholder --help shows for each flag: pflag takes the first
// back-quoted text of the usage string, so "(see `pocketeval tasks`)"
// showed as "--tasks pocketeval tasks".
func TestFlagPlaceholders(t *testing.T) {
	f, _, _ := testFactory()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check := func(fl *pflag.Flag) {
			name, _ := pflag.UnquoteUsage(fl)
			if !placeholderRE.MatchString(name) {
				t.Errorf("%s --%s: placeholder %q in --help (back-quote only a value word such as `FILE`)", c.CommandPath(), fl.Name, name)
			}
		}
		c.LocalFlags().VisitAll(check)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewCmdRoot(f))
}
