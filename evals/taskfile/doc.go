// Package taskfile runs tasks described in YAML files, without Go code:
// lm-evaluation-harness task files unchanged (the subset its common tasks
// use) and pocketeval's app tasks (intent, extraction, rewriting,
// candidate ranking) with their scorers.
//
// A task file names its data (dataset_path: a local JSONL/JSON/CSV/TSV
// file or directory, dataset_kwargs.data_files, or a Hugging Face dataset
// id looked up under the data directory; dataset_sha256 pins the files),
// its prompt (doc_to_text, doc_to_target, doc_to_choice, description:
// Jinja rendered as lm-eval renders it, see internal/lmtemplate), its
// output type (generate_until, or multiple_choice scored by the
// log-likelihood of each choice or generatively with the option
// extracted), few-shot settings, generation kwargs, filters and metrics.
//
// Prompts are lm-eval's byte for byte: Load reproduces doc_to_text,
// doc_to_target, doc_to_choice, fewshot_context and the default and
// first_n samplers, drawing examples with CPython's random.Random(seed)
// stream in document order (evals/fewshot). testdata/lmeval holds
// renders produced by lm-eval's own code for real task files, and the
// tests require equality.
//
// Group files (lm-eval's `group` with a `task` list and
// aggregate_metric_list) expand with LoadGroup, as lm-eval's TaskFactory
// expands them: task files, group files and tags of the group file's
// directory, built-in tasks, overrides and inline subgroups. The runner
// aggregates the groups (runner.SummarizeGroups); testdata/lmeval/groups
// holds lm-eval's own results for real group files.
//
// What the package intentionally does not do: run Python (`!function`
// hooks, process_docs, process_results, custom datasets are refused with
// the key named, except the pure hooks of well-known lm-eval modules it
// implements natively, hooks.go), download datasets, or accept keys it
// does not know.
// Every refusal wraps ErrUnsupported; every error about a file is an
// *Error with file, line and key. See docs/tasks.md.
package taskfile
