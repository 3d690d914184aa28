package results

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pocketeval/pocketeval/runtime"
)

// marshalLine is what EncodeLine promises: json.Marshal and a newline.
func marshalLine(rec *Record) ([]byte, error) {
	data, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// trickyStrings hold every class of byte appendJSONString treats apart.
var trickyStrings = []string{
	"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "\b\f\n\r\t\x00\x01\x1f\x7f",
	"naïve café 日本 😀", "\u2028 line \u2029 para", "bad \xff utf8 \xe6\x97", "\xed\xa0\x80 surrogate",
	"end\xc3", "\xe0\x80\x80 \xe0\xa0\x80 \xf4\x90\x80\x80 \xf4\x8f\xbf\xbf \xf0\x80\x80\x80 \xf0\x90\x80\x80 \xc0\x80 \xc1\xbf \xc2\x80 \xed\x9f\xbf", "\xe2\x80", "x\xe2\x80\xa8", "\xe2\x80\xa9\xe2\x80\xaa\xe2\x80\xa7", "\xf5\x80\x80\x80 \xff\xfe", strings.Repeat("long exemplar <turn> with \"quotes\"\n", 20),
}

func checkLine(t *testing.T, rec *Record, cache *StringCache) {
	t.Helper()
	want, werr := marshalLine(rec)
	got, gerr := AppendLine([]byte("prefix"), rec, cache)
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("errors differ: json %v, AppendLine %v", werr, gerr)
	}
	if werr != nil {
		if string(got) != "prefix" {
			t.Errorf("AppendLine appended %q on error", got)
		}
		return
	}
	if !bytes.Equal(got[len("prefix"):], want) {
		t.Fatalf("AppendLine differs from json.Marshal:\n got %s\nwant %s", got[len("prefix"):], want)
	}
}

// TestAppendLineMatchesMarshal: the hand-written encoder gives
// json.Marshal's bytes for every field, empty or set, and its errors.
func TestAppendLineMatchesMarshal(t *testing.T) {
	scored := "scored <text>"
	shared := strings.Repeat("The following are multiple choice questions (with answers) & more.\n", 8)
	full := Record{
		Task: "mmlu", ID: "abstract_algebra/0", Repeat: 2, Index: 17,
		Messages: []runtime.Message{
			{Role: "system", Content: "sys"},
			{Role: "user", Content: shared},
			{Role: "assistant", Content: "Answer: B", ToolCalls: []runtime.ToolCall{{ID: "c1", Name: "f", Arguments: `{"x":1}`}}},
			{Role: "tool", Content: "42", ToolCallID: "c1", Name: "f", ReasoningContent: "because"},
			{Role: "user", Content: shared},
		},
		Prompt: "raw <prompt>", RenderedPrompt: "<|im_start|>user",
		Gen:      &runtime.GenConfig{MaxTokens: 512, Temperature: 0.7, TopP: 0.95, Seed: -3, Stop: []string{"\n\n", "Q:"}},
		Loglik:   []runtime.LoglikRequest{{Context: "ctx", Continuation: " B"}},
		Response: "The answer is (B).", Scored: &scored, Thinking: "closed",
		ToolCalls:     []runtime.ToolCall{{ID: "c2", Name: "g", Arguments: `{"y":[1,2]}`}},
		RawResponse:   "<tool_call>{\"name\": \"g\"}</tool_call> & more",
		LoglikResults: []runtime.LoglikResult{{LogProb: -1.25e-7, IsGreedy: true, Tokens: 3}},
		Extracted:     "B", ExtractionFailed: true, Target: "B",
		Scores:       map[string]float64{"z": 1, "acc": 0, "b": 0.1 + 0.2, "tiny": 1e-7, "huge": 1e22, "neg": -2.5e-9, "int": 12345678901},
		Details:      map[string]any{"method": "answer_statement", "n": 3, "list": []string{"a", "<"}, "nested": map[string]any{"k": []any{1.5, true, nil}}},
		FinishReason: "length", PromptTokens: 11, CompletionTokens: 22, Error: "runtime: <boom>", Retryable: true,
		Timings: &runtime.Timings{TimeToFirstToken: time.Millisecond, Total: time.Second, PrefillTokPerSec: 12.5, DecodeTokPerSec: 3},
	}
	cache := NewStringCache()
	checkLine(t, &full, cache)
	checkLine(t, &full, cache) // the shared turn now from the cache
	checkLine(t, &Record{Task: "t", ID: "1"}, nil)
	checkLine(t, &Record{Task: "t", ID: "1", Scores: map[string]float64{}, Details: map[string]any{}, Gen: &runtime.GenConfig{}}, nil)
	checkLine(t, &Record{Task: "t", ID: "1", Gen: &runtime.GenConfig{Temperature: 1e-300}}, nil)
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		checkLine(t, &Record{Task: "t", ID: "1", Scores: map[string]float64{"x": bad}}, nil)
		checkLine(t, &Record{Task: "t", ID: "1", Gen: &runtime.GenConfig{TopP: bad}}, nil)
		checkLine(t, &Record{Task: "t", ID: "1", Details: map[string]any{"x": bad}}, nil)
	}
	for _, s := range trickyStrings {
		checkLine(t, &Record{Task: s, ID: s, Response: s, Extracted: s, Target: s, Error: s, Thinking: s, FinishReason: s, Prompt: s,
			Messages: []runtime.Message{{Role: s, Content: s}, {Role: "user", Content: s + shared}},
			Scores:   map[string]float64{s: 1}, Gen: &runtime.GenConfig{Stop: []string{s}}}, cache)
	}
}

