package bfcl

import (
	"fmt"
	"strings"
)

// Version selects which BFCL release's checker a verdict follows.
type Version int

const (
	// V2 is the checker of August 2024 (gorilla commit 4a64db3, the
	// eval_checker/checker.py that scored the v2 data's published
	// results): multiple-function answers go through the order-free
	// parallel matcher, function descriptions are found by substring, and
	// nested dict values are checked recursively.
	V2 Version = 2
	// V4 is the current checker (bfcl_eval/eval_checker/ast_eval).
	V4 Version = 4
)

// Result is one checker verdict: BFCL's {"valid", "error", "error_type"}.
type Result struct {
	Valid     bool
	Errors    []any
	ErrorType string
}

func invalid(errType string, format string, a ...any) Result {
	return Result{ErrorType: errType, Errors: []any{fmt.Sprintf(format, a...)}}
}

var valid = Result{Valid: true}

var pythonType = map[string]string{"string": "str", "integer": "int", "float": "float", "boolean": "bool", "array": "list", "tuple": "list", "dict": "dict", "any": "str"}

// Checker scores decoded calls against BFCL's possible answers.
type Checker struct {
	Version Version
	// DotsReplaced: the function names were sent with "." replaced by "_"
	// (BFCL's underscore_to_dot models: OpenAI-style APIs whose names must
	// match ^[a-zA-Z0-9_-]+$), so expected names are compared so converted
	// (BFCL's convert_func_name).
	DotsReplaced bool
	// Handler decodes the results (nil: the tasks' default decoders,
	// BFCL's OpenAI and base OSS handlers).
	Handler *Handler
}

func (c Checker) funcName(name string) string {
	if c.DotsReplaced && strings.Contains(name, ".") {
		return strings.ReplaceAll(name, ".", "_")
	}
	return name
}

// AST is BFCL's ast_checker: category is BFCL's test category
// ("simple", "multiple_function", ... for V2; "simple_python", "multiple",
// "live_parallel", ... for V4), functions the entry's "function" field,
// output the decoded calls ([{name: {param: value}}]) and answer the
// entry's "ground_truth".
func (c Checker) AST(category string, functions any, output []any, answer any) Result {
	if c.Version == V2 {
		if strings.Contains(category, "multiple") || strings.Contains(category, "parallel") {
			if category == "parallel_function" {
				functions = []any{functions}
			}
			return c.parallelNoOrder(functions, output, answer)
		}
		if len(output) != 1 {
			return invalid("simple_function_checker:wrong_count", "Wrong number of functions.")
		}
		fd, _ := functions.(*Dict)
		return c.simple(fd, output[0], answer)
	}
	switch {
	case strings.Contains(category, "parallel"):
		return c.parallelNoOrder(functions, output, answer)
	case strings.Contains(category, "multiple"):
		answers, _ := answer.([]any)
		if len(output) != len(answers) {
			return invalid("multiple_function_checker:wrong_count", "Wrong number of functions.")
		}
		name := firstKey(answers[0])
		fd := c.findDescription(functions, name)
		return c.simple(fd, output[0], answers[0])
	}
	if len(output) != 1 {
		return invalid("simple_function_checker:wrong_count", "Wrong number of functions.")
	}
	fds, _ := functions.([]any)
	answers, _ := answer.([]any)
	if len(fds) == 0 || len(answers) == 0 {
		return invalid("simple_function_checker:unclear", "The entry has no function or no possible answer.")
	}
	fd, _ := fds[0].(*Dict)
	return c.simple(fd, output[0], answers[0])
}

func firstKey(v any) string {
	if d, ok := v.(*Dict); ok && len(d.Keys()) > 0 {
		s, _ := d.Keys()[0].(string)
		return s
	}
	return ""
}

// findDescription: V2 takes the first description whose name is a
// substring of the answer's key (keys there carry suffixes such as
// "spotify.play_1"); V4 requires the exact name.
func (c Checker) findDescription(functions any, name string) *Dict {
	list, ok := functions.([]any)
	if !ok {
		d, _ := functions.(*Dict)
		return d
	}
	for _, f := range list {
		d, ok := f.(*Dict)
		if !ok {
			continue
		}
		n, _ := get(d, "name").(string)
		if c.Version == V2 && strings.Contains(name, n) || c.Version != V2 && n == name {
			return d
		}
	}
	return nil
}

