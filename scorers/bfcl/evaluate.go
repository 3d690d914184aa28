// Package bfcl scores function calls as the Berkeley Function Calling
// Leaderboard's AST checker does (ShishirPatil/gorilla,
// berkeley-function-call-leaderboard): the decoders of prompt-mode text
// ("[f(a=1)]", read as Python's ast reads it) and of function-calling
// results ({name: JSON arguments}), the checker's names, required and
// optional parameters, types (int accepted for float, nested types,
// tuples), string standardisation, possible-answer lists and order-free
// parallel matching, and the relevance/irrelevance rules, for both the
// August 2024 checker (V2) and the current one (V4). Verdicts carry BFCL's
// error_type strings.
//
// Where each job lives:
//
//   - evaluate.go: Evaluate, one entry's verdict.
//   - decode.go: the prompt-mode and function-calling decoders, and JSON
//     in (through internal/pyval, which decides what every Python
//     literal and JSON number means).
//   - pyparse.go: the expression grammar, over internal/pyval's Python
//     tokenizer (pyval.Tokenize), into a small AST; resolve.go: BFCL's
//     resolve_ast_* over it (constants, calls, operators through
//     internal/pyval's arithmetic).
//   - value.go: the decoded values (Tuple, Bytes and Dict are
//     internal/pyval's, as in internal/jinja), equality, type names and
//     repr.
//   - bound.go: the bounds on evaluation (value sizes, depth).
//   - checker.go: the AST checker (names, parameters, types, possible
//     answers, parallel matching).
//   - handlers.go, models.go: the model handlers' decoders and which
//     model uses which.
package bfcl

import (
	"errors"
	"fmt"
	"strings"
)

// Verdict is one entry's result, as a line of BFCL's score file.
type Verdict struct {
	Valid     bool   `json:"valid"`
	ErrorType string `json:"error_type,omitempty"`
	Errors    []any  `json:"error,omitempty"`
	// Decoded is the decoded calls, when decoding succeeded.
	Decoded []any `json:"-"`
}

// IsRelevance reports whether a BFCL category is scored by whether a call
// was made at all (V2's "relevance", V4's irrelevance, live_irrelevance and
// live_relevance).
func IsRelevance(category string) bool {
	return category == "relevance" || strings.Contains(category, "irrelevance") || category == "live_relevance"
}

// Evaluate scores one recorded result of a category: fc selects the
// function-calling decoder, else the prompt-mode one.
func (c Checker) Evaluate(category string, fc bool, functions, answer, result any) Verdict {
	decode := func() ([]any, error) {
		if c.Handler != nil {
			return c.Handler.Decode(c.Version, fc, result)
		}
		if fc {
			return DecodeFC(result)
		}
		return DecodePrompt(c.Version, result)
	}
	if n := answerSize(result); n > MaxAnswer {
		msg := fmt.Sprintf("The answer is longer than pocketeval decodes (%d bytes, more than %d): it counts as a failure.", n, MaxAnswer)
		switch {
		case !IsRelevance(category):
			return Verdict{ErrorType: "ast_decoder:too_large", Errors: []any{msg}}
		case category == "live_relevance":
			return Verdict{ErrorType: "relevance_error:too_large", Errors: []any{msg}}
		case c.Version == V2:
			return Verdict{ErrorType: "relevance_error:too_large", Errors: []any{msg}}
		}
		return Verdict{ErrorType: "irrelevance_error:too_large", Errors: []any{msg}}
	}
	if IsRelevance(category) {
		decoded, err := decode()
		if tooLarge(err) {
			err = nil // decoded: Python builds the value
		}
		called := err == nil && !IsEmpty(decoded)
		switch {
		case category == "live_relevance":
			if !called {
				msg := "Invalid syntax. Failed to decode AST when it should have. "
				if err != nil {
					msg += err.Error()
				}
				return Verdict{ErrorType: "relevance_error:decoder_failed", Errors: []any{msg}, Decoded: decoded}
			}
		case called && c.Version == V2:
			return Verdict{ErrorType: "relevance_error:decoder_success", Errors: []any{"Valid syntax. Successfully decode AST when it should not."}, Decoded: decoded}
		case called:
			return Verdict{ErrorType: "irrelevance_error:decoder_success", Errors: []any{"Valid syntax. Successfully decode AST when it should not."}, Decoded: decoded}
		}
		return Verdict{Valid: true, Decoded: decoded}
	}
	decoded, err := decode()
	if tooLarge(err) {
		return Verdict{ErrorType: "value_error:too_large", Errors: []any{"Invalid value: " + err.Error() + "."}, Decoded: decoded}
	}
	if err != nil {
		return Verdict{ErrorType: "ast_decoder:decoder_failed", Errors: []any{"Invalid syntax. Failed to decode AST. " + err.Error()}}
	}
	if !IsCallList(decoded) {
		return Verdict{ErrorType: "ast_decoder:decoder_wrong_output_format", Errors: []any{"Did not output in the specified format. Note: the model_result is wrapped in a string to ensure json serializability."}, Decoded: decoded}
	}
	r := c.AST(category, functions, decoded, answer)
	return Verdict{Valid: r.Valid, ErrorType: errType(r), Errors: r.Errors, Decoded: decoded}
}

func errType(r Result) string {
	if r.Valid {
		return ""
	}
	return r.ErrorType
}

func tooLarge(err error) bool {
	var e *TooLargeError
	return errors.As(err, &e)
}