// TestAppendLineRandom compares random records of random strings.
func TestAppendLineRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "Z", " ", "\n", "\"", "\\", "<", ">", "&", "\x00", "\x1f", "\x7f", "é", "日", "😀", "\u2028", "\u2029", "\xff", "\xe6", "\xed\xa0\x80", "\t", "\xe2", "\x80", "\xa8", "\xf0", "\x90", "\xc2", "\xe0", "\xf4", "\xed"}
	str := func() string {
		var b strings.Builder
		for n := rng.IntN(40); n > 0; n-- {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	num := func() float64 {
		switch rng.IntN(4) {
		case 0:
			return float64(rng.IntN(3))
		case 1:
			return rng.Float64()
		case 2:
			return math.Ldexp(rng.Float64(), rng.IntN(200)-100)
		}
		return -rng.NormFloat64() * 1e21
	}
	cache := NewStringCache()
	turns := []string{strings.Repeat(str()+"x", 300), strings.Repeat(str()+"y", 300)}
	for i := 0; i < 5000; i++ {
		rec := Record{Task: str(), ID: str(), Repeat: rng.IntN(3), Index: rng.IntN(1000) - 1, Response: str()}
		if rng.IntN(2) == 0 {
			rec.Messages = []runtime.Message{{Role: "user", Content: turns[rng.IntN(2)]}, {Role: str(), Content: str()}}
		}
		if rng.IntN(2) == 0 {
			rec.Scores = map[string]float64{}
			for n := rng.IntN(5); n > 0; n-- {
				rec.Scores[str()] = num()
			}
		}
		if rng.IntN(3) == 0 {
			rec.Gen = &runtime.GenConfig{MaxTokens: rng.IntN(3), Temperature: num(), TopP: num(), Seed: rng.Int64()}
		}
		if rng.IntN(3) == 0 {
			s := str()
			rec.Scored = &s
		}
		rec.Extracted, rec.Target, rec.Thinking, rec.FinishReason = str(), str(), str(), str()
		rec.ExtractionFailed, rec.Retryable = rng.IntN(2) == 0, rng.IntN(2) == 0
		rec.PromptTokens, rec.CompletionTokens = rng.IntN(3), rng.IntN(3)
		checkLine(t, &rec, cache)
	}
}

// TestAppendLineSharedTurns: records whose earlier turns are runs of
// shared strings (the same first and last turns with other middles,
// other lengths, turns that are not plain, runs long enough to make the
// cache start over) are encoded as json.Marshal encodes them, through one
// cache, time after time.
func TestAppendLineSharedTurns(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var texts []string
	for _, s := range trickyStrings {
		texts = append(texts, s, s+strings.Repeat(" shared <turn> ", 20))
	}
	roles := []string{"user", "assistant", "system"}
	var pool []runtime.Message
	for range 12 {
		pool = append(pool, runtime.Message{Role: roles[rng.IntN(3)], Content: texts[rng.IntN(len(texts))]})
	}
	for i := range 3 {
		// About 400 KB encoded each: the cache starts over.
		big := strings.Repeat("big & shared\n", 20000) + strconv.Itoa(i)
		pool[4*i+1].Content = big
		texts = append(texts, big)
	}
	pool = append(pool, runtime.Message{Role: "assistant", Content: "x", ToolCalls: []runtime.ToolCall{{ID: "c", Name: "f", Arguments: "{}"}}},
		runtime.Message{Role: "tool", Content: "42", ToolCallID: "c", Name: "f"}, runtime.Message{Role: "user", ReasoningContent: "r <"})
	cache := NewStringCache()
	for range 1000 {
		n := 1 + rng.IntN(5)
		msgs := make([]runtime.Message, n)
		// Mostly one of a few runs, so that runs recur.
		base := rng.IntN(4)
		if rng.IntN(8) == 0 {
			base = rng.IntN(len(pool))
		}
		for i := range msgs {
			msgs[i] = pool[(base+i*(1+rng.IntN(2)*rng.IntN(2)))%len(pool)]
		}
		msgs[n-1] = runtime.Message{Role: "user", Content: texts[rng.IntN(len(texts))]}
		checkLine(t, &Record{Task: "t", ID: "1", Messages: msgs, Response: "r"}, cache)
	}
}

// BenchmarkEncodeLine encodes an MMLU-shaped record (5-shot chat turns
// shared with other records, a 200-word response).
func BenchmarkEncodeLine(b *testing.B) {
	turn := strings.Repeat("Statement 1 | Every element of a group generates a cyclic subgroup.\nA. True, True\n", 4)
	msgs := []runtime.Message{{Role: "user", Content: turn}}
	for i := 0; i < 5; i++ {
		msgs = append(msgs, runtime.Message{Role: "assistant", Content: "Answer: B"}, runtime.Message{Role: "user", Content: turn})
	}
	rec := &Record{
		Task: "mmlu", ID: "abstract_algebra/0", Messages: msgs, Gen: &runtime.GenConfig{MaxTokens: 512, Seed: 1234},
		Response: strings.Repeat("a warm of naïve sat on 日本 then über ", 30), ExtractionFailed: true, Target: "B",
		Scores: map[string]float64{"acc_flexible": 0, "acc_strict": 0, "extraction_failed": 1}, FinishReason: "stop",
		Details: map[string]any{"method": "", "mode": "gen", "strict": ""},
	}
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			if _, err := marshalLine(rec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("AppendLine", func(b *testing.B) {
		cache := NewStringCache()
		var buf []byte
		for b.Loop() {
			var err error
			if buf, err = AppendLine(buf[:0], rec, cache); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzAppendJSONString: any string is escaped as encoding/json escapes it.
func FuzzAppendJSONString(f *testing.F) {
	for _, s := range trickyStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("appendJSONString(%q) = %s, json.Marshal gives %s", s, got, want)
		}
	})
}

// TestAppendJSONStringWords puts every character that needs care at
// every offset of a word-at-a-time scan, in long safe runs.
func TestAppendJSONStringWords(t *testing.T) {
	special := []string{"\"", "\\", "<", ">", "&", "\x00", "\x1f", "\x20", "\x7f", "\x80", "é", "\u2028", "\xff", "\n", "!", "[", "]", "=", "?", "%", "'", "{", "~"}
	for _, c := range special {
		for p := 0; p < 20; p++ {
			for _, tail := range []int{0, 1, 7, 8, 9, 17} {
				s := strings.Repeat("a", p) + c + strings.Repeat("B", tail) + c
				want, _ := json.Marshal(s)
				if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
					t.Fatalf("appendJSONString(%q) = %s, json.Marshal gives %s", s, got, want)
				}
			}
		}
	}
	// Every ASCII byte at every position of a word.
	for c := 0; c < 0x80; c++ {
		for p := 0; p < 8; p++ {
			b := []byte("abcdefghABCDEFGH")
			b[p] = byte(c)
			s := string(b)
			want, _ := json.Marshal(s)
			if got := appendJSONString(nil, s); !bytes.Equal(got, want) {
				t.Fatalf("appendJSONString(%q) = %s, json.Marshal gives %s", s, got, want)
			}
		}
	}
}

// BenchmarkAppendJSONString escapes a 200-word response with a few
// non-ASCII words, an English paragraph and a Chinese question (C-Eval's,
// CMMLU's).
func BenchmarkAppendJSONString(b *testing.B) {
	for name, s := range map[string]string{
		"mixed":   strings.Repeat("a warm of naïve sat on 日本 then über the mat softly and dreamed while ", 20),
		"english": strings.Repeat("Statement 1 | Every element of a group generates a cyclic subgroup of the group.\n", 20),
		"chinese": strings.Repeat("题目：在农业生产中被当作极其重要的劳动对象发挥作用，最主要的不可替代的基本生产资料是\nA. 农业生产工具\nB. 土地\n", 10),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			var buf []byte
			for b.Loop() {
				buf = appendJSONString(buf[:0], s)
			}
		})
	}
}

