package bfcl

import (
	"encoding/json"

	scorer "github.com/pocketeval/pocketeval/scorers/bfcl"
)

// SystemPrompt is BFCL v4's default prompt-mode system prompt for funcs
// (BFCL's function documents as jinja values), the Python hint added to
// every description, as the single-turn tasks render it. The multi-turn
// tasks (evals/bfclmt) use it for their first turn.
func SystemPrompt(funcs any) (string, error) { return v4SystemPrompt(funcs) }

// WithHint returns funcs with BFCL v4's " Note that the provided function
// is in Python 3 syntax." added to every description.
func WithHint(funcs any) []any { return withHint(funcs) }

// Tools is BFCL's convert_to_tool of funcs as OpenAI tools; hint adds
// BFCL v4's Python hint to every description first.
func Tools(funcs any, hint bool) (json.RawMessage, error) {
	if hint {
		return openAITools(funcs, scorer.V4, false)
	}
	return openAITools(funcs, scorer.V2, false)
}
