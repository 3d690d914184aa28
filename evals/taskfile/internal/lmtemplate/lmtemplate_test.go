package lmtemplate

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/jinja"
)

// renders.json is made by testdata/make_renders.py with jinja2 configured
// as lm-eval configures it.
type renderCase struct {
	Doc      string  `json:"doc"`
	Template string  `json:"template"`
	Output   *string `json:"output"`
	Error    string  `json:"error"`
}

func TestRendersMatchJinja2(t *testing.T) {
	raw, err := os.ReadFile("testdata/renders.json")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Docs  map[string]json.RawMessage `json:"docs"`
		Cases []renderCase               `json:"cases"`
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	docs := map[string]pyvalue.Value{}
	for name, d := range file.Docs {
		docs[name] = docOf(t, d)
	}
	for _, c := range file.Cases {
		tmpl, err := Compile(c.Template, jinja.DefaultLimits)
		got := ""
		if err == nil {
			got, err = tmpl.Render(docs[c.Doc])
		}
		switch {
		case c.Output != nil && err != nil:
			t.Errorf("doc %s, template %q: %v; jinja2 renders %q", c.Doc, c.Template, err, *c.Output)
		case c.Output != nil && got != *c.Output:
			t.Errorf("doc %s, template %q:\n got %q\nwant %q", c.Doc, c.Template, got, *c.Output)
		case c.Output == nil && err == nil:
			t.Errorf("doc %s, template %q: rendered %q; jinja2 fails with %s", c.Doc, c.Template, got, c.Error)
		}
	}
}

func TestUndefinedOutputNamesTheExpression(t *testing.T) {
	tmpl, err := Compile("Q: {{question}}\nA: {{ answr }}", jinja.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	d := pyvalue.NewDict()
	d.AsDict().Set("question", pyvalue.NewString("q"))
	_, err = tmpl.Render(d)
	if err == nil || !strings.Contains(err.Error(), "template:2: 'answr' is undefined") {
		t.Fatalf("err = %v, want it to name line 2 and answr", err)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, src := range []string{"{{ x", "{% if x %}", "{{ 'unterminated }}", "{% raw %}x"} {
		if _, err := Compile(src, jinja.DefaultLimits); err == nil {
			t.Errorf("Compile(%q): no error", src)
		}
	}
}

func TestPythonReplacement(t *testing.T) {
	for in, want := range map[string]string{`\1-\2`: "${1}-${2}", `\g<name>`: "${name}", `$5`: "$$5", `plain`: "plain"} {
		if got := PythonReplacement(in); got != want {
			t.Errorf("PythonReplacement(%q) = %q, want %q", in, got, want)
		}
	}
}

func docOf(t *testing.T, raw json.RawMessage) pyvalue.Value {
	t.Helper()
	v, err := pyvalue.FromJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