func get(d *Dict, k string) any {
	if d == nil {
		return nil
	}
	v, _ := d.Get(k)
	return v
}

func (c Checker) parallelNoOrder(functions any, output []any, answer any) Result {
	var answers []*Dict // each {name: params}
	switch a := answer.(type) {
	case *Dict: // V2: one dict, keys suffixed
		for i, k := range a.Keys() {
			d := &Dict{}
			d.Set(k, a.Values()[i])
			answers = append(answers, d)
		}
	case []any:
		for _, x := range a {
			d, _ := x.(*Dict)
			answers = append(answers, d)
		}
	}
	prefix := "parallel_function_checker_no_order"
	if len(output) != len(answers) {
		return invalid(prefix+":wrong_count", "Wrong number of functions.")
	}
	matched := map[int]bool{}
	for i, want := range answers {
		name := firstKey(want)
		fd := c.findDescription(functions, name)
		if fd == nil {
			return invalid(prefix+":cannot_find_description", "Function doc description not found for function name: %s.", repr(name))
		}
		var all []any
		var res Result
		for index := range output {
			if matched[index] {
				continue
			}
			res = c.simple(fd, output[index], want)
			if res.Valid {
				matched[index] = true
				break
			}
			all = append(all, map[string]any{fmt.Sprintf("Model Result Index %d", index): map[string]any{
				"sub_error": res.Errors, "sub_error_type": res.ErrorType,
			}})
		}
		if !res.Valid {
			var considered []string
			for j := range output {
				if !matched[j] {
					considered = append(considered, fmt.Sprint(j))
				}
			}
			msg := fmt.Sprintf("Could not find a matching function among index [%s] of model output for index %d of possible answers.", strings.Join(considered, ", "), i)
			return Result{ErrorType: prefix + ":cannot_find_match", Errors: append([]any{msg}, all...)}
		}
	}
	return valid
}

// simple is BFCL's simple_function_checker.
func (c Checker) simple(fd *Dict, output any, answer any) Result {
	ans, _ := answer.(*Dict)
	if fd == nil || ans == nil || len(ans.Values()) == 0 {
		return invalid("simple_function_checker:unclear", "Function description or possible answer missing.")
	}
	possible, _ := ans.Values()[0].(*Dict)
	if possible == nil {
		possible = &Dict{}
	}
	params, _ := get(fd, "parameters").(*Dict)
	details, _ := get(params, "properties").(*Dict)
	if details == nil {
		details = &Dict{}
	}
	required, _ := get(params, "required").([]any)
	name, _ := get(fd, "name").(string)
	name = c.funcName(name)
	out, _ := output.(*Dict)
	if out == nil {
		return invalid("simple_function_checker:wrong_func_name", "Function name %s not found in model output.", repr(name))
	}
	mp, ok := out.Get(name)
	if !ok {
		return invalid("simple_function_checker:wrong_func_name", "Function name %s not found in model output.", repr(name))
	}
	modelParams, ok := mp.(*Dict)
	if !ok {
		return invalid("simple_function_checker:unclear", "The arguments of %s are not a dict.", repr(name))
	}
	for _, r := range required {
		if _, ok := modelParams.Get(r); !ok {
			return invalid("simple_function_checker:missing_required", "Missing required parameter: %s.", repr(r))
		}
	}
	for i, param := range modelParams.Keys() {
		value := modelParams.Values()[i]
		detail, inDetails := details.Get(param)
		answers, inAnswers := possible.Get(param)
		if !inDetails || !inAnswers {
			return invalid("simple_function_checker:unexpected_param", "Unexpected parameter: %s.", repr(param))
		}
		pd, _ := detail.(*Dict)
		typeDesc, _ := get(pd, "type").(string)
		conv := pythonType[typeDesc]
		nested := ""
		if typeDesc == "array" || typeDesc == "tuple" {
			if items, ok := get(pd, "items").(*Dict); ok {
				t, _ := get(items, "type").(string)
				nested = pythonType[t]
			}
		}
		if t, ok := value.(Tuple); ok && typeDesc == "tuple" {
			value = []any(t)
		}
		if n, ok := value.(int64); ok && typeDesc == "float" {
			value = float64(n)
		} else if isBigInt(value) && typeDesc == "float" {
			value = real(toComplex(value)) // float(n); past the float range +-inf
		}
		pa, _ := answers.([]any)
		tc, isVariable := typeCheck(param, value, pa, typeDesc, conv, nested)
		if !tc.Valid {
			return tc
		}
		if !isVariable {
			var r Result
			handled := true
			switch {
			case conv == "dict":
				r = c.dictCheck(value, pa)
			case conv == "list" && nested == "dict":
				r = c.listDictCheck(value, pa)
			case conv == "str":
				r = stringCheck(param, value, pa)
			case conv == "list":
				r = listCheck(param, value, pa)
			default:
				handled = false
			}
			if handled {
				if !r.Valid {
					return r
				}
				continue
			}
		}
		if !pyIn(value, pa) {
			return invalid("value_error:others", "Invalid value for parameter %s: %s. Expected one of %s.", repr(param), repr(value), repr(pa))
		}
	}
	for i, param := range possible.Keys() {
		if _, ok := modelParams.Get(param); ok {
			continue
		}
		pa, _ := possible.Values()[i].([]any)
		if !pyIn("", pa) {
			return invalid("simple_function_checker:missing_optional", "Optional parameter %s not provided and not marked as optional.", repr(param))
		}
	}
	return valid
}

