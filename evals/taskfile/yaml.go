package taskfile

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/evals/taskfile/internal/pyvalue"
	"github.com/pocketeval/pocketeval/internal/lazyre"
	"github.com/pocketeval/pocketeval/internal/regfile"
	"github.com/pocketeval/pocketeval/internal/yamlwalk"
)

// Error is a problem in a task file: the file, the 1-based line (0 when
// unknown) and the key it concerns (yamlwalk's, the one error of
// pocketeval's YAML files).
type Error = yamlwalk.Error

// ErrUnsupported is wrapped by errors about lm-eval features pocketeval
// refuses (Python hooks, process_docs, ...).
var ErrUnsupported = errors.New("not supported by pocketeval")

// value is one key's value node and where it was written.
type value struct {
	node *yaml.Node
	file string
}

func (v value) errorf(field, format string, args ...any) error {
	return &Error{File: v.file, Line: v.node.Line, Field: field, Err: fmt.Errorf(format, args...)}
}

func (v value) wrap(field string, err error) error {
	return &Error{File: v.file, Line: v.node.Line, Field: field, Err: err}
}

// entry is one key of a mapping value, with its dotted field name
// ("generation_kwargs.until") for errors.
type entry struct {
	key   string
	v     value
	field string
}

// entries returns the keys of the mapping value of key, in file order.
func (v value) entries(key string) ([]entry, error) {
	if v.node.Kind != yaml.MappingNode {
		return nil, v.errorf(key, "want a mapping")
	}
	out := make([]entry, 0, len(v.node.Content)/2)
	for i := 0; i+1 < len(v.node.Content); i += 2 {
		k := v.node.Content[i].Value
		out = append(out, entry{key: k, v: value{node: v.node.Content[i+1], file: v.file}, field: key + "." + k})
	}
	return out, nil
}

// readYAML loads one file with its includes.
func readYAML(path string, seen map[string]bool) (map[string]value, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if seen[abs] {
		return nil, &Error{File: path, Field: "include", Err: errors.New("include cycle")}
	}
	seen[abs] = true
	defer delete(seen, abs)
	root, err := readRoot(path)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, &Error{File: path, Line: 1, Err: errors.New("a task file is a YAML mapping of keys to values")}
	}
	if err := refuseFunctions(path, "", root); err != nil {
		return nil, err
	}
	own := map[string]value{}
	w := yamlwalk.Walker{File: path, Repeated: func(int) string { return "key given twice" }}
	if err := w.Mapping(root, "", func(key string, _, v *yaml.Node) error {
		own[key] = value{node: v, file: path}
		return nil
	}); err != nil {
		return nil, err
	}
	inc, ok := own["include"]
	if !ok {
		return own, nil
	}
	delete(own, "include")
	var names []string
	switch inc.node.Kind {
	case yaml.ScalarNode:
		names = []string{inc.node.Value}
	case yaml.SequenceNode:
		for _, n := range inc.node.Content {
			if n.Kind != yaml.ScalarNode {
				return nil, inc.errorf("include", "want a file name or a list of file names")
			}
			names = append(names, n.Value)
		}
	default:
		return nil, inc.errorf("include", "want a file name or a list of file names")
	}
	merged := map[string]value{}
	for _, name := range names {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(path), name)
		}
		sub, err := readYAML(p, seen)
		if err != nil {
			var fe *Error
			if errors.As(err, &fe) {
				return nil, err
			}
			return nil, inc.wrap("include", err)
		}
		delete(sub, "task_list")
		for k, v := range sub {
			merged[k] = v
		}
	}
	for k, v := range own {
		merged[k] = v
	}
	return merged, nil
}

// readRoot reads a YAML file's top-level mapping; nil when the document
// is something else.
func readRoot(path string) (*yaml.Node, error) {
	data, err := regfile.ReadFile(path, regfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("read task file: %w", err)
	}
	root, err := yamlwalk.Root(data)
	if err != nil {
		return nil, &Error{File: path, Err: err}
	}
	if root == nil || root.Kind != yaml.MappingNode {
		return nil, nil
	}
	return root, nil
}

