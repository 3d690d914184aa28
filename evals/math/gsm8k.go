package math

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/pocketeval/pocketeval/evals"
	"github.com/pocketeval/pocketeval/evals/fewshot"
	"github.com/pocketeval/pocketeval/runtime"
	"github.com/pocketeval/pocketeval/scorers/mathx"
)

const (
	gsm8kTestFile  = "gsm8k/test.jsonl"
	gsm8kTrainFile = "gsm8k/train.jsonl"
	gsm8kSource    = "https://github.com/openai/grade-school-math (grade_school_math/data/)"
)

// GSM8K is the grade-school math task: 1,319 test problems, chain of
// thought, numeric answer. Sample IDs are 0-based line indices of
// test.jsonl.
//
// Chat prompts (the default) are lm-evaluation-harness's gsm8k_cot_llama
// under --apply_chat_template --fewshot_as_multiturn: an instruction asking
// the answer to end with "The final answer is N"; with k few-shot examples, the
// first k of that task file's eight fixed exemplars precede it as earlier
// user/assistant turns. Completion prompts (raw, no chat template) are
// lm-eval's gsm8k task: "Question: …\nAnswer:" after k train problems
// with their "#### N" answers, drawn as lm-eval's sampler draws them, and
// stopping at the next "Question:". testdata/lmeval holds lm-eval's own
// requests for both, and the tests require equality.
type GSM8K struct{}

var _ evals.Task = GSM8K{}

// gsm8kExtractor's strict answer is the first "#### N" (lm-eval gsm8k,
// raw prompts) or else the last "The final answer is N" (lm-eval
// gsm8k_cot_llama, chat prompts, group_select: -1).
// It is built on first use.
var gsm8kExtractor = sync.OnceValue(func() *mathx.NumericExtractor {
	return mathx.NewNumericExtractor("The final answer is", "The answer is").StrictLastCue()
})

// Info implements evals.Task.
func (GSM8K) Info() evals.TaskInfo {
	return evals.TaskInfo{
		Name: "gsm8k",
		// 2: lm-eval's few-shot exemplars (raw: its sampler over
		// train.jsonl; chat: gsm8k_cot_llama's fixed list), the chat
		// instruction's trailing newline and stop sequences.
		Version: "3",
		// train.jsonl is optional (few-shot only); Dataset.Files records
		// it when it is read.
		DatasetFiles:     []string{gsm8kTestFile},
		Source:           gsm8kSource,
		PrimaryMetric:    MetricFlexible,
		Metrics:          metricNames,
		Description:      "GSM8K grade-school math, zero-shot chain of thought (few-shot: lm-eval's exemplars, from train.jsonl in raw mode); strict and flexible exact match",
		FewShot:          true,
		DefaultMaxTokens: 768,
	}
}

// gsm8kRecord is one line of test.jsonl / train.jsonl.
type gsm8kRecord struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// exemplar is a solved problem for few-shot prompts.
type exemplar struct {
	Question  string
	Reasoning string // the solution without its final "#### N" line
	RawAnswer string // the solution as in the file
	Final     string // canonical final number
}

// gsm8kExtra is GSM8K's Dataset.Extra.
type gsm8kExtra struct {
	train      []exemplar
	trainErr   error // why train.jsonl could not be read (raw few-shot needs it)
	seed       int64
	numFewshot int
	// ord is each sample's position among the test file's documents: the
	// sampler's draw number.
	ord map[string]int

	mu    sync.Mutex
	draws map[int][][]int // k → the train indices of every document
}

