package ifeval

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/pocketeval/pocketeval/scorers/textstats"
)

type checkCase struct {
	name     string
	id       string
	kwargs   map[string]any
	response string
	want     bool
}

func runChecks(t *testing.T, lang Lang, cases []checkCase) {
	t.Helper()
	covered := map[string]bool{}
	for _, tt := range cases {
		covered[tt.id] = true
		t.Run(tt.id+"/"+tt.name, func(t *testing.T) {
			c, err := Build(tt.id, tt.kwargs, Config{Lang: lang})
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Check(tt.response); got != tt.want {
				t.Errorf("Check(%q) = %v, want %v", tt.response, got, tt.want)
			}
		})
	}
	for _, id := range IDs() {
		if !covered[id] {
			t.Errorf("no %s case for instruction %s", lang, id)
		}
	}
}

// TestCheckersEnglish pins the official checkers' semantics, each at its
// decision boundary: one word, sentence, paragraph, comma, bullet or case
// change either side.
func TestCheckersEnglish(t *testing.T) {
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }
	sentences := func(n int) string { return strings.TrimSpace(strings.Repeat("This is one. ", n)) }
	runChecks(t, English, []checkCase{
		{"less than: one under", "length_constraints:number_words", map[string]any{"num_words": 5.0, "relation": "less than"}, words(4), true},
		{"less than: equal fails", "length_constraints:number_words", map[string]any{"num_words": 5.0, "relation": "less than"}, words(5), false},
		{"at least: equal", "length_constraints:number_words", map[string]any{"num_words": 5.0, "relation": "at least"}, words(5), true},
		{"at least: one under", "length_constraints:number_words", map[string]any{"num_words": 5.0, "relation": "at least"}, words(4), false},
		{"apostrophe splits words", "length_constraints:number_words", map[string]any{"num_words": 4.0, "relation": "at least"}, "don't stop-me", true},

		{"less than: one under", "length_constraints:number_sentences", map[string]any{"num_sentences": 3.0, "relation": "less than"}, sentences(2), true},
		{"less than: equal fails", "length_constraints:number_sentences", map[string]any{"num_sentences": 3.0, "relation": "less than"}, sentences(3), false},
		{"at least: equal", "length_constraints:number_sentences", map[string]any{"num_sentences": 3.0, "relation": "at least"}, sentences(3), true},
		{"at least: one under", "length_constraints:number_sentences", map[string]any{"num_sentences": 3.0, "relation": "at least"}, sentences(2), false},

		{"exact", "length_constraints:number_paragraphs", map[string]any{"num_paragraphs": 2.0}, "One.\n***\nTwo.", true},
		{"one more", "length_constraints:number_paragraphs", map[string]any{"num_paragraphs": 2.0}, "One.\n***\nTwo.\n***\nThree.", false},
		{"leading and trailing dividers ignored", "length_constraints:number_paragraphs", map[string]any{"num_paragraphs": 2.0}, "***\nOne.\n***\nTwo.\n***", true},
		{"empty middle paragraph fails", "length_constraints:number_paragraphs", map[string]any{"num_paragraphs": 2.0}, "One.\n***\n***\nTwo.", false},

		{"first word matches", "length_constraints:nth_paragraph_first_word", map[string]any{"num_paragraphs": 2.0, "nth_paragraph": 2.0, "first_word": "Summer"}, "Intro here.\n\n\"Summer, is here.", true},
		{"wrong count", "length_constraints:nth_paragraph_first_word", map[string]any{"num_paragraphs": 3.0, "nth_paragraph": 2.0, "first_word": "summer"}, "Intro.\n\nSummer is here.", false},
		{"different word", "length_constraints:nth_paragraph_first_word", map[string]any{"num_paragraphs": 2.0, "nth_paragraph": 2.0, "first_word": "summer"}, "Intro.\n\nSummers are here.", false},
		{"empty nth paragraph", "length_constraints:nth_paragraph_first_word", map[string]any{"num_paragraphs": 2.0, "nth_paragraph": 2.0, "first_word": "summer"}, "Intro.\n\n\n\nSummer.", false},

		{"at least: equal", "detectable_content:number_placeholders", map[string]any{"num_placeholders": 2.0}, "Dear [name], at [address].", true},
		{"at least: one under", "detectable_content:number_placeholders", map[string]any{"num_placeholders": 2.0}, "Dear [name], at address.", false},
		{"no placeholder across lines", "detectable_content:number_placeholders", map[string]any{"num_placeholders": 1.0}, "[name\n]", false},

		{"P.S.", "detectable_content:postscript", map[string]any{"postscript_marker": "P.S."}, "Hi.\n\nP.S. see you", true},
		{"P.S. lower case and spaced", "detectable_content:postscript", map[string]any{"postscript_marker": "P.S."}, "Hi.\np. s. see you", true},
		{"P.S. missing", "detectable_content:postscript", map[string]any{"postscript_marker": "P.S."}, "Hi.\nPS see you", false},
		{"P.P.S", "detectable_content:postscript", map[string]any{"postscript_marker": "P.P.S"}, "Hi.\nP.P.S more", true},

		{"exact", "detectable_format:number_bullet_lists", map[string]any{"num_bullets": 2.0}, "* one\n* two", true},
		{"dash bullets count", "detectable_format:number_bullet_lists", map[string]any{"num_bullets": 2.0}, "- one\n  - two", true},
		{"one more", "detectable_format:number_bullet_lists", map[string]any{"num_bullets": 2.0}, "* one\n* two\n- three", false},
		{"bold line is no bullet", "detectable_format:number_bullet_lists", map[string]any{"num_bullets": 1.0}, "**bold**\n* one", true},

		{"contains option", "detectable_format:constrained_response", nil, "Well... My answer is yes.", true},
		{"without period", "detectable_format:constrained_response", nil, "My answer is yes", false},

		{"at least: equal", "detectable_format:number_highlighted_sections", map[string]any{"num_highlights": 2.0}, "*one* and **two**", true},
		{"at least: one under", "detectable_format:number_highlighted_sections", map[string]any{"num_highlights": 2.0}, "*one* and * *", false},

		{"Arabic-Indic digit is \\d", "detectable_format:multiple_sections", map[string]any{"section_spliter": "SECTION", "num_sections": 1.0}, "SECTION \u0663 intro", true},
		{"Kawi digit (Unicode 15.0) is not \\d in Python 3.11", "detectable_format:multiple_sections", map[string]any{"section_spliter": "SECTION", "num_sections": 1.0}, "SECTION \U00011F51 intro", false},
		{"at least: equal", "detectable_format:multiple_sections", map[string]any{"section_spliter": "Section", "num_sections": 2.0}, "Section 1\nA\nSection 2\nB", true},
		{"at least: one under", "detectable_format:multiple_sections", map[string]any{"section_spliter": "Section", "num_sections": 3.0}, "Section 1\nA\nSection 2\nB", false},
		{"case sensitive", "detectable_format:multiple_sections", map[string]any{"section_spliter": "SECTION", "num_sections": 1.0}, "Section 1\nA", false},

		{"fenced json", "detectable_format:json_format", nil, "```json\n{\"a\": 1}\n```", true},
		{"plain json", "detectable_format:json_format", nil, " [1, 2] ", true},
		{"NaN like Python", "detectable_format:json_format", nil, `{"a": NaN}`, true},
		{"-Infinity like Python", "detectable_format:json_format", nil, `[NaN, -Infinity, Infinity]`, true},
		{"digit before NaN", "detectable_format:json_format", nil, `[1NaN]`, false},
		{"minus NaN", "detectable_format:json_format", nil, `[-NaN]`, false},
		{"decimal before Infinity", "detectable_format:json_format", nil, `1.5Infinity`, false},
		{"exponent NaN", "detectable_format:json_format", nil, `1eNaN`, false},
		{"minus space Infinity", "detectable_format:json_format", nil, `[- Infinity]`, false},
		{"prose", "detectable_format:json_format", nil, "Here: {\"a\": 1}", false},

		{"title", "detectable_format:title", nil, "<<My Title>>\nText", true},
		{"empty title", "detectable_format:title", nil, "<< >>\nText", false},
		{"title across lines", "detectable_format:title", nil, "<<My\nTitle>>", false},

		{"two different", "combination:two_responses", nil, "A\n******\nB", true},
		{"identical", "combination:two_responses", nil, "A\n******\nA ", false},
		{"three", "combination:two_responses", nil, "A******B******C", false},

		{"repeats first", "combination:repeat_prompt", map[string]any{"prompt_to_repeat": "Say hi."}, "  say HI. Hi!", true},
		{"does not repeat", "combination:repeat_prompt", map[string]any{"prompt_to_repeat": "Say hi."}, "Hi! Say hi.", false},

		{"ends with phrase", "startend:end_checker", map[string]any{"end_phrase": "Any other questions?"}, "Text. any other questions?\"  ", true},
		{"trailing word", "startend:end_checker", map[string]any{"end_phrase": "Any other questions?"}, "Any other questions? Bye", false},

		{"wrapped", "startend:quotation", nil, "  \"hello\"\n", true},
		{"single quote char", "startend:quotation", nil, "\"", false},
		{"curly quotes are not quotes in English", "startend:quotation", nil, "“hello”", false},

		{"no comma", "punctuation:no_comma", nil, "One two three.", true},
		{"one comma", "punctuation:no_comma", nil, "One, two.", false},
		{"full-width comma allowed in English", "punctuation:no_comma", nil, "One，two.", true},

		{"all upper English", "change_case:english_capital", nil, "THIS IS A SHORT ENGLISH TEXT WRITTEN IN CAPITALS.", true},
		{"one lower-case letter", "change_case:english_capital", nil, "THIS IS A SHORT ENGLISH TEXT WRITTEN IN CAPITALs.", false},
		{"all lower English", "change_case:english_lowercase", nil, "this is a short english text written in lower case.", true},
		{"one capital", "change_case:english_lowercase", nil, "this is a short english text written in lower casE.", false},

		{"less than: one under", "change_case:capital_word_frequency", map[string]any{"capital_frequency": 3.0, "capital_relation": "less than"}, "I LOVE this TOWN", false},
		{"less than: below", "change_case:capital_word_frequency", map[string]any{"capital_frequency": 3.0, "capital_relation": "less than"}, "I love this TOWN", true},
		{"at least: contraction counts twice", "change_case:capital_word_frequency", map[string]any{"capital_frequency": 2.0, "capital_relation": "at least"}, "We DON'T go", true},

		{"all present", "keywords:existence", map[string]any{"keywords": []any{"cat", "Dog"}}, "The DOG and the category", true},
		{"one missing", "keywords:existence", map[string]any{"keywords": []any{"cat", "bird"}}, "The cat", false},
		// Python's re.IGNORECASE relates I, i, İ and ı (simple case mappings);
		// Unicode case folding, Go's (?i), does not.
		{"dotted capital I like Python", "keywords:existence", map[string]any{"keywords": []any{"istanbul"}}, "İSTANBUL", true},
		{"dotless i like Python", "keywords:existence", map[string]any{"keywords": []any{"ıstanbul"}}, "Istanbul", true},
		{"iota with dialytika and tonos like Python", "keywords:existence", map[string]any{"keywords": []any{"\u0390"}}, "\u1fd3", true},
		{"st ligatures like Python", "keywords:frequency", map[string]any{"keyword": "\ufb05", "frequency": 2.0, "relation": "at least"}, "\ufb06 \ufb05", true},
		{"dotless i is a forbidden i", "keywords:forbidden_words", map[string]any{"forbidden_words": []any{"in"}}, "ın", false},

		{"less than: equal fails", "keywords:frequency", map[string]any{"keyword": "fun", "frequency": 2.0, "relation": "less than"}, "Fun is funny", false},
		{"at least: equal", "keywords:frequency", map[string]any{"keyword": "fun", "frequency": 2.0, "relation": "at least"}, "Fun is funny", true},
		{"at least: one under", "keywords:frequency", map[string]any{"keyword": "fun", "frequency": 3.0, "relation": "at least"}, "Fun is funny", false},

		{"only inside other words", "keywords:forbidden_words", map[string]any{"forbidden_words": []any{"cat"}}, "category concat", true},
		{"whole word", "keywords:forbidden_words", map[string]any{"forbidden_words": []any{"cat"}}, "A Cat!", false},
		{"Unicode word boundary", "keywords:forbidden_words", map[string]any{"forbidden_words": []any{"caf"}}, "café", true},

		{"less than: equal fails", "keywords:letter_frequency", map[string]any{"letter": "a", "let_frequency": 2.0, "let_relation": "less than"}, "A cat", false},
		{"less than: one under", "keywords:letter_frequency", map[string]any{"letter": "a", "let_frequency": 3.0, "let_relation": "less than"}, "A cat", true},
		{"at least: equal, case-insensitive", "keywords:letter_frequency", map[string]any{"letter": "A", "let_frequency": 2.0, "let_relation": "at least"}, "A cat", true},
		{"non-letter counted literally", "keywords:letter_frequency", map[string]any{"letter": "#", "let_frequency": 2.0, "let_relation": "at least"}, "#a #b", true},

		{"English", "language:response_language", map[string]any{"language": "en"}, "This is plainly an English sentence about the weather and the sea.", true},
		{"not German", "language:response_language", map[string]any{"language": "de"}, "This is plainly an English sentence about the weather and the sea.", false},
		{"no letters counts as followed", "language:response_language", map[string]any{"language": "de"}, "12345 !!!", true},
	})
}