// checkJSONString fails t unless appendJSONString gives json.Marshal's
// bytes for s, after a prefix it must keep.
func checkJSONString(t *testing.T, s string) {
	t.Helper()
	want, _ := json.Marshal(s)
	got := appendJSONString([]byte("pre"), s)
	if string(got[:3]) != "pre" || !bytes.Equal(got[3:], want) {
		t.Fatalf("appendJSONString(%q) = %s, json.Marshal gives %s", s, got[3:], want)
	}
}

// TestAppendJSONStringClasses puts a byte of every class boundary, and
// every well-formed, ill-formed and truncated multi-byte sequence at the
// edges of its class, at every offset of the eight-byte scan, alone, in
// a run of safe ASCII, between multi-byte characters and at the end of
// the string, and every pair of such bytes in one word.
func TestAppendJSONStringClasses(t *testing.T) {
	bytesAt := []byte{
		0x00, 0x01, 0x1f, 0x20, 0x21, '"', '#', '%', '&', '\'', ';', '<', '=', '>', '?', '[', '\\', ']',
		0x7e, 0x7f, 0x80, 0x81, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe2, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
	}
	seqs := []string{
		"\xc2\x80", "\xdf\xbf", "\xc0\x80", "\xc1\xbf", // U+0080, U+07FF; overlong
		"\xe0\xa0\x80", "\xe0\x9f\xbf", "\xe0\x80\x80", // U+0800; overlong
		"\xed\x9f\xbf", "\xed\xa0\x80", "\xed\xbf\xbf", "\xee\x80\x80", "\xef\xbf\xbf", // U+D7FF; surrogates; U+E000, U+FFFF
		"\xe2\x80\xa7", "\u2028", "\u2029", "\xe2\x80\xaa", "\xe2\x81\xa8", // around U+2028 and U+2029
		"\xf0\x90\x80\x80", "\xf0\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", // U+10000; overlong; U+10FFFF; too large
		"\xe6\x97\xa5\x80", "\xc3\xa9\xa9", "\xe6\x97\xe6\x97\xa5", "\xf0\x9f\x98", // stray continuation, truncated
	}
	var pieces []string
	for _, c := range bytesAt {
		pieces = append(pieces, string([]byte{c}))
	}
	for _, q := range seqs {
		pieces = append(pieces, q)
		for k := 1; k < len(q); k++ {
			pieces = append(pieces, q[:k]) // truncated: at the end below
		}
	}
	for _, piece := range pieces {
		for p := 0; p <= 17; p++ {
			pad := strings.Repeat("a", p)
			checkJSONString(t, pad+piece)
			checkJSONString(t, pad+piece+strings.Repeat("b", 17-p))
			checkJSONString(t, pad+piece+"日本語"+piece+"ab")
			checkJSONString(t, "日本"+pad+"é"+piece+"中文"+pad)
			checkJSONString(t, strings.Repeat("日", p)+piece+"本")
			checkJSONString(t, strings.Repeat("é", p)+piece)
		}
	}
	// Every pair of class bytes in one sixteen-byte window, so that one
	// byte's borrow in the word test can reach the other.
	w := []byte("abcdefghABCDEFGHijklmnop")
	for _, c1 := range bytesAt {
		for _, c2 := range bytesAt {
			for p := 0; p < 8; p++ {
				for q := p + 1; q < p+9; q++ {
					b := slices.Clone(w)
					b[p], b[q] = c1, c2
					checkJSONString(t, string(b))
				}
			}
		}
	}
}