// shots returns the train indices of the raw prompt of document ord: the
// ord-th draw of lm-eval's sampler (random.Random(seed), sample(train, k)
// once per document, in file order) over the whole test file, whatever
// subset of it a run evaluates.
func (x *gsm8kExtra) shots(ord, k int) ([]int, error) {
	if x.trainErr != nil {
		return nil, x.trainErr
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	d, ok := x.draws[k]
	if !ok {
		var err error
		if d, err = fewshot.Draw("default", len(x.train), len(x.ord), k, x.seed); err != nil {
			return nil, fmt.Errorf("gsm8k: raw few-shot from train.jsonl: %w", err)
		}
		if x.draws == nil {
			x.draws = map[int][][]int{}
		}
		x.draws[k] = d
	}
	return d[ord], nil
}

var hashAnswer = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^(.*?)\n?####\s*(.+?)\s*$`) })

// parseGSM8KAnswer splits an answer field into reasoning and final number.
func parseGSM8KAnswer(answer string) (reasoning, final string, err error) {
	m := hashAnswer().FindStringSubmatch(answer)
	if m == nil {
		return "", "", errors.New(`no "#### <number>" line`)
	}
	n, ok := mathx.ParseNumber(m[2])
	if !ok {
		return "", "", fmt.Errorf("final answer %q is not a number", m[2])
	}
	return m[1], n.String(), nil
}

func loadGSM8KFile(path string) ([]gsm8kRecord, []exemplar, string, error) {
	lines, sum, err := readLines("gsm8k", path, gsm8kSource)
	if err != nil {
		return nil, nil, "", err
	}
	var recs []gsm8kRecord
	var ex []exemplar
	for i, line := range lines {
		if len(strings.TrimSpace(string(line))) == 0 {
			recs = append(recs, gsm8kRecord{}) // keep indices equal to line numbers
			ex = append(ex, exemplar{})
			continue
		}
		var r gsm8kRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, nil, "", &DataError{Path: path, Line: i + 1, Field: "(record)", Err: err}
		}
		if strings.TrimSpace(r.Question) == "" {
			return nil, nil, "", &DataError{Path: path, Line: i + 1, Field: "question", Err: errors.New("empty")}
		}
		reasoning, final, err := parseGSM8KAnswer(r.Answer)
		if err != nil {
			return nil, nil, "", &DataError{Path: path, Line: i + 1, Field: "answer", Err: err}
		}
		recs = append(recs, r)
		ex = append(ex, exemplar{Question: r.Question, Reasoning: reasoning, RawAnswer: r.Answer, Final: final})
	}
	return recs, ex, sum, nil
}

// Load implements evals.Task. With cfg.NumFewshot > 0 it also reads
// gsm8k/train.jsonl (next to the test file) for exemplars.
func (GSM8K) Load(ctx context.Context, cfg evals.LoadConfig) (*evals.Dataset, error) {
	path := datasetPath(cfg, gsm8kTestFile)
	recs, ex, sum, err := loadGSM8KFile(path)
	if err != nil {
		return nil, err
	}
	d := &evals.Dataset{Files: map[string]string{path: sum}}
	extra := &gsm8kExtra{seed: cfg.Seed, numFewshot: cfg.NumFewshot, ord: map[string]int{}}
	for i, r := range recs {
		if r.Question == "" {
			d.Warnings = append(d.Warnings, fmt.Sprintf("%s:%d: empty line skipped", path, i+1))
			continue
		}
		extra.ord[strconv.Itoa(i)] = len(d.Samples)
		d.Samples = append(d.Samples, evals.Sample{
			ID:     strconv.Itoa(i),
			Input:  r.Question,
			Target: ex[i].Final,
		})
	}
	if cfg.NumFewshot > 0 {
		// Only raw prompts draw from the train split; chat prompts use
		// fixed exemplars, so a missing file is an error only when a raw
		// prompt needs it.
		trainPath := filepath.Join(cfg.DataDir, gsm8kTrainFile)
		_, train, trainSum, err := loadGSM8KFile(trainPath)
		if err != nil {
			extra.trainErr = &evals.OptionalDataError{Task: "gsm8k", Why: fmt.Sprintf("raw prompts with %d few-shot examples", cfg.NumFewshot), Err: err}
		} else {
			for _, e := range train {
				if e.Question != "" {
					extra.train = append(extra.train, e)
				}
			}
			d.Files[trainPath] = trainSum
		}
	}
	d.Extra = extra
	return d, ctx.Err()
}

// gsm8kChatTemplate is lm-eval's gsm8k_cot_llama doc_to_text, whose
// trailing newline lm-eval's Jinja environment keeps
// (keep_trailing_newline=True).
const gsm8kChatTemplate = "Given the following problem, reason and give a final answer to the problem.\nProblem: %s\nYour response should end with \"The final answer is [answer]\" where [answer] is the response to the problem.\n"

// gsm8kChatStops are gsm8k_cot_llama's generation_kwargs.until; gsm8kRawStops
// are gsm8k's.
var (
	gsm8kChatStops = []string{"<|eot_id|>", "<|start_header_id|>user<|end_header_id|>", "Q:", "</s>", "<|im_end|>"}
	gsm8kRawStops  = []string{"Question:", "</s>", "<|im_end|>"}
)

