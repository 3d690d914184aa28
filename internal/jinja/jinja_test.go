package jinja

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func render(t *testing.T, src string, lim Limits) (string, error) {
	t.Helper()
	tm, err := Compile("t.jinja", src)
	if err != nil {
		return "", err
	}
	return tm.Render(context.Background(), map[string]any{"xs": []any{int64(1), int64(2)}}, lim)
}

func TestLimitsEach(t *testing.T) {
	small := Limits{MaxRange: 100, MaxOutput: 1000, MaxSteps: 500, MaxBuilt: 20_000}
	for _, c := range []struct{ src, want string }{
		{"{% for i in range(101) %}{% endfor %}", "MAX_RANGE (100)"},
		{"{% for i in range(100) %}{% for j in range(100) %}{% endfor %}{% endfor %}", "more than 500 loop iterations"},
		{"{% macro f() %}{% endmacro %}{% for i in range(100) %}{{ f() }}{{ f() }}{{ f() }}{{ f() }}{{ f() }}{% endfor %}", "more than 500 loop iterations and calls"},
		{"{% for i in range(100) %}{{ 'abcdefghijk' }}{% endfor %}", "output larger than 1000 bytes"},
		{"{{ 'ab' * 100000 }}", "output larger than 1000 bytes"},
		{"{{ ('ab' * 400) ~ ('ab' * 400) }}", "output larger than 1000 bytes"},
		{"{% for i in range(100) %}{% set x = 'ab' * 400 %}{% endfor %}", "built more than 20000 bytes"},
		{"{% for i in range(100) %}{% set x = xs * 10 %}{% endfor %}", "built more than 20000 bytes"},
	} {
		_, err := render(t, "\n"+c.src, small)
		if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "t.jinja:2: ") {
			t.Errorf("%s: got %v, want a limit error with %q at t.jinja:2", c.src, err, c.want)
		}
	}
	// time: a loop far below the step limit, stopped by the deadline.
	_, err := render(t, "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", Limits{Timeout: time.Millisecond})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "render took longer") {
		t.Errorf("timeout: %v", err)
	}
	// cancellation
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tm, _ := Compile("t", "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}")
	if _, err := tm.Render(ctx, nil, Limits{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled render: %v", err)
	}
}

func TestSyntaxErrorNamesLine(t *testing.T) {
	for src, want := range map[string]string{
		"a\nb\n{% if x %}":       "t.jinja:3: unexpected end of template, expected 'endif'",
		"a\n{{ x + }}":           "t.jinja:2: unexpected end of tag",
		"{% for %}":              "t.jinja:1: expected a name",
		"a\n\n{% include 'x' %}": "t.jinja:3: unknown or unsupported tag 'include'",
		"a\n{{ 'unterminated }}": "t.jinja:2: ",
	} {
		_, err := Compile("t.jinja", src)
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", src, err, want)
		}
	}
}

func TestDeepNesting(t *testing.T) {
	_, err := Compile("t", "{{ "+strings.Repeat("(", 100000)+"1"+strings.Repeat(")", 100000)+" }}")
	if err == nil || !strings.Contains(err.Error(), "nested too deeply") {
		t.Errorf("deep parentheses: %v", err)
	}
	_, err = render(t, "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }}", Limits{})
	if !errors.Is(err, ErrLimit) || !strings.Contains(err.Error(), "recursion depth") {
		t.Errorf("unbounded recursion: %v", err)
	}
}
