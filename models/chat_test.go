package models

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinChatDefaults(t *testing.T) {
	t.Parallel()
	reg, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range reg.Names() {
		if reg[name].Chat == nil {
			t.Errorf("%s: no chat defaults recorded", name)
		}
	}
	q := reg["qwen3-0.6b-gguf"].Chat
	if q.Thinking != "on" || q.ThinkingSwitch != "enable_thinking" || len(q.Generation) != 2 {
		t.Fatalf("qwen3 chat defaults %+v", q)
	}
	if got := q.Generation[0].String(); got != "temperature=0.6 top_p=0.95 top_k=20 min_p=0" {
		t.Errorf("thinking-mode settings %q", got)
	}
}

func TestChatDefaultsValidated(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ chat, want string }{
		{`{"thinking": "on"}`, `field "chat.template": missing`},
		{`{"template": "gguf:tokenizer.chat_template", "thinking": "maybe"}`, `field "chat.thinking"`},
		{`{"template": "none", "thinking": "none", "generation": [{"mode": "default", "temperature": 0.5}]}`, `field "chat.generation[0]"`},
	} {
		p := filepath.Join(t.TempDir(), "models.json")
		os.WriteFile(p, []byte(`{"m": {"runtime": "llamacpp", "repo": "a/b", "files": [{"name": "m.gguf"}], "chat": `+c.chat+`}}`), 0o644)
		_, err := Load(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("chat %s: got %v, want an error naming %s and %s", c.chat, err, p, c.want)
		}
	}
}

// TestReferenceTemplates: every reference_template names a template of
// chattemplate's conformance set, so `models show` points at a template
// with provenance and goldens.
func TestReferenceTemplates(t *testing.T) {
	t.Parallel()
	reg, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "runtime", "chattemplate", "testdata", "templates.json"))
	if err != nil {
		t.Fatal(err)
	}
	var set map[string]json.RawMessage
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"smollm2-360m-instruct-gguf": "smollm2-instruct", "minicpm4-0.5b-mnn": "minicpm4"}
	for _, name := range reg.Names() {
		ref := reg[name].Chat.ReferenceTemplate
		if w, ok := want[name]; ok && ref != w {
			t.Errorf("%s: reference_template %q, want %q", name, ref, w)
		}
		if _, ok := set[ref]; ref != "" && !ok {
			t.Errorf("%s: reference_template %q is not in runtime/chattemplate/testdata/templates.json", name, ref)
		}
	}
}
