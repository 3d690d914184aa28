package chattemplate

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pocketeval/pocketeval/internal/jinja"
)

// Template is a compiled template. It is safe for concurrent use.
type Template struct {
	src string
	t   *jinja.Template
	sum string
}

// Parse compiles a template. Like Jinja, it normalises the source's line
// endings to "\n" and drops a single trailing newline.
func Parse(src string) (*Template, error) { return ParseFile("", src) }

// ParseFile is Parse for a template read from a file: errors name the
// file and line.
func ParseFile(name, src string) (*Template, error) {
	norm := strings.ReplaceAll(src, "\r\n", "\n")
	norm = strings.ReplaceAll(norm, "\r", "\n")
	norm = strings.TrimSuffix(norm, "\n")
	if name == "" {
		name = "chat template"
	}
	t, err := jinja.Compile(name, norm)
	if err != nil {
		return nil, fmt.Errorf("parse chat template: %w", err)
	}
	return &Template{src: src, t: t, sum: SHA256(src)}, nil
}

// Render compiles src and renders it once with vars (see Template.Render).
func Render(src string, vars map[string]any) (string, error) {
	t, err := Parse(src)
	if err != nil {
		return "", err
	}
	return t.Render(vars)
}

// Source returns the template text as given to Parse.
func (t *Template) Source() string { return t.src }

// SHA256 returns the hex sha256 of the template text as given to Parse.
func (t *Template) SHA256() string { return t.sum }

// UsesThinking reports whether the template reads enable_thinking, i.e.
// whether thinking can be switched on or off through it.
func (t *Template) UsesThinking() bool { return strings.Contains(t.src, "enable_thinking") }

// UsesDate reports whether the template calls strftime_now, so that its
// output depends on the date.
func (t *Template) UsesDate() bool { return strings.Contains(t.src, "strftime_now") }

// Render renders the template with vars. Go values map to Jinja values:
// nil is None, maps are dicts (keys sorted), slices are lists, numbers,
// strings and booleans are themselves. The globals raise_exception and
// strftime_now (the current local time; set vars["strftime_now"] to a
// time.Time to pin it) are defined unless vars overrides them. The
// render runs under jinja.DefaultLimits (Python's sandbox range cap,
// bounded output, loop steps and time).
func (t *Template) Render(vars map[string]any) (string, error) {
	return t.RenderContext(context.Background(), vars)
}

// RenderContext is Render, stopped when ctx is done.
func (t *Template) RenderContext(ctx context.Context, vars map[string]any) (string, error) {
	now := time.Now()
	vals := make(map[string]any, len(vars)+2)
	for k, v := range vars {
		if k == "strftime_now" {
			if tm, ok := v.(time.Time); ok {
				now = tm
				continue
			}
		}
		vals[k] = toValue(v)
	}
	if _, ok := vals["raise_exception"]; !ok {
		vals["raise_exception"] = &jinja.Callable{Name: "raise_exception", Fn: raiseException}
	}
	if _, ok := vals["strftime_now"]; !ok {
		vals["strftime_now"] = &jinja.Callable{Name: "strftime_now", Fn: func(_ *jinja.Renderer, args []any, _ []jinja.Kwarg) (any, error) {
			f, ok := args0String(args)
			if !ok {
				return nil, errors.New("strftime_now: want one format string")
			}
			return Strftime(now, f)
		}}
	}
	out, err := t.t.Render(ctx, vals, jinja.DefaultLimits)
	if err != nil {
		var te *TemplateError
		if errors.As(err, &te) {
			return "", te
		}
		return "", fmt.Errorf("render chat template: %w", err)
	}
	return out, nil
}

func args0String(args []any) (string, bool) {
	if len(args) != 1 {
		return "", false
	}
	s, ok := args[0].(string)
	return s, ok
}

// TemplateError is the error a template raises itself with
// raise_exception(message), e.g. Gemma's "System role not supported".
type TemplateError struct {
	Message string
}

func (e *TemplateError) Error() string { return "chat template: " + e.Message }

func raiseException(_ *jinja.Renderer, args []any, _ []jinja.Kwarg) (any, error) {
	if len(args) == 0 {
		return nil, &TemplateError{Message: "raise_exception called without a message"}
	}
	return nil, &TemplateError{Message: jinja.Str(args[0])}
}

// SHA256 returns the hex sha256 of a template text (as Template.SHA256
// does, for a text that may not parse).
func SHA256(src string) string {
	sum := sha256.Sum256([]byte(src))
	return hex.EncodeToString(sum[:])
}
