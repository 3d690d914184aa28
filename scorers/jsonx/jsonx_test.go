package jsonx

import (
	"errors"
	"testing"
)

func TestExtract(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     string // value of "name", "" when no object
	}{
		{"bare", `{"name": "张三", "address": "北京"}`, "张三"},
		{"fenced", "Here you go:\n```json\n{\"name\": \"李四\"}\n```\nDone.", "李四"},
		{"fence without language", "```\n{\"name\": \"王五\"}\n```", "王五"},
		{"prose around", `The record is {"name": "赵六", "note": "has } brace"} as asked.`, "赵六"},
		{"first parseable", `{not json} then {"name": "钱七"}`, "钱七"},
		{"bad fence falls back", "```json\n{oops\n``` but {\"name\": \"孙八\"}", "孙八"},
		{"none", "I cannot find a name.", ""},
		{"array only", `["a", "b"]`, ""},
	} {
		obj, err := Extract(c.in)
		if c.want == "" {
			if !errors.Is(err, ErrNoJSON) {
				t.Errorf("%s: err = %v, want ErrNoJSON", c.name, err)
			}
			continue
		}
		if err != nil || obj["name"] != c.want {
			t.Errorf("%s: got %v, %v; want name %q", c.name, obj, err, c.want)
		}
	}
}

func TestCompare(t *testing.T) {
	target := map[string]any{"name": "张三", "phone": "138 0000 0000", "address": "北京市海淀区", "tags": []any{"vip", "new"}}
	check := func(name string, pred map[string]any, fields []string, wantTotal Counts, exact bool) {
		t.Helper()
		c := Compare(pred, target, fields)
		if c.Total != wantTotal || c.Exact != exact {
			t.Errorf("%s: total %+v exact %v, want %+v %v (fields %+v)", name, c.Total, c.Exact, wantTotal, exact, c.Fields)
		}
	}
	check("identical", map[string]any{"name": "张三", "phone": "138  0000 0000", "address": "北京市海淀区", "tags": []any{"new", "VIP"}}, nil, Counts{TP: 5}, true)
	check("full-width folded", map[string]any{"name": "张三", "phone": "１３８ ００００ ００００", "address": "北京市海淀区", "tags": []any{"vip", "new"}}, nil, Counts{TP: 5}, true)
	check("wrong value counts both ways", map[string]any{"name": "张四", "phone": "138 0000 0000", "address": "北京市海淀区", "tags": []any{"vip", "new"}}, nil, Counts{TP: 4, FP: 1, FN: 1}, false)
	check("missing and extra fields", map[string]any{"name": "张三", "email": "a@b.c"}, nil, Counts{TP: 1, FP: 1, FN: 4}, false)
	check("null is empty", map[string]any{"name": "张三", "phone": nil, "address": "", "tags": []any{}}, []string{"name", "phone", "address", "tags"}, Counts{TP: 1, FN: 4}, false)
	check("restricted fields", map[string]any{"name": "张三", "email": "x"}, []string{"name"}, Counts{TP: 1}, true)
	check("no JSON", nil, nil, Counts{FN: 5}, false)
}

func TestNumbersCompareByValue(t *testing.T) {
	pred, _ := Extract(`{"n": 1.0, "b": true}`)
	gold, _ := Extract(`{"n": 1, "b": true}`)
	if c := Compare(pred, gold, nil); !c.Exact {
		t.Fatalf("1.0 vs 1: %+v", c)
	}
}

func TestCountsPRF(t *testing.T) {
	p, r, f := Counts{TP: 3, FP: 1, FN: 2}.PRF()
	if p != 0.75 || r != 0.6 || f < 0.6666 || f > 0.6667 {
		t.Fatalf("PRF = %v %v %v", p, r, f)
	}
	if p, r, f := (Counts{}).PRF(); p != 0 || r != 0 || f != 0 {
		t.Fatalf("empty PRF = %v %v %v", p, r, f)
	}
}