// TestCheckersChinese pins pocketeval's IFEval-zh rules (docs/ifeval-zh.md).
func TestCheckersChinese(t *testing.T) {
	han := func(n int) string { return strings.Repeat("字", n) }
	runChecks(t, Chinese, []checkCase{
		{"less than: one under", "length_constraints:number_words", map[string]any{"num_words": 10.0, "relation": "less than"}, han(9) + "。", true},
		{"less than: equal fails", "length_constraints:number_words", map[string]any{"num_words": 10.0, "relation": "less than"}, han(10) + "。", false},
		{"at least: equal", "length_constraints:number_words", map[string]any{"num_words": 10.0, "relation": "at least"}, han(8) + "，AI模型", true},
		{"punctuation not counted", "length_constraints:number_words", map[string]any{"num_words": 5.0, "relation": "at least"}, "字字字字！！！", false},

		{"at least: equal", "length_constraints:number_sentences", map[string]any{"num_sentences": 3.0, "relation": "at least"}, "一。二！三？", true},
		{"at least: one under", "length_constraints:number_sentences", map[string]any{"num_sentences": 3.0, "relation": "at least"}, "一。二！三", true},
		{"at least: two", "length_constraints:number_sentences", map[string]any{"num_sentences": 3.0, "relation": "at least"}, "一。二！", false},
		{"less than: equal fails", "length_constraints:number_sentences", map[string]any{"num_sentences": 2.0, "relation": "less than"}, "一。二！", false},
		{"less than: repeated marks are one end", "length_constraints:number_sentences", map[string]any{"num_sentences": 2.0, "relation": "less than"}, "真的吗？！", true},

		{"exact", "length_constraints:number_paragraphs", map[string]any{"num_paragraphs": 2.0}, "第一段。\n***\n第二段。", true},
		{"one more", "length_constraints:number_paragraphs", map[string]any{"num_paragraphs": 2.0}, "一\n***\n二\n***\n三", false},

		{"starts with Chinese word", "length_constraints:nth_paragraph_first_word", map[string]any{"num_paragraphs": 2.0, "nth_paragraph": 2.0, "first_word": "太白金星"}, "开头。\n\n太白金星来了。", true},
		{"after an opening quote", "length_constraints:nth_paragraph_first_word", map[string]any{"num_paragraphs": 2.0, "nth_paragraph": 2.0, "first_word": "春"}, "开头。\n\n“春天来了。”", true},
		{"wrong paragraph count", "length_constraints:nth_paragraph_first_word", map[string]any{"num_paragraphs": 3.0, "nth_paragraph": 2.0, "first_word": "春"}, "开头。\n\n春天来了。", false},
		{"does not start with it", "length_constraints:nth_paragraph_first_word", map[string]any{"num_paragraphs": 2.0, "nth_paragraph": 2.0, "first_word": "春"}, "开头。\n\n夏天，春天。", false},

		{"at least", "detectable_content:number_placeholders", map[string]any{"num_placeholders": 2.0}, "[姓名]，[地址]", true},
		{"one under", "detectable_content:number_placeholders", map[string]any{"num_placeholders": 2.0}, "[姓名]，【地址】", false},

		{"P.S.", "detectable_content:postscript", map[string]any{"postscript_marker": "P.S."}, "正文。\nP.S. 附言", true},
		{"missing", "detectable_content:postscript", map[string]any{"postscript_marker": "P.S."}, "正文。\n附言：再见", false},

		{"exact", "detectable_format:number_bullet_lists", map[string]any{"num_bullets": 2.0}, "* 一\n* 二", true},
		{"one less", "detectable_format:number_bullet_lists", map[string]any{"num_bullets": 2.0}, "* 一\n二", false},

		{"Chinese option", "detectable_format:constrained_response", nil, "我的答案是否定的。", true},
		{"English option", "detectable_format:constrained_response", nil, "My answer is maybe.", true},
		{"no option", "detectable_format:constrained_response", nil, "我认为是的。", false},

		{"at least", "detectable_format:number_highlighted_sections", map[string]any{"num_highlights": 2.0}, "*家务分工* 和 *默契度*", true},
		{"one under", "detectable_format:number_highlighted_sections", map[string]any{"num_highlights": 2.0}, "*家务分工* 和 默契度", false},

		{"SECTION X", "detectable_format:multiple_sections", map[string]any{"section_spliter": "SECTION", "num_sections": 2.0}, "SECTION 1\n一\nSECTION 2\n二", true},
		{"第X天", "detectable_format:multiple_sections", map[string]any{"section_spliter": "天", "num_sections": 2.0}, "第1天：游泳\n第二天：爬山", true},
		{"受众一", "detectable_format:multiple_sections", map[string]any{"section_spliter": "受众", "num_sections": 2.0}, "受众一：青少年\n受众二：职场", true},
		{"one under", "detectable_format:multiple_sections", map[string]any{"section_spliter": "天", "num_sections": 3.0}, "第1天\n第2天", false},

		{"fenced JSON", "detectable_format:json_format", nil, "```JSON\n{\"名称\": \"西湖\"}\n```", true},
		{"prose", "detectable_format:json_format", nil, "西湖：{\"a\": 1}", false},

		{"ASCII title", "detectable_format:title", nil, "<<奋斗路上>>\n正文", true},
		{"book-title marks are not a title", "detectable_format:title", nil, "《奋斗路上》\n正文", false},

		{"two", "combination:two_responses", nil, "笑话一\n******\n笑话二", true},
		{"one", "combination:two_responses", nil, "笑话一", false},

		{"repeats", "combination:repeat_prompt", map[string]any{"prompt_to_repeat": "写一个故事。"}, "写一个故事。从前……", true},
		{"does not", "combination:repeat_prompt", map[string]any{"prompt_to_repeat": "写一个故事。"}, "好的。写一个故事。", false},

		{"ends", "startend:end_checker", map[string]any{"end_phrase": "还有什么我可以帮忙的吗？"}, "回答。还有什么我可以帮忙的吗？", true},
		{"ends inside Chinese quotes", "startend:end_checker", map[string]any{"end_phrase": "还有什么我可以帮忙的吗？"}, "“回答。还有什么我可以帮忙的吗？”", true},
		{"more after", "startend:end_checker", map[string]any{"end_phrase": "还有什么我可以帮忙的吗？"}, "还有什么我可以帮忙的吗？谢谢", false},

		{"ASCII quotes", "startend:quotation", nil, "\"整个回答\"", true},
		{"Chinese quotes", "startend:quotation", nil, "“整个回答”", true},
		{"unbalanced", "startend:quotation", nil, "“整个回答", false},

		{"no comma", "punctuation:no_comma", nil, "春眠不觉晓 处处闻啼鸟", true},
		{"full-width comma", "punctuation:no_comma", nil, "春眠不觉晓，处处闻啼鸟", false},
		{"enumeration comma", "punctuation:no_comma", nil, "春、夏", false},

		{"English capitals", "change_case:english_capital", nil, "THE GREAT WALL IS A SERIES OF FORTIFICATIONS IN CHINA.", true},
		{"Chinese is not English", "change_case:english_capital", nil, "长城 ABC", false},
		{"English lower case", "change_case:english_lowercase", nil, "the great wall is a series of fortifications in china.", true},
		{"one capital", "change_case:english_lowercase", nil, "the great wall is a series of fortifications in China.", false},

		{"at least", "change_case:capital_word_frequency", map[string]any{"capital_frequency": 2.0, "capital_relation": "at least"}, "我很 BORED 和 NOISY", true},
		{"one under", "change_case:capital_word_frequency", map[string]any{"capital_frequency": 2.0, "capital_relation": "at least"}, "我很 BORED 和 noisy", false},

		{"present", "keywords:existence", map[string]any{"keywords": []any{"长城"}}, "我爱长城", true},
		{"absent", "keywords:existence", map[string]any{"keywords": []any{"长城"}}, "我爱故宫", false},
		{"at least", "keywords:frequency", map[string]any{"keyword": "茶", "frequency": 2.0, "relation": "at least"}, "喝茶，品茶", true},
		{"less than: equal fails", "keywords:frequency", map[string]any{"keyword": "茶", "frequency": 2.0, "relation": "less than"}, "喝茶，品茶", false},
		{"forbidden inside a longer word", "keywords:forbidden_words", map[string]any{"forbidden_words": []any{"龙"}}, "恐龙化石", false},
		{"forbidden absent", "keywords:forbidden_words", map[string]any{"forbidden_words": []any{"龙"}}, "恐鸟化石", true},
		{"character count: less than boundary", "keywords:letter_frequency", map[string]any{"letter": "龙", "let_frequency": 2.0, "let_relation": "less than"}, "龙", true},
		{"character count: equal fails", "keywords:letter_frequency", map[string]any{"letter": "龙", "let_frequency": 2.0, "let_relation": "less than"}, "龙和龙", false},

		{"simplified Chinese", "language:response_language", map[string]any{"language": "zh-cn"}, "今天天气很好，我们一起去公园散步吧。", true},
		{"English is not Chinese", "language:response_language", map[string]any{"language": "zh-cn"}, "The weather is nice today and we are going to the park.", false},
		{"traditional is not zh-cn", "language:response_language", map[string]any{"language": "zh-cn"}, "今天天氣很好，我們一起去公園散步吧。這是我們的計劃。", false},
		{"zh accepts either script", "language:response_language", map[string]any{"language": "zh"}, "今天天氣很好，我們一起去公園散步吧。這是我們的計劃。", true},
	})
}

