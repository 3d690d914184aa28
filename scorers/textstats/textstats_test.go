package textstats

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func TestCountWords(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"hello", 1},
		{"Hello, world!", 2},
		{"don't", 2},            // \w+ splits at the apostrophe
		{"state-of-the-art", 4}, // and at hyphens
		{"3.5 million", 3},      // digits are word characters
		{"snake_case_name", 1},  // so is the underscore
		{"café naïve", 2},       // Unicode letters
		{"जलवायु", 2},           // Devanagari vowel signs (Mc/Mn) are not \w in Python: "जलव" + "य"
		{"  spaced   out  ", 2},
		{"e.g. i.e.", 4},
	}
	for _, tt := range tests {
		if got := CountWords(tt.in); got != tt.want {
			t.Errorf("CountWords(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"blank", "  \n ", nil},
		{"no terminator", "No punctuation here", []string{"No punctuation here"}},
		{"three", "Hello world. How are you? I am fine!", []string{"Hello world.", "How are you?", "I am fine!"}},
		{"abbreviation before name", "Mr. Smith went to Washington. He arrived.", []string{"Mr. Smith went to Washington.", "He arrived."}},
		{"abbreviation before lower case", "The U.S. economy grew. Then it fell.", []string{"The U.S. economy grew.", "Then it fell."}},
		{"decimal", "It costs 3.50 dollars. That is cheap.", []string{"It costs 3.50 dollars.", "That is cheap."}},
		{"domain", "Visit example.com today. Thanks", []string{"Visit example.com today.", "Thanks"}},
		{"repeated marks", "Wait!! What?", []string{"Wait!!", "What?"}},
		{"ellipsis then lower case", "Well... maybe not.", []string{"Well... maybe not."}},
		{"ellipsis then starter", "I waited... They never came.", []string{"I waited...", "They never came."}},
		{"quote realigned", `He said "Stop." Then he left.`, []string{`He said "Stop."`, "Then he left."}},
		{"numbered list", "1. First item\n2. Second item", []string{"1.", "First item\n2.", "Second item"}},
		{"number then lower case", "Chapter 3. and then more", []string{"Chapter 3. and then more"}},
		{"newline is not a break", "line one\nline two", []string{"line one\nline two"}},
		{"period before bracket", "(See above.) Next one.", []string{"(See above.)", "Next one."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Sentences(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Sentences(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if n := CountSentences(tt.in); n != len(tt.want) {
				t.Errorf("CountSentences = %d, want %d", n, len(tt.want))
			}
		})
	}
}

func TestWordTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"I DON'T KNOW.", []string{"I", "DO", "N'T", "KNOW", "."}},
		{"I'M HERE, OK?", []string{"I", "'M", "HERE", ",", "OK", "?"}},
		{"WELL-KNOWN AI/ML (NASA)", []string{"WELL-KNOWN", "AI/ML", "(", "NASA", ")"}},
		{`"HELLO" *WORLD*`, []string{"``", "HELLO", "''", "*", "WORLD", "*"}},
		{"WAIT...WHAT", []string{"WAIT", "...", "WHAT"}},
		{"I CANNOT GO", []string{"I", "CAN", "NOT", "GO"}},
		{"A,B 1,000", []string{"A", ",", "B", "1,000"}},
	}
	for _, tt := range tests {
		if got := WordTokens(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("WordTokens(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCountWordsZh(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"你好世界", 4},
		{"你好，世界！", 4},        // punctuation is not counted
		{"我用iPhone 15拍照", 6}, // 我 用 iPhone 15 拍 照
		{"hello world", 2},   // English as in IFEval
		{"「长城」是世界奇迹。", 7},
		{"ひらがなとカタカナ", 9},
	}
	for _, tt := range tests {
		if got := CountWordsZh(tt.in); got != tt.want {
			t.Errorf("CountWordsZh(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestSentencesZh(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"今天天气很好。我们去公园吧！你来吗？", []string{"今天天气很好。", "我们去公园吧！", "你来吗？"}},
		{"真的吗？！太好了。。", []string{"真的吗？！", "太好了。。"}},
		{"他说：“我来了。”然后走了。", []string{"他说：“我来了。”", "然后走了。"}},
		{"没有句号的一句话", []string{"没有句号的一句话"}},
		{"第一行\n第二行", []string{"第一行\n第二行"}},
		{"版本3.5很好。Next sentence. 最后", []string{"版本3.5很好。", "Next sentence.", "最后"}},
		{"1. 第一点。\n2. 第二点。", []string{"1. 第一点。", "2. 第二点。"}},
		{"。。。", nil}, // punctuation alone is no sentence
		{"半角句号｡全角！", []string{"半角句号｡", "全角！"}},
	}
	for _, tt := range tests {
		got := SentencesZh(tt.in)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SentencesZh(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func BenchmarkSentences(b *testing.B) {
	text := strings.Repeat("Mr. Smith went to Washington. He arrived at 3.30 p.m. and left... Then what? ", 30)
	for range b.N {
		CountSentences(text)
	}
}

// TestSentencesOrthography: nltk's English model decides these by its
// abbreviation list, sentence starters and orthographic table; the
// expected counts are nltk.sent_tokenize's.
func TestSentencesOrthography(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"Wait... Maybe later.", 1},          // "maybe" was seen capitalised mid-sentence: no break
		{"He left... The end.", 2},           // "the" is a sentence starter
		{"Wait... maybe later.", 1},          // lower case continues the sentence
		{"We met Dr. Smith today.", 1},       // listed abbreviation before a name
		{"We met Dr. Then we left.", 1},      // "then" is no sentence starter in the model
		{"We met Dr. However we left.", 2},   // "however" is one
		{"It was 5 p.m. The train left.", 2}, // abbreviation before a starter
		{"Use e.g. apples here.", 2},         // e.g. is not an abbreviation in nltk's model
		{"Take vitamin C. It helps.", 1},     // c is a listed abbreviation: never a break
		{"Choose option A. Then go.", 2},     // initial before a word seen lower-case
		{"Written by A. Lincoln today.", 1},  // initial before a name never seen lower-case
	}
	for _, tt := range tests {
		if got := CountSentences(tt.in); got != tt.want {
			t.Errorf("CountSentences(%q) = %d (%q), want %d", tt.in, got, Sentences(tt.in), tt.want)
		}
	}
}

// TestUnicodeVersion pins the Unicode version of Go's tables: unicode14.go
// lists where Unicode 15.0 differs from Python 3.11's 14.0, and must be
// regenerated (by comparing with Python 3.11 on every code point) when Go
// moves to another version.
func TestUnicodeVersion(t *testing.T) {
	if unicode.Version != "15.0.0" {
		t.Fatalf("Go's unicode tables are %s; unicode14.go was made for 15.0.0", unicode.Version)
	}
}

// TestWordRuneUnicode14 checks characters that Unicode 15.0 made letters
// or numbers: Python 3.11's `\w` does not match them, so they split words
// (count_words of "ab𑼄cd" is 2 in Python 3.11).
func TestWordRuneUnicode14(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"ab\U00011F04cd", 2},         // Kawi letter A (15.0)
		{"ab\U00031350cd", 2},         // CJK Extension H (15.0)
		{"x \U0001E4D0\U0001E4F0", 1}, // Nag Mundari letter and digit (15.0)
		{"ab\U0002B738cd", 1},         // CJK Extension C (5.2): a word character
		{"ab\u10FCcd", 1},             // modifier letter: \w in both
		{"é_9", 1},
	} {
		if got := CountWords(c.s); got != c.want {
			t.Errorf("CountWords(%q) = %d, want %d", c.s, got, c.want)
		}
	}
	if IsLowerRune('\u10FC') || IsLower("\uA7F2") || !IsLower("ª") {
		t.Errorf("IsLowerRune: Unicode 15.0's new Other_Lowercase letters must not be lower-case, ª must")
	}
}

// TestPunktOrtho: the ortho lines of punkt_english.tsv are what orthoOf
// needs (well formed, sorted, unique), and orthoOf finds every type's
// flags and 0 for types the model lacks.
func TestPunktOrtho(t *testing.T) {
	p := englishPunkt()
	if err := checkOrthoLines(p.orthoLines); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{}
	for _, line := range strings.Split(strings.TrimSuffix(p.orthoLines, "\n"), "\n") {
		f := strings.Split(line, "\t")
		v, _ := strconv.Atoi(f[2])
		want[f[1]] = v
	}
	if len(want) != 20366 {
		t.Errorf("%d ortho types, want 20366", len(want))
	}
	for typ, v := range want {
		for _, probe := range []string{typ, typ + "x", typ[:len(typ)-1], "!" + typ, typ + "\x00"} {
			if got := p.orthoOf(probe); got != want[probe] {
				t.Fatalf("orthoOf(%q) = %d, want %d", probe, got, want[probe])
			}
		}
		if got := p.orthoOf(typ); got != v {
			t.Fatalf("orthoOf(%q) = %d, want %d", typ, got, v)
		}
	}
	for _, probe := range []string{"", "\x00", "\U0010ffff", "zzzzz"} {
		if got := p.orthoOf(probe); got != 0 {
			t.Errorf("orthoOf(%q) = %d, want 0", probe, got)
		}
	}
	for _, bad := range []string{"ortho\tb\t4\northo\ta\t4\n", "ortho\ta\t4\northo\ta\t4\n", "ortho\ta\t0\n", "abbrev\ta\n"} {
		if checkOrthoLines(bad) == nil {
			t.Errorf("checkOrthoLines(%q) accepted", bad)
		}
	}
}
