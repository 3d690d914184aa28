// Package ifeval provides the verifiable-instruction checkers of IFEval
// (Zhou et al., 2023) and the official strict and loose evaluation, for
// English (reproducing google-research's instruction_following_eval
// verdicts) and for Chinese (IFEval-zh: the same 25 instruction types with
// Chinese-aware counting; see docs/ifeval-zh.md).
//
// A Checker is built once per (instruction, kwargs) and then judges
// responses; it is immutable and safe for concurrent use. Evaluate runs a
// prompt's checkers on a response strictly and on the eight loose variants.
//
// The package is deterministic: langdetect's random sampling, which the
// official scorer leaves unseeded, is reproduced for a given seed
// (Config.LangdetectSeed, default 0) by package langdetect; where the
// official code draws a random kwarg it cannot use, this package takes one
// documented decision instead. It intentionally does not generate
// instructions (the official build_description with missing kwargs picks
// random ones); a missing required kwarg is an error.
package ifeval

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pocketeval/pocketeval/scorers/textstats"
)

// Lang selects the language rules of the checkers.
type Lang int

const (
	// English is the official IFEval behaviour (the zero value).
	English Lang = iota
	// Chinese is pocketeval's IFEval-zh behaviour (docs/ifeval-zh.md).
	Chinese
)

func (l Lang) String() string {
	if l == Chinese {
		return "zh"
	}
	return "en"
}

// Checker judges whether a response follows one instruction.
type Checker interface {
	Check(response string) bool
}

// checkFunc adapts a function to Checker.
type checkFunc func(string) bool

func (f checkFunc) Check(s string) bool { return f(s) }

// KwargError reports a missing or malformed instruction argument.
type KwargError struct {
	Instruction string
	Kwarg       string
	Problem     string
}

func (e *KwargError) Error() string {
	return fmt.Sprintf("instruction %s: kwarg %q: %s", e.Instruction, e.Kwarg, e.Problem)
}

// UnknownInstructionError names an instruction id that is not one of the
// 25 IFEval instruction types.
type UnknownInstructionError struct{ ID string }

func (e *UnknownInstructionError) Error() string {
	return fmt.Sprintf("unknown IFEval instruction %q", e.ID)
}

// Config selects the rules of the checkers. The zero value is the official
// English IFEval with langdetect seed 0.
type Config struct {
	// Lang selects English (official) or Chinese (IFEval-zh) rules.
	Lang Lang
	// LangdetectSeed is the seed of langdetect's random sampling in the
	// language checks (language:response_language,
	// change_case:english_capital, change_case:english_lowercase):
	// verdicts equal those of the official scorer run with
	// langdetect.DetectorFactory.seed = LangdetectSeed (docs/ifeval.md).
	LangdetectSeed uint64
}

// builder constructs a checker from kwargs.
type builder func(id string, kw kwargs, cfg Config) (Checker, error)

// IDs returns the 25 instruction ids of the official registry, sorted.
func IDs() []string {
	ids := make([]string, 0, len(registry))
	for id := range registry {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Build returns the checker for one instruction. kw holds the instruction's
// kwargs as decoded from JSON (numbers as float64 or json.Number); null
// values count as absent.
func Build(id string, kw map[string]any, cfg Config) (Checker, error) {
	b, ok := registry[id]
	if !ok {
		return nil, &UnknownInstructionError{ID: id}
	}
	return b(id, kwargs(kw), cfg)
}

// Instruction is one instruction of a prompt: its id and kwargs.
type Instruction struct {
	ID     string
	Kwargs map[string]any
}

// Prompt is a compiled IFEval prompt: one checker per instruction, in the
// prompt's instruction order.
type Prompt struct {
	IDs      []string
	checkers []Checker
}

// Compile builds the checkers of a prompt's instructions.
func Compile(instructions []Instruction, cfg Config) (*Prompt, error) {
	p := &Prompt{}
	for i, in := range instructions {
		c, err := Build(in.ID, in.Kwargs, cfg)
		if err != nil {
			return nil, fmt.Errorf("instruction %d: %w", i, err)
		}
		p.IDs = append(p.IDs, in.ID)
		p.checkers = append(p.checkers, c)
	}
	return p, nil
}

// Result holds the per-instruction verdicts on one response, aligned with
// the prompt's instruction list.
type Result struct {
	Strict []bool
	Loose  []bool
}

// AllStrict reports whether every instruction was followed (strict).
func (r Result) AllStrict() bool { return all(r.Strict) }

// AllLoose reports whether every instruction was followed (loose).
func (r Result) AllLoose() bool { return all(r.Loose) }

func all(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// Evaluate judges a response strictly (the response as is) and loosely (an
// instruction is followed if any of the eight official variants follows
// it). As in the official scorer, a variant that is empty after stripping
// whitespace follows nothing.
func (p *Prompt) Evaluate(response string) Result {
	// A checker is a pure function of the text, so a variant equal to an
	// earlier one (no '*' to remove, a one-line response...) cannot change
	// the verdict and is skipped; so is a variant that is empty after
	// stripping, which follows nothing. The variants are made only when
	// an instruction is not followed strictly.
	var variants []string
	made := false
	res := Result{Strict: make([]bool, len(p.checkers)), Loose: make([]bool, len(p.checkers))}
	nonEmpty := textstats.Strip(response) != ""
	for i, c := range p.checkers {
		res.Strict[i] = nonEmpty && c.Check(response)
		if res.Strict[i] {
			res.Loose[i] = true
			continue
		}
		if !made {
			variants, made = distinctVariants(response), true
		}
		for _, v := range variants {
			if c.Check(v) {
				res.Loose[i] = true
				break
			}
		}
	}
	return res
}

// distinctVariants are the loose variants of response other than itself,
// without repeats and without those empty after stripping.
func distinctVariants(response string) []string {
	var variants []string
	for _, v := range LooseVariants(response)[1:] {
		if v != response && textstats.Strip(v) != "" && !slices.Contains(variants, v) {
			variants = append(variants, v)
		}
	}
	return variants
}

// LooseVariants returns the official loose-evaluation variants of a
// response, in the official order: the response; with every '*' removed;
// without its first line; without its last line; without both; and the
// last three with '*' removed. Line removals split on "\n" and strip the
// result.
//
// The lines removed are the text up to the first "\n" and from the last
// one, so each variant is a part of the response (strings.Split and Join
// as the official code does give the same text: TestLooseVariantsSplit);
// only removing '*' copies.
func LooseVariants(response string) []string {
	var removeFirst, removeLast, removeBoth string
	if first := strings.IndexByte(response, '\n'); first >= 0 {
		last := strings.LastIndexByte(response, '\n')
		removeFirst = textstats.Strip(response[first+1:])
		removeLast = textstats.Strip(response[:last])
		if last > first {
			removeBoth = textstats.Strip(response[first+1 : last])
		}
	}
	return []string{
		response,
		noStar(response),
		removeFirst,
		removeLast,
		removeBoth,
		noStar(removeFirst),
		noStar(removeLast),
		noStar(removeBoth),
	}
}

func noStar(s string) string {
	if strings.IndexByte(s, '*') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "*", "")
}
