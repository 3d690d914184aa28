package compare

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pocketeval/pocketeval/results"
	"github.com/pocketeval/pocketeval/rundir"
)

// UnlikeError refuses two runs that differ in what decides scores: a
// difference between them would measure the settings, not the models.
type UnlikeError struct {
	// Diffs name each differing setting with both values.
	Diffs []string
}

func (e *UnlikeError) Error() string {
	return "the runs differ in what decides scores: " + strings.Join(e.Diffs, "; ")
}

// Unlike lists the settings in which a and b differ that decide scores:
// the sample limit, the generation settings (max tokens, temperature,
// top-p, seeds, stop strings), few-shot, chat or raw prompts, thinking,
// the chat template, the scoring mode, samples per task, the shard, and per
// task shared by both the task version and the prompt template hash. Nil
// when they agree. (Different dataset files are refused on their own, as
// an AlignmentError: such samples cannot be paired at all.)
func Unlike(a, b *rundir.Run) []string {
	ca, cb := a.Manifest.Config, b.Manifest.Config
	var out []string
	add := func(what string, x, y any) {
		xj, _ := json.Marshal(x)
		yj, _ := json.Marshal(y)
		if string(xj) != string(yj) {
			out = append(out, fmt.Sprintf("%s: %s (A) vs %s (B)", what, xj, yj))
		}
	}
	add("limit", ca.Limit, cb.Limit)
	add("max_tokens", ca.Generation.MaxTokens, cb.Generation.MaxTokens)
	add("temperature", ca.Generation.Temperature, cb.Generation.Temperature)
	add("top_p", ca.Generation.TopP, cb.Generation.TopP)
	add("generation seed", ca.Generation.Seed, cb.Generation.Seed)
	add("stop", ca.Generation.Stop, cb.Generation.Stop)
	add("seed", ca.Seed, cb.Seed)
	add("num_fewshot", ca.NumFewshot, cb.NumFewshot)
	add("chat", ca.Chat, cb.Chat)
	add("strip_thinking", ca.StripThinking, cb.StripThinking)
	ta, tb := templateOf(ca), templateOf(cb)
	add("thinking", ta.Thinking, tb.Thinking)
	add("chat template sha256", ta.SHA256, tb.SHA256)
	add("mode", ca.Mode, cb.Mode)
	add("samples_per_task", ca.SamplesPerTask, cb.SamplesPerTask)
	add("shard", ca.Shard, cb.Shard)
	for _, t := range ca.Tasks {
		u, ok := b.TaskConfig(t.Name)
		if !ok {
			continue
		}
		add("task "+t.Name+" version", t.Version, u.Version)
		add("task "+t.Name+" prompt_template_hash", t.PromptHash, u.PromptHash)
	}
	return out
}

// template is what Unlike reads of a run's chat template.
type template struct{ Thinking, SHA256 string }

func templateOf(c results.Config) template {
	if c.ChatTemplate == nil {
		return template{}
	}
	return template{Thinking: c.ChatTemplate.Thinking, SHA256: c.ChatTemplate.SHA256}
}