// refuseFunctions rejects lm-eval's `!function module.fn` tags anywhere
// but the native hooks (hooks.go) under their key: the others name Python
// code pocketeval cannot run.
func refuseFunctions(file, key string, n *yaml.Node) error {
	if n.Tag == "!function" {
		_, err := nativeHook(file, key, n)
		return err
	}
	for i, c := range n.Content {
		k := key
		if n.Kind == yaml.MappingNode && i%2 == 1 {
			if k != "" {
				k += "."
			}
			k += n.Content[i-1].Value
		}
		if err := refuseFunctions(file, k, c); err != nil {
			return err
		}
	}
	return nil
}

// PyYAML's YAML 1.1 resolution of plain scalars, which lm-eval's loader
// uses: `yes`/`off` are booleans, `1e3` is a string, `012` is octal.
var (
	pyBool  = lazyre.New(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	pyInt   = lazyre.New(`^[-+]?(?:0b[0-1_]+|0[0-7_]+|(?:0|[1-9][0-9_]*)|0x[0-9a-fA-F_]+)$`)
	pyFloat = lazyre.New(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9_]+(?:[eE][-+][0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	pyNull  = lazyre.New(`^(?:~|null|Null|NULL|)$`)
)

// toValue converts a YAML node to a template value the way PyYAML would
// construct it.
func toValue(n *yaml.Node) (pyvalue.Value, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return toValue(n.Alias)
	case yaml.SequenceNode:
		items := make([]pyvalue.Value, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := toValue(c)
			if err != nil {
				return v, err
			}
			items = append(items, v)
		}
		return pyvalue.NewList(items), nil
	case yaml.MappingNode:
		d := pyvalue.NewDict()
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := toValue(n.Content[i+1])
			if err != nil {
				return v, err
			}
			d.AsDict().Set(n.Content[i].Value, v)
		}
		return d, nil
	case yaml.ScalarNode:
		return scalarValue(n), nil
	}
	return pyvalue.Undefined(), fmt.Errorf("unsupported YAML node")
}

func scalarValue(n *yaml.Node) pyvalue.Value {
	s := n.Value
	explicit := n.Tag != "" && n.Tag != "!" && n.Style&yaml.TaggedStyle != 0
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 || explicit && n.Tag == "!!str" {
		return pyvalue.NewString(s)
	}
	switch {
	case pyNull.MatchString(s):
		return pyvalue.None()
	case pyBool.MatchString(s):
		switch s[0] {
		case 'y', 'Y', 't', 'T':
			return pyvalue.NewBool(true)
		case 'o', 'O':
			return pyvalue.NewBool(strings.EqualFold(s, "on"))
		}
		return pyvalue.NewBool(false)
	case pyInt.MatchString(s):
		t := strings.ReplaceAll(s, "_", "")
		neg := strings.HasPrefix(t, "-")
		t = strings.TrimLeft(t, "+-")
		base := 10
		switch {
		case strings.HasPrefix(t, "0b"):
			base, t = 2, t[2:]
		case strings.HasPrefix(t, "0x"):
			base, t = 16, t[2:]
		case len(t) > 1 && t[0] == '0':
			base, t = 8, t[1:]
		}
		if i, err := strconv.ParseInt(t, base, 64); err == nil {
			if neg {
				i = -i
			}
			return pyvalue.NewInt(i)
		}
		return pyvalue.NewString(s)
	case pyFloat.MatchString(s):
		t := strings.ReplaceAll(s, "_", "")
		switch strings.ToLower(strings.TrimLeft(t, "+-")) {
		case ".inf":
			if strings.HasPrefix(t, "-") {
				return pyvalue.NewFloat(math.Inf(-1))
			}
			return pyvalue.NewFloat(math.Inf(1))
		case ".nan":
			return pyvalue.NewFloat(math.NaN())
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return pyvalue.NewFloat(f)
		}
	}
	return pyvalue.NewString(s)
}

// isString reports whether a scalar node is a string for PyYAML.
func isString(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && scalarValue(n).IsString()
}