func TestBuildErrors(t *testing.T) {
	_, err := Build("no:such", nil, Config{})
	var unknown *UnknownInstructionError
	if !errors.As(err, &unknown) {
		t.Errorf("unknown id: err = %v, want UnknownInstructionError", err)
	}
	_, err = Build("length_constraints:number_words", map[string]any{"relation": "at least"}, Config{})
	var kwErr *KwargError
	if !errors.As(err, &kwErr) || kwErr.Kwarg != "num_words" {
		t.Errorf("missing kwarg: err = %v, want KwargError for num_words", err)
	}
	_, err = Build("length_constraints:number_words", map[string]any{"num_words": 3.0, "relation": "at most"}, Config{})
	if !errors.As(err, &kwErr) || kwErr.Kwarg != "relation" {
		t.Errorf("bad relation: err = %v, want KwargError for relation", err)
	}
	_, err = Build("length_constraints:number_words", map[string]any{"num_words": 3.5, "relation": "at least"}, Config{})
	if !errors.As(err, &kwErr) {
		t.Errorf("fractional count: err = %v, want KwargError", err)
	}
	if n := len(IDs()); n != 25 {
		t.Errorf("%d instruction types, want the official 25", n)
	}
}

func TestLooseVariants(t *testing.T) {
	got := LooseVariants("Sure!\n*Body* text\nBye")
	want := []string{
		"Sure!\n*Body* text\nBye",
		"Sure!\nBody text\nBye",
		"*Body* text\nBye",
		"Sure!\n*Body* text",
		"*Body* text",
		"Body text\nBye",
		"Sure!\nBody text",
		"Body text",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LooseVariants = %q, want %q", got, want)
	}
	one := LooseVariants("only line")
	if one[2] != "" || one[3] != "" || one[4] != "" {
		t.Errorf("one-line response: removals %q, want empty", one[2:5])
	}
}

