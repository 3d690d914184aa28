package bfcl

import (
	"runtime"
	"strings"
	"testing"
)

// bombs are answers whose values Python would build at any size (BFCL's
// resolve_ast_by_type evaluates a BinOp with eval(ast.unparse(value)):
// model_handler/utils.py:287 at 4a64db34, bfcl_eval/model_handler/utils.py
// resolve_ast_by_type at 6ea57973) or nest deeper than Python's parser and
// json module go.
var bombs = map[string]string{
	"str10e10":   "[calculate_triangle_area(base='a'*10**10, height=5)]",
	"nested":     "[calculate_triangle_area(base=[[1]*1000]*10**6, height=5)]",
	"list10e9":   "[calculate_triangle_area(base=[1]*10**9, height=5)]",
	"ab10e8":     "[calculate_triangle_area(base='ab'*10**8, height=5)]",
	"format":     "[calculate_triangle_area(base='%s'%('x'*10**9), height=5)]",
	"sum":        "[calculate_triangle_area(base=" + strings.Repeat("'a'*10**6+", 100) + "'b', height=5)]",
	"chain":      "[calculate_triangle_area(base=" + strings.Repeat("1+", 20000) + "1, height=5)]",
	"not":        "[calculate_triangle_area(base=" + strings.Repeat("not ", 20000) + "1, height=5)]",
	"attr":       "[calculate_triangle_area(base=a" + strings.Repeat(".b", 20000) + ", height=5)]",
	"calls":      "[calculate_triangle_area(base=f" + strings.Repeat("()", 20000) + ", height=5)]",
	"subscripts": "[calculate_triangle_area(base=a" + strings.Repeat("[0]", 20000) + ", height=5)]",
	"pow":        "[calculate_triangle_area(base=2**10**10, height=5)]",
	"many":       "[" + strings.Repeat("calculate_triangle_area(base='a'*4000000, height=5),", 300) + "]",
}

const triangleFn = `{"name": "calculate_triangle_area", "description": "area", "parameters": {"type": "dict", "properties": {"base": {"type": "integer", "description": "b"}, "height": {"type": "integer", "description": "h"}}, "required": ["base", "height"]}}`
const triangleAnswer = `{"calculate_triangle_area": {"base": [10], "height": [5]}}`

// TestBombsAreBounded scores each bomb as BFCL would (a value Python
// builds is a call that fails the checker; a nesting Python's parser
// refuses is a decode failure) with less than 1 GB allocated.
func TestBombsAreBounded(t *testing.T) {
	fn, _ := ParseJSON([]byte(triangleFn))
	ans, _ := ParseJSON([]byte(triangleAnswer))
	// 2**10**10 is an int Python builds (in minutes): not built here, the
	// call decodes and fails the checker, as a string bomb does.
	built := map[string]bool{"str10e10": true, "nested": true, "list10e9": true, "ab10e8": true, "format": true, "sum": true, "many": true, "pow": true}
	for _, v := range []Version{V2, V4} {
		for name, text := range bombs {
			for _, cat := range []string{"simple", "irrelevance"} {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				verdict := Checker{Version: v}.Evaluate(cat, false, fn, ans, text)
				runtime.ReadMemStats(&after)
				alloc := after.TotalAlloc - before.TotalAlloc
				if alloc > 1<<30 {
					t.Errorf("v%d %s %s: %d MB allocated", v, name, cat, alloc>>20)
				}
				want := "ast_decoder:decoder_failed"
				switch {
				case cat == "irrelevance" && built[name] && v == V2:
					want = "relevance_error:decoder_success"
				case cat == "irrelevance" && built[name]:
					want = "irrelevance_error:decoder_success"
				case cat == "irrelevance":
					want = ""
				case built[name]:
					want = "value_error:too_large"
				}
				if verdict.ErrorType != want || verdict.Valid != (want == "") {
					t.Errorf("v%d %s %s: valid=%v %s, want %q (%.200s)", v, name, cat, verdict.Valid, verdict.ErrorType, want, fmtErrors(verdict))
				}
			}
		}
	}
}

