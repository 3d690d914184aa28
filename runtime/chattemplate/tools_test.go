package chattemplate_test

import (
	"encoding/json"
	"errors"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/runtime/chattemplate"
)

// toolGolden is one render of scripts/chattemplate-goldens.py's tool set:
// the text, or the exception jinja2 raised and its type.
type toolGolden struct {
	Text  *string `json:"text"`
	Error *string `json:"error"`
	Type  string  `json:"type"`
}

// toolConversations reads a conversations file keeping each field's JSON
// (so key order and number types reach the template as in Python).
func toolConversations(t *testing.T, path string) map[string]map[string]json.RawMessage {
	t.Helper()
	var convs map[string]map[string]json.RawMessage
	readJSON(t, path, &convs)
	return convs
}

// renderCase renders one case key ("<conversation>[@thinking-on|off]").
func renderCase(tmpl *chattemplate.Template, conv map[string]json.RawMessage, key string, tokens map[string]string) (string, error) {
	vars := map[string]any{"messages": conv["messages"], "tools": nil, "documents": nil, "add_generation_prompt": true, "strftime_now": fixedNow}
	if v, ok := conv["tools"]; ok {
		vars["tools"] = v
	}
	if v, ok := conv["documents"]; ok {
		vars["documents"] = v
	}
	if v, ok := conv["add_generation_prompt"]; ok {
		vars["add_generation_prompt"] = string(v) == "true"
	}
	for k, v := range tokens {
		vars[k] = v
	}
	switch {
	case strings.HasSuffix(key, "@thinking-on"):
		vars["enable_thinking"] = true
	case strings.HasSuffix(key, "@thinking-off"):
		vars["enable_thinking"] = false
	}
	return tmpl.Render(vars)
}

// compareCase reports how a Go render disagrees with jinja2's ("" if not).
func compareCase(g toolGolden, got string, err error) string {
	switch {
	case g.Text != nil && err != nil:
		return "error " + err.Error() + "; jinja2 renders " + strconvQuote(*g.Text)
	case g.Text != nil && got != *g.Text:
		return "\n got  " + strconvQuote(got) + "\n want " + strconvQuote(*g.Text)
	case g.Error != nil && err == nil:
		return "renders " + strconvQuote(got) + "; jinja2 raises " + g.Type + ": " + *g.Error
	case g.Error != nil && g.Type == "TemplateError":
		var te *chattemplate.TemplateError
		if !errors.As(err, &te) || te.Message != *g.Error {
			return "error " + err.Error() + "; jinja2 raises the template's own " + strconvQuote(*g.Error)
		}
	}
	return ""
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestToolGoldens renders the conformance templates over tools, tool
// calls, tool results, reasoning_content, content parts and documents and
// requires jinja2's text (or jinja2's refusal) for every case.
func TestToolGoldens(t *testing.T) {
	t.Parallel()
	var metas map[string]templateMeta
	readJSON(t, "testdata/templates.json", &metas)
	convs := toolConversations(t, "testdata/tool-conversations.json")
	for _, name := range slices.Sorted(maps.Keys(metas)) {
		meta := metas[name]
		src, err := os.ReadFile(filepath.Join("testdata", meta.File))
		if err != nil {
			t.Fatal(err)
		}
		tmpl, err := chattemplate.Parse(string(src))
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]toolGolden
		readJSON(t, filepath.Join("testdata", "golden-tools", name+".json"), &want)
		if len(want) < len(convs) {
			t.Errorf("%s: %d tool goldens for %d conversations (rerun scripts/chattemplate-goldens.py)", name, len(want), len(convs))
		}
		for _, key := range slices.Sorted(maps.Keys(want)) {
			conv, ok := convs[strings.SplitN(key, "@", 2)[0]]
			if !ok {
				t.Errorf("%s: golden %s has no conversation", name, key)
				continue
			}
			got, err := renderCase(tmpl, conv, key, meta.Tokens)
			if d := compareCase(want[key], got, err); d != "" {
				t.Errorf("%s %s: %s", name, key, d)
			}
		}
	}
}

// TestRealTemplates renders llama.cpp's collection of real chat templates
// (models/templates of the llama.cpp source node-llama-cpp bundles; read
// at test time, never committed) over the tool and plain conversations
// and compares every case with Python jinja2's render, made here by
// scripts/chattemplate-goldens.py --realset. Set POCKETEVAL_CHAT_TEMPLATES
// to another directory of *.jinja files to check those instead.
func TestRealTemplates(t *testing.T) {
	if testing.Short() {
		t.Skip("runs Python over about 70 templates")
	}
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import jinja2").Run(); err != nil {
		t.Skip("python3-jinja2 is not installed (apt-get install python3-jinja2)")
	}
	dir := os.Getenv("POCKETEVAL_CHAT_TEMPLATES")
	if dir == "" {
		out, err := exec.Command("../../scripts/chat-templates.sh").Output()
		if err != nil {
			t.Skipf("no template collection (scripts/chat-templates.sh: %v; run scripts/setup-llamacpp.sh first)", err)
		}
		dir = strings.TrimSpace(string(out))
	}
	golden := filepath.Join(t.TempDir(), "realset.json")
	if out, err := exec.Command(py, "../../scripts/chattemplate-goldens.py", "--realset", dir, golden).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var want map[string]map[string]json.RawMessage
	readJSON(t, golden, &want)
	if len(want) < 60 {
		t.Fatalf("only %d templates in %s, want at least 60", len(want), dir)
	}
	convs := toolConversations(t, "testdata/tool-conversations.json")
	for k, v := range toolConversations(t, "testdata/conversations.json") {
		convs[k] = v
	}
	tokens := map[string]string{"bos_token": "<|bos|>", "eos_token": "<|eos|>"}
	cases, equal := 0, 0
	for _, file := range slices.Sorted(maps.Keys(want)) {
		src, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		tmpl, perr := chattemplate.Parse(string(src))
		if msg, ok := want[file]["parse-error"]; ok {
			if perr == nil {
				t.Errorf("%s: parses; jinja2 refuses it: %s", file, msg)
			}
			continue
		}
		if perr != nil {
			t.Errorf("%s: %v", file, perr)
			continue
		}
		// Render twice: the output must not vary between runs.
		for _, key := range slices.Sorted(maps.Keys(want[file])) {
			var g toolGolden
			if err := json.Unmarshal(want[file][key], &g); err != nil {
				t.Fatal(err)
			}
			conv := convs[strings.SplitN(key, "@", 2)[0]]
			got, err := renderCase(tmpl, conv, key, tokens)
			again, err2 := renderCase(tmpl, conv, key, tokens)
			cases++
			if got != again || (err == nil) != (err2 == nil) {
				t.Errorf("%s %s: two renders differ", file, key)
				continue
			}
			if d := compareCase(g, got, err); d != "" {
				t.Errorf("%s %s: %s", file, key, d)
				continue
			}
			equal++
		}
	}
	t.Logf("%d of %d cases over %d templates equal jinja2's", equal, cases, len(want))
}