// refLooseVariants is the official code's construction of the loose
// variants (split on "\n", join, strip), the reference of LooseVariants.
func refLooseVariants(response string) []string {
	lines := strings.Split(response, "\n")
	join := func(ls []string) string { return textstats.Strip(strings.Join(ls, "\n")) }
	removeFirst := join(lines[1:])
	removeLast := join(lines[:len(lines)-1])
	var removeBoth string
	if len(lines) >= 2 {
		removeBoth = join(lines[1 : len(lines)-1])
	}
	noStar := func(s string) string { return strings.ReplaceAll(s, "*", "") }
	return []string{response, noStar(response), removeFirst, removeLast, removeBoth, noStar(removeFirst), noStar(removeLast), noStar(removeBoth)}
}

// TestLooseVariantsSplit: LooseVariants, which takes parts of the
// response, gives the official split-and-join variants for the GPT-4
// responses and seeded random texts of lines, spaces and stars.
func TestLooseVariantsSplit(t *testing.T) {
	var texts []string
	for _, c := range loadConformance(t) {
		texts = append(texts, c.response)
	}
	pieces := []string{"\n", "\n", "\r\n", " ", "\t", "*", "**", "a", "Bc", "\u00a0", "\u2028", "\x85", "é"}
	r := rand.New(rand.NewPCG(5, 8))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		if got, want := LooseVariants(s), refLooseVariants(s); !reflect.DeepEqual(got, want) {
			t.Fatalf("LooseVariants(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestEvaluateStrictAndLoose(t *testing.T) {
	p, err := Compile([]Instruction{
		{ID: "startend:quotation"},
		{ID: "punctuation:no_comma"},
	}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	// The first line is a preamble: strict fails the quotation, loose
	// (first line removed) follows it.
	res := p.Evaluate("Here you go\n\"no commas here\"")
	if !reflect.DeepEqual(res.Strict, []bool{false, true}) || !reflect.DeepEqual(res.Loose, []bool{true, true}) {
		t.Errorf("got strict %v loose %v", res.Strict, res.Loose)
	}
	if res.AllStrict() || !res.AllLoose() {
		t.Errorf("prompt-level: strict %v loose %v, want false/true", res.AllStrict(), res.AllLoose())
	}
	// An empty response follows nothing, even "no commas".
	empty := p.Evaluate("   ")
	if empty.Strict[1] || empty.Loose[1] {
		t.Errorf("empty response followed no_comma: %+v", empty)
	}
}
