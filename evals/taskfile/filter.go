package taskfile

import (
	"fmt"
	"strings"
	"unicode"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/scorers/pyre"
)

// FilterSet is one entry of filter_list: a named pipeline applied to the
// response before scoring. Metrics are reported per filter set.
type FilterSet struct {
	Name  string
	Steps []filterStep
}

type filterStep struct {
	function string
	re       *pyre.Regexp
	group    int
	fallback string
	mapping  map[string]string
	def      *string
}

// defaultFilterName is lm-eval's name for the implicit take_first
// pipeline; metrics of this set keep their plain names.
const defaultFilterName = "none"

func decodeFilters(raw map[string]value) ([]FilterSet, error) {
	v, ok := raw["filter_list"]
	if !ok {
		return []FilterSet{{Name: defaultFilterName, Steps: []filterStep{{function: "take_first"}}}}, nil
	}
	if v.node.Kind != yaml.SequenceNode || len(v.node.Content) == 0 {
		return nil, v.errorf("filter_list", "want a list of {name, filter} entries")
	}
	var sets []FilterSet
	names := map[string]bool{}
	for i, e := range v.node.Content {
		field := fmt.Sprintf("filter_list[%d]", i)
		ev := value{node: e, file: v.file}
		if e.Kind != yaml.MappingNode {
			return nil, ev.errorf(field, "want a mapping with name and filter")
		}
		var fs FilterSet
		var steps *yaml.Node
		for j := 0; j+1 < len(e.Content); j += 2 {
			switch e.Content[j].Value {
			case "name":
				fs.Name = e.Content[j+1].Value
			case "filter":
				steps = e.Content[j+1]
			default:
				return nil, ev.errorf(field+"."+e.Content[j].Value, "unknown key: %w", ErrUnsupported)
			}
		}
		if fs.Name == "" {
			return nil, ev.errorf(field+".name", "missing")
		}
		if names[fs.Name] {
			return nil, ev.errorf(field+".name", "%q is used twice", fs.Name)
		}
		names[fs.Name] = true
		if steps == nil || steps.Kind != yaml.SequenceNode {
			return nil, ev.errorf(field+".filter", "want a list of {function: ...} steps")
		}
		for k, s := range steps.Content {
			step, err := decodeFilterStep(value{node: s, file: v.file}, fmt.Sprintf("%s.filter[%d]", field, k))
			if err != nil {
				return nil, err
			}
			fs.Steps = append(fs.Steps, step)
		}
		sets = append(sets, fs)
	}
	return sets, nil
}

func decodeFilterStep(v value, field string) (filterStep, error) {
	if v.node.Kind != yaml.MappingNode {
		return filterStep{}, v.errorf(field, "want a mapping with a function")
	}
	args := map[string]*yaml.Node{}
	for j := 0; j+1 < len(v.node.Content); j += 2 {
		args[v.node.Content[j].Value] = v.node.Content[j+1]
	}
	fn, ok := args["function"]
	if !ok {
		return filterStep{}, v.errorf(field+".function", "missing")
	}
	s := filterStep{function: fn.Value}
	allowed := map[string]bool{"function": true}
	switch s.function {
	case "take_first", "lowercase", "uppercase", "remove_whitespace", "strip", "remove_thinking":
	case "regex":
		pattern := `#### (\-?[0-9\.\,]+)`
		s.fallback = "[invalid]"
		for k, n := range args {
			switch k {
			case "regex_pattern":
				pattern = n.Value
			case "group_select":
				x := scalarValue(n)
				if !x.IsInt() {
					return s, v.errorf(field+".group_select", "want an integer")
				}
				s.group = int(x.AsInt())
			case "fallback":
				s.fallback = n.Value
			}
		}
		allowed["regex_pattern"], allowed["group_select"], allowed["fallback"] = true, true, true
		re, err := pyre.Compile(pattern, 0)
		if err != nil {
			return s, v.errorf(field+".regex_pattern", "%v", err)
		}
		s.re = re
	case "map":
		allowed["mapping_dict"], allowed["default_value"] = true, true
		s.mapping = map[string]string{}
		if m, ok := args["mapping_dict"]; ok {
			x, err := toValue(m)
			if err != nil || !x.IsDict() {
				return s, v.errorf(field+".mapping_dict", "want a mapping")
			}
			for _, k := range x.AsDict().OrderedKeys() {
				val, _ := x.AsDict().Get(k)
				s.mapping[k] = pyvalue.Str(val)
			}
		}
		if d, ok := args["default_value"]; ok {
			x := scalarValue(d)
			str := pyvalue.Str(x)
			s.def = &str
		}
	default:
		return s, v.errorf(field+".function", "%q: %w (regex, take_first, lowercase, uppercase, remove_whitespace, strip, remove_thinking and map are)", s.function, ErrUnsupported)
	}
	for k := range args {
		if !allowed[k] {
			return s, v.errorf(field+"."+k, "unknown argument of %s: %w", s.function, ErrUnsupported)
		}
	}
	return s, nil
}

// Apply runs the pipeline on one response. fallback reports that a regex
// step found nothing and returned its fallback. err is a regex step that
// exceeded its time bound (pyre.ErrTimeout); the step then returns its
// fallback, so the sample scores as unanswered, and the caller records
// the error.
func (fs FilterSet) Apply(resp string) (out string, fallback bool, err error) {
	out = resp
	for _, s := range fs.Steps {
		switch s.function {
		case "take_first":
			// One response per sample: nothing to choose.
		case "lowercase":
			out = strings.ToLower(out)
		case "uppercase":
			out = strings.ToUpper(out)
		case "remove_whitespace", "strip":
			out = strings.TrimFunc(out, isPySpace)
		case "remove_thinking":
			out = evals.StripThinking(out)
		case "regex":
			var ok bool
			var ferr error
			out, ok, ferr = s.findall(out)
			fallback = fallback || !ok
			if ferr != nil && err == nil {
				err = ferr
			}
		case "map":
			if m, ok := s.mapping[out]; ok {
				out = m
			} else if s.def != nil {
				out = *s.def
			} else {
				out = "None"
			}
		}
	}
	return out, fallback, err
}

// findall is lm-eval's RegexFilter: re.findall, the group_select-th match
// (negative counts from the end), the first non-empty group of a
// multi-group match, stripped; the fallback when nothing (or no such
// match) is found.
func (s filterStep) findall(resp string) (string, bool, error) {
	all, err := s.re.FindAllStrings(resp)
	if err != nil {
		return s.fallback, false, err
	}
	if len(all) == 0 {
		return s.fallback, false, nil
	}
	i := s.group
	if i < 0 {
		i += len(all)
	}
	if i < 0 || i >= len(all) {
		return s.fallback, false, nil
	}
	m := all[i]
	got := m[0]
	if len(m) > 1 {
		found := false
		for _, g := range m {
			if g != "" {
				got, found = g, true
				break
			}
		}
		if !found {
			return s.fallback, false, nil
		}
	}
	return strings.TrimFunc(got, isPySpace), true, nil
}

// isPySpace is Python's str.isspace for one character.
func isPySpace(r rune) bool { return unicode.IsSpace(r) || r >= 0x1c && r <= 0x1f }
