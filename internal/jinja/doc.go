// Package jinja is pocketeval's Jinja engine: jinja2 3.1's semantics in
// the sandboxed, non-autoescaping environment that chat templates
// (transformers) and task-file templates (lm-evaluation-harness, through
// evals/taskfile/internal/lmtemplate) render in. Values print and compare
// as Python's do; the meaning of Python literals, float and int
// arithmetic, float repr and JSON decoding are internal/pyval's, shared
// with scorers/bfcl and task files.
//
// Where each job lives:
//
//   - lex.go: expression tokens (tokenize) and the split of a template
//     into text, {{ }}, {% %} and comment segments (trim and lstrip
//     blocks, raw blocks).
//   - ast.go: the expression and statement nodes.
//   - parse.go: the statement parser (parseTemplate, {% %} tags);
//     parse_expr.go: the expression parser (precedence levels, calls,
//     subscripts, filters and tests).
//   - eval.go: Env, Template, Render, the Renderer with its limits
//     (steps, output, the budget of values built, the deadline and the
//     render's context, checked at each step), scopes, statements and
//     loops.
//   - expr.go: evaluating expressions: names, attributes, items, slices,
//     calls and their arguments.
//   - ops.go: operators: arithmetic (through pyval), +, *, comparison,
//     equality and membership.
//   - value.go: the value model (Markup, Undefined, Callable, Namespace;
//     Tuple and Dict are internal/pyval's), truthiness, type names, str()
//     and repr().
//   - builtins.go: the globals (range, dict, namespace, joiner, cycler)
//     and argument binding; the sandbox's unsafe-method refusal.
//   - filters.go: the filter registry and the filters on single values
//     and strings (default, escape, join, replace, int, round, indent,
//     truncate, format, …); filters_seq.go: filters over sequences and
//     dicts (batch, dictsort, sort, unique, min/max, sum, map,
//     select/reject, groupby).
//   - tests.go: the `is` tests.
//   - methods.go: the Python methods of str, list and dict values.
//   - json.go: tojson (transformers' json.dumps); fromjson.go: JSON in.
package jinja