// cotLlamaShots are the few-shot samples of lm-eval's gsm8k-cot-llama.yaml
// (fewshot_config, sampler first_n), in order: the chain-of-thought
// exemplars of Wei et al. (2022) with "The final answer is N" endings.
var cotLlamaShots = []struct{ Question, Target string }{
	{
		Question: "There are 15 trees in the grove. Grove workers will plant trees in the grove today. After they are done, there will be 21 trees. How many trees did the grove workers plant today?",
		Target:   "There are 15 trees originally. Then there were 21 trees after some more were planted. So there must have been 21 - 15 = 6. The final answer is 6",
	},
	{
		Question: "If there are 3 cars in the parking lot and 2 more cars arrive, how many cars are in the parking lot?",
		Target:   "There are originally 3 cars. 2 more cars arrive. 3 + 2 = 5. The final answer is 5",
	},
	{
		Question: "Leah had 32 chocolates and her sister had 42. If they ate 35, how many pieces do they have left in total?",
		Target:   "Originally, Leah had 32 chocolates. Her sister had 42. So in total they had 32 + 42 = 74. After eating 35, they had 74 - 35 = 39. The final answer is 39",
	},
	{
		Question: "Jason had 20 lollipops. He gave Denny some lollipops. Now Jason has 12 lollipops. How many lollipops did Jason give to Denny?",
		Target:   "Jason started with 20 lollipops. Then he had 12 after giving some to Denny. So he gave Denny 20 - 12 = 8. The final answer is 8",
	},
	{
		Question: "Shawn has five toys. For Christmas, he got two toys each from his mom and dad. How many toys does he have now?",
		Target:   "Shawn started with 5 toys. If he got 2 toys each from his mom and dad, then that is 4 more toys. 5 + 4 = 9. The final answer is 9",
	},
	{
		Question: "There were nine computers in the server room. Five more computers were installed each day, from monday to thursday. How many computers are now in the server room?",
		Target:   "There were originally 9 computers. For each of 4 days, 5 more computers were added. So 5 * 4 = 20 computers were added. 9 + 20 is 29. The final answer is 29",
	},
	{
		Question: "Michael had 58 golf balls. On tuesday, he lost 23 golf balls. On wednesday, he lost 2 more. How many golf balls did he have at the end of wednesday?",
		Target:   "Michael started with 58 golf balls. After losing 23 on tuesday, he had 58 - 23 = 35. After losing 2 more, he had 35 - 2 = 33 golf balls. The final answer is 33",
	},
	{
		Question: "Olivia has $23. She bought five bagels for $3 each. How much money does she have left?",
		Target:   "Olivia had 23 dollars. 5 bagels for 3 dollars each will be 5 x 3 = 15 dollars. So she has 23 - 15 dollars left. 23 - 15 is 8. The final answer is 8",
	},
}

// Prompt implements evals.Task.
func (t GSM8K) Prompt(d *evals.Dataset, s evals.Sample, cfg evals.PromptConfig) (runtime.Request, error) {
	extra, _ := d.Extra.(*gsm8kExtra)
	if extra == nil {
		extra = &gsm8kExtra{}
	}
	k := cfg.NumFewshot
	if k < 0 {
		k = max(extra.numFewshot, 0)
	}
	req := runtime.Request{ID: s.ID, Task: t.Info().Name}
	if cfg.Chat {
		if k > len(cotLlamaShots) {
			return runtime.Request{}, fmt.Errorf("gsm8k: chat prompts have %d few-shot exemplars (lm-eval gsm8k_cot_llama's fixed list), %d requested", len(cotLlamaShots), k)
		}
		for _, e := range cotLlamaShots[:k] {
			req.Messages = append(req.Messages,
				runtime.Message{Role: "user", Content: fmt.Sprintf(gsm8kChatTemplate, e.Question)},
				runtime.Message{Role: "assistant", Content: e.Target},
			)
		}
		req.Messages = append(req.Messages, runtime.Message{Role: "user", Content: fmt.Sprintf(gsm8kChatTemplate, s.Input)})
		req.Gen = withGen(cfg.Gen, t.Info().DefaultMaxTokens, gsm8kChatStops...)
		return req, nil
	}
	var b strings.Builder
	if k > 0 {
		ord, ok := extra.ord[s.ID]
		if !ok {
			return runtime.Request{}, fmt.Errorf("gsm8k: sample %q is not a document of the loaded test file", s.ID)
		}
		shots, err := extra.shots(ord, k)
		if err != nil {
			return runtime.Request{}, err
		}
		for _, i := range shots {
			e := extra.train[i]
			fmt.Fprintf(&b, "Question: %s\nAnswer: %s\n\n", e.Question, e.RawAnswer)
		}
	}
	fmt.Fprintf(&b, "Question: %s\nAnswer:", s.Input)
	req.Prompt = b.String()
	req.Gen = withGen(cfg.Gen, t.Info().DefaultMaxTokens, gsm8kRawStops...)
	return req, nil
}

// Score implements evals.Task.
func (GSM8K) Score(ctx context.Context, s evals.Sample, out evals.Output) (evals.Score, error) {
	return scoreNumeric(gsm8kExtractor(), s, out), ctx.Err()
}
