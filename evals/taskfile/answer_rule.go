package taskfile

import (
	"gopkg.in/yaml.v3"

	"github.com/pocketeval/pocketeval/scorers/choice"
)

// decodeAnswerRule reads answer_rule, pocketeval's key naming the rule
// that extracts the chosen option of a multiple_choice response in gen
// mode: pocketeval (the default), mmlu_pro, gaokao,
// opencompass_first_option, opencompass_first_capital or
// opencompass_answer_pattern (scorers/choice.Rules).
func decodeAnswerRule(c *Config, raw map[string]value) (choice.Rule, error) {
	v, ok := raw["answer_rule"]
	if !ok {
		return choice.RuleByName("")
	}
	if v.node.Kind != yaml.ScalarNode || v.node.Value == "" {
		return choice.Rule{}, v.errorf("answer_rule", "want a rule name")
	}
	if c.OutputType != MultipleChoice {
		return choice.Rule{}, v.errorf("answer_rule", "only multiple_choice tasks extract an option (this task is %s)", c.OutputType)
	}
	r, err := choice.RuleByName(v.node.Value)
	if err != nil {
		return choice.Rule{}, v.wrap("answer_rule", err)
	}
	return r, nil
}