// TestUnsafeBytes checks the word test against encoding/json's own
// verdict on each byte: for any two bytes at any two places among safe
// ones, the mask is zero when both are safe, and its lowest set bit is
// the high bit of the first unsafe byte.
func TestUnsafeBytes(t *testing.T) {
	var safe [256]bool
	for c := 0; c < 0x80; c++ {
		got, _ := json.Marshal(string([]byte{byte(c)}))
		safe[c] = string(got) == `"`+string([]byte{byte(c)})+`"`
	}
	for _, fill := range []byte{'a', ' ', '~', 0x7f, '!'} {
		for c1 := 0; c1 < 256; c1++ {
			for c2 := 0; c2 < 256; c2++ {
				for p := 0; p < 8; p++ {
					for q := p + 1; q < 8; q++ {
						var b [8]byte
						for k := range b {
							b[k] = fill
						}
						b[p], b[q] = byte(c1), byte(c2)
						first := 8
						for k := range b {
							if !safe[b[k]] {
								first = k
								break
							}
						}
						m := unsafeBytes(binary.LittleEndian.Uint64(b[:]))
						if first == 8 && m != 0 || first < 8 && (m == 0 || bits.TrailingZeros64(m) != 8*first+7) {
							t.Fatalf("unsafeBytes(% x) = %#x, first unsafe byte %d", b, m, first)
						}
					}
				}
			}
		}
	}
}