// TestDepthLimitsFollowPython pins the depths Python 3.11 decodes with
// BFCL's ast_parse (measured: ast.parse refuses an expression 2,988 levels
// deep, ast.unparse a BinOp 330 levels deep, json.loads 995 nested arrays).
func TestDepthLimitsFollowPython(t *testing.T) {
	ok := func(s string) bool { _, err := DecodePrompt(V4, s); return err == nil }
	for _, c := range []struct {
		name string
		mk   func(n int) string
		max  int
	}{
		// a call without keywords, a subscript and a BinOp go through
		// ast.unparse: Python decodes 326, 329 and 329 levels
		{"calls", func(n int) string { return "f(a=g(x=1)" + strings.Repeat("()", n) + ")" }, 326},
		{"subscripts", func(n int) string { return "f(a=b" + strings.Repeat("[0]", n) + ")" }, 329},
		{"binop", func(n int) string { return "f(a=" + strings.Repeat("1+", n-1) + "1)" }, 329},
		// calls with keywords are resolved, not unparsed: ast.parse's
		// limit (Python decodes 2,975 levels here; pocketeval 2,980)
		{"kwcalls", func(n int) string { return "f(a=g(x=1)" + strings.Repeat("(y=1)", n) + ")" }, 2980},
	} {
		if !ok(c.mk(c.max)) || ok(c.mk(c.max+1)) {
			t.Errorf("%s: want %d levels decoded and %d refused", c.name, c.max, c.max+1)
		}
	}
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	if _, err := ParseJSON([]byte(deep(990))); err != nil {
		t.Errorf("990 nested arrays: %v", err)
	}
	if _, err := ParseJSON([]byte(deep(995))); err == nil {
		t.Error("995 nested arrays decoded; json.loads raises RecursionError")
	}
}

// TestFCArgumentsNestedDeep: FC arguments nested 100,000 deep are a decode
// failure (json.loads: RecursionError), found at once.
func TestFCArgumentsNestedDeep(t *testing.T) {
	args := `{"number": ` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + "}"
	call := &Dict{}
	call.Set("f", args)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	v := Checker{Version: V4}.Evaluate("simple_python", true, nil, nil, []any{call})
	runtime.ReadMemStats(&after)
	if v.ErrorType != "ast_decoder:decoder_failed" || !strings.Contains(fmtErrors(v), "maximum recursion depth") {
		t.Errorf("got %s %v", v.ErrorType, v.Errors)
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 64<<20 {
		t.Errorf("%d MB allocated", a>>20)
	}
}

func fmtErrors(v Verdict) string {
	var b strings.Builder
	for _, e := range v.Errors {
		if s, ok := e.(string); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}

// FuzzDecode: no answer, prompt-mode or function-calling, panics the
// decoder or the checker, or builds more than the budget.
func FuzzDecode(f *testing.F) {
	for _, s := range bombs {
		if len(s) < 4096 {
			f.Add(s)
		}
	}
	for _, s := range []string{"[f(a=1)]", "\n\nmath.hypot(x=4, y=5)", "```[f(a='x'*3, b=[1]*2+[3])]```", "f(a=(1,)*3, b=-2**3, c={'k': [None]})", `{"a": [1, {"b": "c"}]}`, "[f(a='%s'%'x')]", "[f(a=1)(b=2)]"} {
		f.Add(s)
	}
	fn, _ := ParseJSON([]byte(triangleFn))
	ans, _ := ParseJSON([]byte(triangleAnswer))
	f.Fuzz(func(t *testing.T, s string) {
		for _, v := range []Version{V2, V4} {
			out, _ := DecodePrompt(v, s)
			for _, x := range out {
				if w := built(x); w > 2*MaxBuilt {
					t.Fatalf("decoded %d items", w)
				}
			}
			Checker{Version: v}.Evaluate("simple", false, fn, ans, s)
			Checker{Version: v}.Evaluate("irrelevance", false, fn, ans, s)
			call := &Dict{}
			call.Set("calculate_triangle_area", s)
			Checker{Version: v}.Evaluate("simple", true, fn, ans, []any{call})
		}
	})
}

// built counts what a decoded value holds (an Oversized holds nothing).
func built(v any) int {
	switch x := v.(type) {
	case string:
		return len(x)
	case []any:
		n := len(x)
		for _, e := range x {
			if n > 2*MaxBuilt {
				break
			}
			n += built(e)
		}
		return n
	case Tuple:
		return built([]any(x))
	case *Dict:
		return built(x.Keys()) + built(x.Values())
	}
	return 1
}

// TestLongAnswersFail: an answer past MaxAnswer is not decoded and fails
// in every category, relevance ones included.
func TestLongAnswersFail(t *testing.T) {
	long := "[" + strings.Repeat("f(a=1),", MaxAnswer/7+1) + "]"
	call := &Dict{}
	call.Set("f", `{"a": "`+strings.Repeat("x", MaxAnswer)+`"}`)
	for _, c := range []struct {
		v        Version
		category string
		fc       bool
		result   any
		want     string
	}{
		{V4, "simple_python", false, long, "ast_decoder:too_large"},
		{V4, "irrelevance", false, long, "irrelevance_error:too_large"},
		{V4, "live_relevance", false, long, "relevance_error:too_large"},
		{V2, "relevance", false, long, "relevance_error:too_large"},
		{V4, "simple_python", true, []any{call}, "ast_decoder:too_large"},
		{V4, "live_irrelevance", true, []any{call}, "irrelevance_error:too_large"},
	} {
		v := Checker{Version: c.v}.Evaluate(c.category, c.fc, nil, nil, c.result)
		if v.Valid || v.ErrorType != c.want {
			t.Errorf("v%d %s: %+v, want %s", c.v, c.category, v.ErrorType, c.want)
		}
	}
}
