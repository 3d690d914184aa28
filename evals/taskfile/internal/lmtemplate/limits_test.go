package lmtemplate

import (
	"errors"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/jinja"
)

// TestLimits: issue-36 templates stop with a limit error naming the line
// instead of taking the machine down.
func TestLimits(t *testing.T) {
	doc := pyvalue.NewDict()
	doc.AsDict().Set("q", pyvalue.NewString("x"))
	for src, want := range map[string]string{
		"a\n{{ 'a' * 10**9 }}": "template:2: template limit:",
		"{% set ns = namespace(s='a') %}\n{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}":          "template:2: template limit:",
		"{% set ns = namespace(s=['a']) %}\n{% for i in range(40) %}{% set ns.s = ns.s + ns.s %}{% endfor %}{{ ns.s }}":        "template:2: template limit:",
		"{% set ns = namespace(s='ab') %}\n{% for i in range(40) %}{% set ns.s = ns.s|replace('a', ns.s) %}{% endfor %}":       "template:2: template limit:",
		"{% set ns = namespace(s='ab') %}\n{% for i in range(40) %}{% set ns.s = ns.s|regex_replace('a', ns.s) %}{% endfor %}": "template:2: template limit:",
		"{% set ns = namespace(s='ab') %}\n{% for i in range(40) %}{% set ns.s = [ns.s, ns.s]|join(ns.s) %}{% endfor %}":       "template:2: template limit:",
		"{% set ns = namespace(s='ab') %}\n{% for i in range(40) %}{% set ns.s = ns.s.center(ns.s|length * 3) %}{% endfor %}":  "template:2: template limit:",
		"{% set ns = namespace(s='ab') %}\n{% for i in range(40) %}{% set ns.s = '%s%s'|format(ns.s, ns.s) %}{% endfor %}":     "template:2: template limit:",
		"a\n{% for i in range(10**9) %}{% endfor %}{{q}}":                                                                      "template:2: template limit: range too big",
		"a\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}{{q}}":                             "template:2: template limit: more than 1000000 loop iterations",
		"a\n{% for i in range(100000) %}{% for j in range(1000) %}{{ q }}{% endfor %}{% endfor %}":                             "template:2: template limit: more than 1000000 loop iterations",
	} {
		if testing.Short() && strings.Contains(want, "loop iterations") {
			continue // a million engine iterations: seconds on a loaded machine
		}
		tm, err := Compile(src, jinja.DefaultLimits)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tm.Render(doc)
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
	tm, _ := Compile("{% for i in range(3) if i > 0 %}{{ i }}{% endfor %}|{% for k in [1, 2] %}{{ k }}{% endfor %}", jinja.DefaultLimits)
	if got, err := tm.Render(doc); err != nil || got != "12|12" {
		t.Errorf("loops with the hook: %q, %v", got, err)
	}
}
