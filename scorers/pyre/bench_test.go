package pyre

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/internal/sharedtest"
)

// benchTexts are real model outputs: the GPT-4 IFEval responses of the
// shared conformance data (541, about 2 KB each) and the chain-of-thought
// answers of BBH's official 3-shot prompts (81, a few hundred bytes each).
func benchTexts(b *testing.B) map[string][]string {
	out := map[string][]string{}
	f, err := os.Open(filepath.Join(sharedtest.Conformance(b), "ifeval", "input_response_data_gpt4_20231107_145030.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct{ Response string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			b.Fatal(err)
		}
		out["ifeval"] = append(out["ifeval"], r.Response)
	}
	files, _ := filepath.Glob(filepath.Join(sharedtest.Datasets(b), "bbh", "cot-prompts", "*.txt"))
	for _, p := range files {
		raw, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, part := range strings.Split(string(raw), "\nA: ")[1:] {
			ans, _, _ := strings.Cut(part, "\n\nQ:")
			out["bbh"] = append(out["bbh"], ans)
		}
	}
	if len(out["ifeval"]) == 0 || len(out["bbh"]) == 0 {
		b.Fatal("no benchmark texts")
	}
	return out
}

// BenchmarkFindAll times re.findall of lm-eval task-file patterns over
// every text of a replay (one op = all texts), with this package and, for
// the patterns RE2 can express, with Go's regexp — the engine's cost
// against what the task files cost before. Needs the shared data.
func BenchmarkFindAll(b *testing.B) {
	texts := benchTexts(b)
	patterns := []struct {
		name, py string
		re2      bool
	}{
		{"bbh_cot_fewshot", `(?<=the answer is )(.*)(?=.)`, false},
		{"bbh_cot_zeroshot", `((?<=The answer is )(.*)(?=.)|(?<=the answer is )(.*)(?=.)|(?<=The answer: )(.*)(?=.)|(?<=The final answer: )(.*)(?=.))`, false},
		{"mmlu_generative", `^(.*?)(?=\n|$)`, false},
		{"gsm8k_flexible", `(-?[$0-9.,]{2,})|(-?[0-9]+)`, true},
		{"bbh_bool", `\b(True|False)\b`, true},
		{"mc_letter", `(\([A-Z]\))`, true},
	}
	for _, set := range []string{"ifeval", "bbh"} {
		in := texts[set]
		bytes := 0
		for _, s := range in {
			bytes += len(s)
		}
		for _, p := range patterns {
			re := MustCompile(p.py, 0)
			b.Run(set+"/"+p.name+"/pyre", func(b *testing.B) {
				b.SetBytes(int64(bytes))
				for b.Loop() {
					for _, s := range in {
						if _, err := re.FindAllStrings(s); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
			if !p.re2 {
				continue
			}
			std := regexp.MustCompile(p.py)
			b.Run(set+"/"+p.name+"/re2", func(b *testing.B) {
				b.SetBytes(int64(bytes))
				for b.Loop() {
					for _, s := range in {
						std.FindAllStringSubmatch(s, -1)
					}
				}
			})
		}
	}
}