func possibleAnswerType(answers []any) string {
	for _, a := range answers {
		if s, ok := a.(string); !ok || s != "" {
			return pyType(a)
		}
	}
	return ""
}

// typeCheck is BFCL's type_checker; it returns the verdict and is_variable.
func typeCheck(param, value any, answers []any, typeDesc, conv, nested string) (Result, bool) {
	isVariable := false
	pat := possibleAnswerType(answers)
	if pat != "" && pat != conv {
		isVariable = true
	}
	var res Result
	if pyType(value) == conv {
		if nested == "" {
			return valid, isVariable
		}
		items, _ := value.([]any)
		for _, pai := range answers {
			flag := true
			if list, ok := pai.([]any); ok {
				for _, it := range items {
					if r, _ := typeCheck(param, it, list, "<class '"+nested+"'>", nested, ""); !r.Valid {
						flag = false
						break
					}
				}
			}
			if flag {
				return valid, isVariable
			}
		}
		res = invalid("type_error:nested", "Nested type checking failed for parameter %s. Expected outer type %s with inner type <class '%s'>. Parameter value: %s.", repr(param), typeDesc, nested, repr(value))
	} else {
		res = Result{Valid: true, ErrorType: "type_error:simple"}
	}
	if pat != "" && pyType(value) == pat {
		return res, true
	}
	res.Valid = false
	res.Errors = append(res.Errors, fmt.Sprintf("Incorrect type for parameter %s. Expected type %s, got %s. Parameter value: %s.", repr(param), typeDesc, pyType(value), repr(value)))
	res.ErrorType = "type_error:simple"
	return res, isVariable
}

// standardize is BFCL's standardize_string: re.sub(r"[ \,\.\/\-\_\*\^]",
// "", s).lower().replace("'", '"').
func standardize(s string) string {
	if strings.IndexAny(s, " ,./-_*^") >= 0 {
		b := make([]byte, 0, len(s))
		for i := 0; i < len(s); i++ {
			switch c := s[i]; c {
			case ' ', ',', '.', '/', '-', '_', '*', '^':
			default:
				b = append(b, c)
			}
		}
		s = string(b)
	}
	return strings.ReplaceAll(strings.ToLower(s), "'", `"`)
}

// lower is Python's str.lower for the standardised comparison.
func stringCheck(param, value any, answers []any) Result {
	s, _ := value.(string)
	out := standardize(s)
	var std []any
	for _, a := range answers {
		if as, ok := a.(string); ok {
			std = append(std, standardize(as))
		}
	}
	if !pyIn(out, std) {
		return invalid("value_error:string", "Invalid value for parameter %s: %s. Expected one of %s. Case insensitive.", repr(param), repr(value), repr(answers))
	}
	return valid
}

