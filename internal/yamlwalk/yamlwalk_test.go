package yamlwalk

import (
	"errors"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestErrorText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		e    Error
		want string
	}{
		{Error{File: "t.yaml", Line: 3, Field: "until", Err: errors.New("bad")}, `t.yaml:3: field "until": bad`},
		{Error{File: "t.yaml", Err: errors.New("bad")}, `t.yaml: bad`},
		{Error{Doc: "policy", File: "g.yaml", Line: 2, Err: errors.New("bad")}, `policy g.yaml:2: bad`},
		{Error{Doc: "suite", File: "s.yaml", Line: 4, Item: "tasks[1]", Field: "reported", Err: errors.New("bad")}, `suite s.yaml:4: tasks[1]: field "reported": bad`},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestMapping(t *testing.T) {
	t.Parallel()
	root, err := Root([]byte("a: &x {b: 1}\nc: *x\na: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := Walker{Doc: "policy", File: "g.yaml"}
	var keys []string
	err = w.Mapping(root, "", func(key string, _, v *yaml.Node) error {
		keys = append(keys, key)
		if Resolve(v).Kind != yaml.MappingNode && key != "a" {
			t.Errorf("%s: alias not resolved", key)
		}
		return nil
	})
	if err == nil || err.Error() != `policy g.yaml:3: field "a": repeats line 1` {
		t.Errorf("err = %v", err)
	}
	if len(keys) != 2 {
		t.Errorf("keys = %v", keys)
	}
	w.Repeated = func(int) string { return "key given twice" }
	if err := w.Mapping(root, "top", func(string, *yaml.Node, *yaml.Node) error { return nil }); err == nil || err.Error() != `policy g.yaml:3: field "top.a": key given twice` {
		t.Errorf("err = %v", err)
	}
	if err := w.Mapping(root.Content[0], "a", nil); err == nil || err.Error() != `policy g.yaml:1: field "a": must be a mapping` {
		t.Errorf("err = %v", err)
	}
	if k := Unknown(root, func(k string) bool { return k == "a" }); k == nil || k.Value != "c" || k.Line != 2 {
		t.Errorf("Unknown = %v", k)
	}
}

func TestScalars(t *testing.T) {
	t.Parallel()
	root, _ := Root([]byte("x: 1.5\ny: .nan\nz: maybe\nb: true\n"))
	w := Walker{File: "f"}
	if x, err := w.Float(root.Content[1], "x"); err != nil || x != 1.5 {
		t.Errorf("x = %v, %v", x, err)
	}
	if _, err := w.Float(root.Content[3], "y"); err == nil || err.Error() != `f:2: field "y": must be a finite number, got .nan` {
		t.Errorf("y: %v", err)
	}
	if _, err := w.Bool(root.Content[5], "z"); err == nil {
		t.Error("z: maybe is no bool")
	}
	var b *bool
	if err := Set(&b, w.Bool, root.Content[7], "b"); err != nil || b == nil || !*b {
		t.Errorf("b = %v, %v", b, err)
	}
}
