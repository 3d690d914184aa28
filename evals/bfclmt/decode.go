package bfclmt

import (
	"errors"
	"fmt"
	"strings"

	scorer "github.com/pocketeval/pocketeval/scorers/bfcl"
)

// decodeExecute is BFCL's decode_execute of one step's response, for the
// OpenAI-style handlers (openai_completion.py): in prompt mode
// default_decode_execute_prompting (the text decoded as the single-turn
// prompt decoder does, then decoded_output_to_execution_list), in
// function-calling mode convert_to_function_call. step is the step as
// BFCL's result file holds it: a string, or a list of {name: arguments}
// (arguments a JSON string or an object). A step that fails is an error,
// as BFCL's raise is.
func decodeExecute(fc bool, step any) ([]string, error) {
	if fc {
		return convertToFunctionCall(step)
	}
	decoded, err := scorer.DecodePrompt(scorer.V4, step)
	if err != nil {
		return nil, err
	}
	return executionList(decoded)
}

// executionList is BFCL's decoded_output_to_execution_list.
func executionList(decoded []any) ([]string, error) {
	var out []string
	for _, c := range decoded {
		d, ok := c.(*scorer.Dict)
		if !ok {
			return nil, fmt.Errorf("a decoded call is a %T, not a dict", c)
		}
		for _, k := range d.Keys() {
			v, _ := d.Get(k)
			args, ok := v.(*scorer.Dict)
			if !ok {
				return nil, fmt.Errorf("the arguments of %v are not a dict", k)
			}
			parts := make([]string, 0, len(args.Keys()))
			for _, a := range args.Keys() {
				av, _ := args.Get(a)
				s, err := nestedValue(av)
				if err != nil {
					return nil, err
				}
				parts = append(parts, str(a)+"="+s)
			}
			out = append(out, str(k)+"("+strings.Join(parts, ", ")+")")
		}
	}
	return out, nil
}

// nestedValue is BFCL's parse_nested_value: a dict whose values are all
// dicts is a nested call ("f(a=1)"; an empty dict raises IndexError there),
// another dict "{'k': v}", anything else repr.
func nestedValue(v any) (string, error) {
	d, ok := v.(*scorer.Dict)
	if !ok {
		return scorer.Repr(v), nil
	}
	allDicts := true
	for _, k := range d.Keys() {
		x, _ := d.Get(k)
		if _, ok := x.(*scorer.Dict); !ok {
			allDicts = false
			break
		}
	}
	if allDicts {
		keys := d.Keys()
		if len(keys) == 0 {
			return "", errors.New("IndexError: list index out of range")
		}
		x, _ := d.Get(keys[0])
		args := x.(*scorer.Dict)
		parts := make([]string, 0, len(args.Keys()))
		for _, a := range args.Keys() {
			av, _ := args.Get(a)
			s, err := nestedValue(av)
			if err != nil {
				return "", err
			}
			parts = append(parts, str(a)+"="+s)
		}
		return str(keys[0]) + "(" + strings.Join(parts, ", ") + ")", nil
	}
	parts := make([]string, 0, len(d.Keys()))
	for _, k := range d.Keys() {
		x, _ := d.Get(k)
		s, err := nestedValue(x)
		if err != nil {
			return "", err
		}
		parts = append(parts, "'"+str(k)+"': "+s)
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}

// convertToFunctionCall is BFCL's convert_to_function_call: each
// {name: arguments} becomes "name(k=repr(v),...)", arguments given as a
// string parsed by json.loads first. A string step (the model answered
// in text) has no items: BFCL's call raises.
func convertToFunctionCall(step any) ([]string, error) {
	if d, ok := step.(*scorer.Dict); ok {
		step = []any{d}
	}
	list, ok := step.([]any)
	if !ok {
		return nil, fmt.Errorf("AttributeError: a %T step has no items", step)
	}
	var out []string
	for _, c := range list {
		d, ok := c.(*scorer.Dict)
		if !ok {
			return nil, fmt.Errorf("AttributeError: a %T call has no items", c)
		}
		for _, k := range d.Keys() {
			v, _ := d.Get(k)
			if s, ok := v.(string); ok {
				p, err := scorer.ParseJSON([]byte(s))
				if err != nil {
					return nil, fmt.Errorf("json.loads: %w", err)
				}
				v = p
			}
			args, ok := v.(*scorer.Dict)
			if !ok {
				return nil, fmt.Errorf("AttributeError: the arguments of %s are a %T", str(k), v)
			}
			parts := make([]string, 0, len(args.Keys()))
			for _, a := range args.Keys() {
				av, _ := args.Get(a)
				parts = append(parts, str(a)+"="+scorer.Repr(av))
			}
			out = append(out, str(k)+"("+strings.Join(parts, ",")+")")
		}
	}
	return out, nil
}

// str is Python's str of a dict key as an f-string writes it.
func str(k any) string {
	if s, ok := k.(string); ok {
		return s
	}
	return scorer.Repr(k)
}