func standardizeItems(v any) []any {
	var items []any
	switch x := v.(type) {
	case []any:
		items = x
	case Tuple:
		items = x
	case string:
		for _, r := range x {
			items = append(items, string(r))
		}
	}
	out := make([]any, len(items))
	for i, it := range items {
		if s, ok := it.(string); ok {
			out[i] = standardize(s)
		} else {
			out[i] = it
		}
	}
	return out
}

func listCheck(param, value any, answers []any) Result {
	out := standardizeItems(value)
	std := make([]any, len(answers))
	for i, a := range answers {
		std[i] = standardizeItems(a)
	}
	if !pyIn(out, std) {
		return invalid("value_error:list/tuple", "Invalid value for parameter %s: %s. Expected one of %s.", repr(param), repr(value), repr(answers))
	}
	return valid
}

func standardizeValue(v any) any {
	if s, ok := v.(string); ok {
		return standardize(s)
	}
	return v
}

// dictCheck is BFCL's dict_checker (V2: parameter count and nested dicts
// checked; V4: missing required keys checked).
func (c Checker) dictCheck(value any, answers []any) Result {
	out, _ := value.(*Dict)
	if out == nil {
		out = &Dict{}
	}
	res := Result{ErrorType: "dict_checker:unclear"}
	for _, a := range answers {
		if s, ok := a.(string); ok && s == "" {
			continue
		}
		res = Result{ErrorType: "dict_checker:unclear"}
		want, _ := a.(*Dict)
		if want == nil {
			want = &Dict{}
		}
		flag := true
		if c.Version == V2 && len(out.Keys()) != len(want.Keys()) {
			res.Errors = append(res.Errors, "Wrong number of parameters for dictionary.")
			res.ErrorType = "value_error:dict_items"
			continue
		}
		for i, k := range out.Keys() {
			v := out.Values()[i]
			exp, ok := want.Get(k)
			if !ok {
				if c.Version == V2 {
					res.Errors = append(res.Errors, fmt.Sprintf("Unexpected parameter: '%v'.", k))
				} else {
					res.Errors = append(res.Errors, fmt.Sprintf("Unexpected dict key parameter: '%v'.", k))
				}
				res.ErrorType = "value_error:dict_key"
				flag = false
				break
			}
			if ed, isDict := exp.(*Dict); isDict && c.Version == V2 {
				res = c.dictCheck(v, []any{ed})
				if !res.Valid {
					flag = false
					break
				}
				continue
			}
			std := standardizeItems(exp)
			if !pyIn(standardizeValue(v), std) {
				res.Errors = append(res.Errors, fmt.Sprintf("Invalid value for parameter %s: %s. Expected one of %s.", repr(k), repr(v), repr(std)))
				res.ErrorType = "value_error:dict_value"
				flag = false
				break
			}
		}
		if flag && c.Version != V2 {
			for i, k := range want.Keys() {
				if _, ok := out.Get(k); ok {
					continue
				}
				pa, _ := want.Values()[i].([]any)
				if !pyIn("", pa) {
					res.Errors = append(res.Errors, fmt.Sprintf("Missing dict key parameter: '%v'.", k))
					res.ErrorType = "value_error:dict_key"
					flag = false
					break
				}
			}
		}
		if flag {
			return valid
		}
	}
	return res
}

// listDictCheck is BFCL's list_dict_checker: the dicts in order.
func (c Checker) listDictCheck(value any, answers []any) Result {
	out, _ := value.([]any)
	res := Result{ErrorType: "list_dict_checker:unclear"}
	for _, a := range answers {
		want := standardizeItemsRaw(a)
		if len(out) != len(want) {
			res = invalid("value_error:list_dict_count", "Wrong number of dictionaries in the list.")
			continue
		}
		flag := true
		for i := range out {
			res = c.dictCheck(out[i], []any{want[i]})
			if !res.Valid {
				flag = false
				break
			}
		}
		if flag {
			return valid
		}
	}
	return res
}

// standardizeItemsRaw returns the items of a list answer (len() of a
// string answer counts its characters, as Python's would).
func standardizeItemsRaw(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case string:
		out := make([]any, 0, len(x))
		for _, r := range x {
			out = append(out, string(r))
		}
		return out
	}
	return nil
}
