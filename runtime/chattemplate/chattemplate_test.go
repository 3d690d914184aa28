package chattemplate_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// fixedNow is the instant scripts/chattemplate-goldens.py pins strftime_now to.
var fixedNow = time.Date(2026, 2, 3, 4, 5, 6, 0, time.Local)

type templateMeta struct {
	File   string            `json:"file"`
	SHA256 string            `json:"sha256"`
	Tokens map[string]string `json:"special_tokens"`
	Model  string            `json:"model"`
	Source struct {
		Repo   string `json:"repo"`
		Path   string `json:"path"`
		Commit string `json:"commit"`
	} `json:"source"`
	License  string `json:"license"`
	Thinking bool   `json:"thinking"`
}

type conversation struct {
	Messages            []runtime.Message `json:"messages"`
	AddGenerationPrompt *bool             `json:"add_generation_prompt"`
}

type golden struct {
	Text  *string `json:"text"`
	Error *string `json:"error"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestGoldens renders every real template over every conversation (and
// thinking on/off where the template supports it) and requires the result
// to equal Python jinja2's render byte for byte.
func TestGoldens(t *testing.T) {
	t.Parallel()
	var metas map[string]templateMeta
	readJSON(t, "testdata/templates.json", &metas)
	var convs map[string]conversation
	readJSON(t, "testdata/conversations.json", &convs)
	if len(metas) < 10 {
		t.Fatalf("only %d templates in the conformance set, want at least 10", len(metas))
	}
	names := make([]string, 0, len(metas))
	for n := range metas {
		names = append(names, n)
	}
	sort.Strings(names)
	checked := 0
	for _, name := range names {
		meta := metas[name]
		t.Run(name, func(t *testing.T) {
			if meta.Source.Repo == "" || meta.Source.Path == "" || meta.Source.Commit == "" || meta.License == "" {
				t.Errorf("templates.json: %s: provenance incomplete (repo, path, commit, license)", name)
			}
			src, err := os.ReadFile(filepath.Join("testdata", meta.File))
			if err != nil {
				t.Fatal(err)
			}
			tmpl, err := chattemplate.Parse(string(src))
			if err != nil {
				t.Fatal(err)
			}
			if tmpl.SHA256() != meta.SHA256 {
				t.Errorf("%s: sha256 %s, templates.json says %s", meta.File, tmpl.SHA256(), meta.SHA256)
			}
			if tmpl.UsesThinking() != meta.Thinking {
				t.Errorf("UsesThinking = %v, templates.json says %v", tmpl.UsesThinking(), meta.Thinking)
			}
			var want map[string]golden
			readJSON(t, filepath.Join("testdata", "golden", name+".json"), &want)
			seen := 0
			for cname, c := range convs {
				modes := map[string]chattemplate.Thinking{"": chattemplate.ThinkingModelDefault}
				if meta.Thinking {
					modes["@thinking-on"] = chattemplate.ThinkingOn
					modes["@thinking-off"] = chattemplate.ThinkingOff
				}
				for suffix, mode := range modes {
					key := cname + suffix
					g, ok := want[key]
					if !ok {
						t.Errorf("%s: no golden (rerun scripts/chattemplate-goldens.py)", key)
						continue
					}
					seen++
					extra := map[string]any{}
					for k, v := range meta.Tokens {
						if k != "bos_token" && k != "eos_token" {
							extra[k] = v
						}
					}
					got, err := tmpl.Chat(c.Messages, chattemplate.ChatOptions{
						AddGenerationPrompt: c.AddGenerationPrompt == nil || *c.AddGenerationPrompt,
						BOS:                 meta.Tokens["bos_token"], EOS: meta.Tokens["eos_token"],
						Thinking: mode, Now: fixedNow, Extra: extra,
					})
					switch {
					case g.Text != nil && err != nil:
						t.Errorf("%s: %v; jinja2 renders %q", key, err, *g.Text)
					case g.Text != nil && got != *g.Text:
						t.Errorf("%s:\n got  %q\n want %q", key, got, *g.Text)
					case g.Error != nil:
						var te *chattemplate.TemplateError
						if !errors.As(err, &te) || te.Message != *g.Error {
							t.Errorf("%s: got (%q, %v), want the template's own error %q", key, got, err, *g.Error)
						}
					}
				}
			}
			if seen != len(want) {
				t.Errorf("%d goldens, %d checked: conversations.json and the goldens disagree", len(want), seen)
			}
			checked += seen
		})
	}
}

// TestGoldensUpToDate reruns the golden script with Python's jinja2, when
// the Debian package is installed, and fails on any drift.
func TestGoldensUpToDate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import jinja2").Run(); err != nil {
		t.Skip("python3-jinja2 is not installed (apt-get install python3-jinja2)")
	}
	out, err := exec.Command(py, "../../scripts/chattemplate-goldens.py", "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

func TestJinjaSourceConventions(t *testing.T) {
	t.Parallel()
	check := func(src string, vars map[string]any, want string) {
		t.Helper()
		got, err := chattemplate.Render(src, vars)
		if err != nil {
			t.Errorf("Render(%q): %v", src, err)
			return
		}
		if got != want {
			t.Errorf("Render(%q) = %q, want %q", src, got, want)
		}
	}
	// Jinja drops one trailing newline of the source and normalises CRLF.
	check("a\n{% if true %}\n  x\n{% endif %}\nb\n", nil, "a\n  x\nb")
	check("a\r\nb\n\n", nil, "a\nb\n")
	// Values are not normalised.
	check("{{ s }}", map[string]any{"s": "x\r\n"}, "x\r\n")
	// Undefined renders empty; booleans print as Python's.
	check("[{{ nope }}]{{ b }}{{ b is true }}", map[string]any{"b": true}, "[]TrueTrue")
	// tojson as transformers overrides it: no HTML escaping, UTF-8 kept.
	check("{{ x | tojson }}", map[string]any{"x": map[string]any{"k": "é<&>", "a": []any{1, 2.5, nil, true}}},
		`{"a": [1, 2.5, null, true], "k": "é<&>"}`)
	// strftime_now pinned through vars.
	check(`{{ strftime_now("%d %b %Y") }}`, map[string]any{"strftime_now": fixedNow}, "03 Feb 2026")
}

func TestRaiseException(t *testing.T) {
	t.Parallel()
	_, err := chattemplate.Render(`{{ raise_exception("System role not supported") }}`, nil)
	var te *chattemplate.TemplateError
	if !errors.As(err, &te) || te.Message != "System role not supported" {
		t.Fatalf("got %v, want a TemplateError with the template's message", err)
	}
	if _, err := chattemplate.Parse("{% if %}"); err == nil || !strings.Contains(err.Error(), "parse chat template") {
		t.Errorf("a broken template: got %v, want a parse error", err)
	}
}

func TestStrftime(t *testing.T) {
	t.Parallel()
	tm := time.Date(2024, 7, 6, 15, 4, 5, 0, time.UTC)
	for format, want := range map[string]string{
		"%d %b %Y":       "06 Jul 2024",
		"%Y-%m-%d":       "2024-07-06",
		"%A %B %e, %y":   "Saturday July  6, 24",
		"%I:%M:%S %p %j": "03:04:05 PM 188",
		"%F %T %%":       "2024-07-06 15:04:05 %",
	} {
		got, err := chattemplate.Strftime(tm, format)
		if err != nil || got != want {
			t.Errorf("Strftime(%q) = %q, %v; want %q", format, got, err, want)
		}
	}
	if _, err := chattemplate.Strftime(tm, "%Q"); err == nil {
		t.Error("an unknown directive must fail, not differ from Python silently")
	}
}

func TestThinking(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]chattemplate.Thinking{"": chattemplate.ThinkingModelDefault, "model-default": chattemplate.ThinkingModelDefault, "on": chattemplate.ThinkingOn, "off": chattemplate.ThinkingOff} {
		got, err := chattemplate.ParseThinking(in)
		if err != nil || got != want {
			t.Errorf("ParseThinking(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := chattemplate.ParseThinking("maybe"); err == nil {
		t.Error("ParseThinking accepted a bad value")
	}
	plain, _ := chattemplate.Parse(chattemplate.ChatML)
	if got := plain.ThinkingApplied(chattemplate.ThinkingOff); !strings.Contains(got, "not supported") {
		t.Errorf("ChatML with thinking off: %q", got)
	}
	// A template without enable_thinking gets no such variable: rendering
	// is identical whatever the mode.
	a, _ := plain.Chat([]runtime.Message{{Role: "user", Content: "hi"}}, chattemplate.ChatOptions{AddGenerationPrompt: true, Thinking: chattemplate.ThinkingOff})
	b, _ := plain.Chat([]runtime.Message{{Role: "user", Content: "hi"}}, chattemplate.ChatOptions{AddGenerationPrompt: true})
	if a != b || a != "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n" {
		t.Errorf("ChatML renders %q and %q", a, b)
	}
}

// TestPythonSemantics pins constructs where an earlier engine differed
// from Python's jinja2; each expected text is jinja2 3.1's (with
// transformers' tojson).
func TestPythonSemantics(t *testing.T) {
	t.Parallel()
	args := json.RawMessage(`{"b": 1.0, "a": [2, 3.5e-7, "<é>"]}`)
	for _, c := range []struct{ src, want string }{
		{"{{ n }}", "None"},
		{"{{ 1.0 }} {{ [1.0, 2] }} {{ 1e20 }} {{ 1e-5 }} {{ 7 / 7 }}", "1.0 [1.0, 2] 1e+20 1e-05 1.0"},
		{`{{ "a".startswith(("a", "b")) }}`, "True"},
		{`{{ "%s-%d"|format("a", 3) }}`, "a-3"},
		{"{{ x|tojson }}", `{"b": 1.0, "a": [2, 3.5e-07, "<é>"]}`},
		{"{{ x|tojson(indent=2) }}", "{\n  \"b\": 1.0,\n  \"a\": [\n    2,\n    3.5e-07,\n    \"<é>\"\n  ]\n}"},
		{"{{ x|tojson(ensure_ascii=True) }}", `{"b": 1.0, "a": [2, 3.5e-07, "<\u00e9>"]}`},
		{"{{ x|tojson(separators=(',', ':'), sort_keys=true) }}", `{"a":[2,3.5e-07,"<é>"],"b":1.0}`},
		{`{{ "<b>"|safe + "<x>" }}|{{ "<x>" + "<b>"|safe }}|{{ ("<b>"|safe) ~ "<x>" }}`, "<b>&lt;x&gt;|&lt;x&gt;<b>|<b><x>"},
		{"{{ dict(b=1, a=2, c=3) }}{% for k in dict(z=1, y=2) %}{{ k }}{% endfor %}", "{'b': 1, 'a': 2, 'c': 3}zy"},
		{"{% macro f(a, b) %}{{ a }}{{ b }}{{ varargs }}{% endmacro %}{{ f(*[1, 2, 3]) }}", "12(3,)"},
		{`{{ ["a'b", "c"] }} {{ (1,) }} {{ {"k": none} }}`, `["a'b", 'c'] (1,) {'k': None}`},
	} {
		got, err := chattemplate.Render(c.src, map[string]any{"n": nil, "x": args})
		if err != nil || got != c.want {
			t.Errorf("Render(%q) = %q, %v; jinja2 renders %q", c.src, got, err, c.want)
		}
	}
}

// TestLimits: a template cannot exhaust the machine. range() is capped as
// in Python's sandbox (MAX_RANGE = 100,000) and output, loop steps and
// time are bounded (internal/jinja's tests cover loop steps and time);
// the error names the template and line.
func TestLimits(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"x\n{% for i in range(10**9) %}{% endfor %}",
		"x\n{% set s = 'abcdefgh' * 100000000 %}",
		"x\n{% for i in range(100000) %}{{ 'y' * 1000 }}{% endfor %}",
	} {
		tm, err := chattemplate.ParseFile("loop.jinja", src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tm.Render(nil)
		if err == nil || !strings.Contains(err.Error(), "loop.jinja:2: ") || !strings.Contains(err.Error(), "template limit") {
			t.Errorf("%q: got %v, want a limit error at loop.jinja:2", src, err)
		}
	}
}

// BenchmarkChat renders Qwen3-0.6B's template (the largest conversation of
// the set) once per iteration; BenchmarkParse compiles it.
func BenchmarkChat(b *testing.B) {
	src, err := os.ReadFile("testdata/templates/qwen3-0.6b.jinja")
	if err != nil {
		b.Fatal(err)
	}
	tmpl, err := chattemplate.Parse(string(src))
	if err != nil {
		b.Fatal(err)
	}
	var convs map[string]conversation
	data, _ := os.ReadFile("testdata/conversations.json")
	if err := json.Unmarshal(data, &convs); err != nil {
		b.Fatal(err)
	}
	msgs := convs["multi-turn-no-system"].Messages
	o := chattemplate.ChatOptions{AddGenerationPrompt: true, EOS: "<|im_end|>", Thinking: chattemplate.ThinkingOff, Now: fixedNow}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tmpl.Chat(msgs, o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	src, err := os.ReadFile("testdata/templates/qwen3-0.6b.jinja")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := chattemplate.Parse(string(src)); err != nil {
			b.Fatal(err)
		}
	}
}
