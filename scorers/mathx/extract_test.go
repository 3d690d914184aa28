package mathx

import "testing"

func TestNumericExtractor(t *testing.T) {
	t.Parallel()
	en := NewNumericExtractor("The answer is", "The final answer is")
	last := en.StrictLastCue()
	gsm := NewNumericExtractor("The final answer is", "The answer is").StrictLastCue()
	zh := NewNumericExtractor("答案是")
	tests := []struct {
		name         string
		ex           *NumericExtractor
		response     string
		strict, flex string // "" means extraction fails
		flexMethod   string
	}{
		{"hash", en, "16-3-4=9 eggs, 9*2=18.\n#### 18", "18", "18", MethodHash},
		{"answer is", en, "So she makes $18 a day. The answer is 18.", "18", "18", MethodCue},
		{"answer is dollars", en, "The answer is $1,200.", "1200", "1200", MethodCue},
		{"final answer bold", en, "**The final answer is: 42**", "42", "42", MethodCue},
		{"strict takes first", en, "The answer is 5. Wait, the answer is 6.", "5", "6", MethodCue},
		{"strict last cue", last, "The final answer is 5. Wait, the final answer is 6.", "6", "6", MethodCue},
		{"strict last cue, first cue first", last, "The answer is 5. Wait, the answer is 6. So 7.", "6", "6", MethodCue},
		{"strict last cue in cue order", gsm, "The answer is 4. The final answer is 5. So the answer is 6.", "5", "6", MethodCue},
		{"strict last cue, later cue absent", gsm, "The answer is 4. So the answer is 6.", "6", "6", MethodCue},
		{"strict last cue, hash first", last, "#### 4\nThe final answer is 5. #### 6", "4", "6", MethodHash},
		{"strict last cue, none", last, "She makes 18 dollars.", "", "18", MethodLastNumber},
		{"no cue", en, "She makes 9 * 2 = 18 dollars.", "", "18", MethodLastNumber},
		{"trailing zeros", en, "The answer is 18.00", "18", "18", MethodCue},
		{"negative", en, "The answer is -3.", "-3", "-3", MethodCue},
		{"dash is not minus", en, "pages 3-4 cost 7", "", "7", MethodLastNumber},
		{"openai A: style", en, "He makes 80,000+50,000=$<<80000+50000=130000>>130,000\nA: 90,000", "", "90000", MethodCue},
		{"calculator annotation only", en, "So 2 * 0.5 = <<2*0.5=1.0>>1.0 bolts", "", "1", MethodLastNumber},
		{"boxed preferred", en, "The answer is 17. Actually \\boxed{18}", "17", "18", MethodBoxed},
		{"boxed with text", en, "\\boxed{18 \\text{ dollars}}", "", "18", MethodBoxed},
		{"boxed fraction", en, "\\boxed{\\frac{1}{2}}", "", "0.5", MethodBoxed},
		{"boxed mixed number", en, "\\boxed{2\\frac{1}{2}}", "", "2.5", MethodBoxed},
		{"boxed equation", en, "\\boxed{3 \\times 6 = 18}", "", "18", MethodBoxed},
		{"boxed zh unit", zh, "\\boxed{18\\text{ 元}}", "", "18", MethodBoxed},
		{"boxed dollar", en, "\\boxed{\\$1{,}000}", "", "1000", MethodBoxed},
		{"lone think close", en, "Let me compute 5+5=10, maybe 11.</think>\n\\boxed{12}", "", "12", MethodBoxed},
		{"lone think close, cue", en, "thinking 99 </think> The answer is 7", "7", "7", MethodCue},
		{"unclosed think", en, "<think>compute 3+4=7", "", "7", MethodLastNumber},
		{"zh cue", zh, "所以她每天赚 18 美元。答案是 18。", "18", "18", MethodCue},
		{"zh full-width", zh, "答案是：１８元", "18", "18", MethodCue},
		{"zh thousands", zh, "答案是 70，000 美元。", "70000", "70000", MethodCue},
		{"zh unit", zh, "一共需要 3 匹布料", "", "3", MethodLastNumber},
		{"zh generic final", zh, "最终答案：25个", "", "25", MethodCue},
		{"zh think boxed", zh, "嗯，先算 16-3-4=9，9×2=18。</think>\n\n每天赚 $\\boxed{18}$ 美元。", "", "18", MethodBoxed},
		{"narrow no-break thousands", en, "The answer is 1\u202f000.", "1000", "1000", MethodCue},
		{"echoed label is not a cue", en, "Step-by-Step Answer: Janet has 16 eggs, eats 3 and bakes 4, leaving 9, worth 18 dollars", "", "18", MethodLastNumber},
		{"answer line", en, "16-3-4=9\n**Answer:** 18 dollars\nCheck: 9*2", "", "18", MethodCue},
		{"zh numerals after cue", zh, "她一共卖了九个蛋，所以答案是十八。", "18", "18", MethodCue},
		{"zh numerals not elsewhere", zh, "一共有 7 个，一半是", "", "7", MethodLastNumber},
		{"nothing", en, "I don't know.", "", "", ""},
		{"empty", en, "", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.ex.Strict(tt.response)
			if s.OK != (tt.strict != "") || s.Answer != tt.strict {
				t.Errorf("Strict = %q (ok=%v), want %q", s.Answer, s.OK, tt.strict)
			}
			f := tt.ex.Flexible(tt.response)
			if f.OK != (tt.flex != "") || f.Answer != tt.flex {
				t.Errorf("Flexible = %q (ok=%v), want %q", f.Answer, f.OK, tt.flex)
			}
			if f.Method != tt.flexMethod {
				t.Errorf("Flexible method = %q, want %q", f.Method, tt.flexMethod)
			}
		})
	}
}

func TestParseNumber(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"18", "18"}, {"$18", "18"}, {"1,234,567", "1234567"}, {"18.0", "18"},
		{"18.50", "18.5"}, {"-5", "-5"}, {"−5", "-5"}, {"１２", "12"}, {"3/4", "0.75"},
		{"1/3", "1/3"}, {"25%", "25"}, {"5元", "5"}, {".5", "0.5"}, {"\\$7", "7"},
	}
	for _, tt := range tests {
		n, ok := ParseNumber(tt.in)
		if !ok || n.String() != tt.want {
			t.Errorf("ParseNumber(%q) = %q, %v; want %q", tt.in, n.String(), ok, tt.want)
		}
	}
	if _, ok := ParseNumber("none"); ok {
		t.Error(`ParseNumber("none") succeeded`)
	}
	a, _ := ParseNumber("2")
	b, _ := ParseNumber("2.000")
	c, _ := ParseNumber("3")
	big1, _ := ParseNumber("11111111100")
	big2, _ := ParseNumber("11111111101")
	if !a.Equal(b) || a.Equal(c) || big1.Equal(big2) {
		t.Error("Number.Equal is wrong")
	}
}

func TestLastBoxed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{`\boxed{5}`, "5", true},
		{`a \boxed{1} b \boxed{\frac{1}{2}}`, `\frac{1}{2}`, true},
		{`\fbox{x+1}`, "x+1", true},
		{`\boxed 7.`, "7", true},
		{`\boxed{\{1,2\}}`, `\{1,2\}`, true},
		{`\boxed{unterminated`, "", false},
		{`\boxed{1} then \boxed{2`, "1", true},
		{`\boxedx{3}`, "", false},
		{`nothing`, "", false},
	}
	for _, tt := range tests {
		got, ok := LastBoxed(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("LastBoxed(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMathExtraction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, response, strict, flex, method string
	}{
		{"boxed", `So $x=3$. Therefore $\boxed{\frac{1}{2}}$.`, `\frac{1}{2}`, `\frac{1}{2}`, MethodBoxed},
		{"nested boxed", `\boxed{\left( 3, \frac{\pi}{2} \right)}`, `\left( 3, \frac{\pi}{2} \right)`, `\left( 3, \frac{\pi}{2} \right)`, MethodBoxed},
		{"minerva", "Final Answer: The final answer is $\\frac{3}{4}$. I hope it is correct.", "", `\frac{3}{4}`, MethodCue},
		{"answer is prose", "Thus the answer is 12 cm.", "", "12 cm", MethodCue},
		{"last math", `We get $y = 7$ in the end`, "", "7", MethodLastMath},
		{"last number", "it is 42", "", "42", MethodLastNumber},
		{"lone think", `hmm \boxed{1} </think> \boxed{2}`, "2", "2", MethodBoxed},
		{"think fallback", `<think>the result is \boxed{5}`, "", "5", MethodBoxed},
		{"none", "no idea", "", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MathStrict(tt.response)
			if s.Text != tt.strict || s.OK != (tt.strict != "") {
				t.Errorf("MathStrict = %q, %v; want %q", s.Text, s.OK, tt.strict)
			}
			f := MathFlexible(tt.response)
			if f.Text != tt.flex || f.OK != (tt.flex != "") || f.Method != tt.method {
				t.Errorf("MathFlexible = %q (%s), %v; want %q (%s)", f.Text, f.Method, f.OK, tt.flex, tt.method)
			}
		})
	}
}

func TestParseHanzi(t *testing.T) {
	t.Parallel()
	tests := map[string]int64{
		"十八": 18, "十": 10, "二十": 20, "一百零五": 105, "三千两百": 3200, "七万": 70000,
		"三万两千五百": 32500, "一二三": 123, "零": 0, "一亿零五": 100000005, "两百五十": 250,
	}
	for in, want := range tests {
		if got, ok := parseHanzi(in); !ok || got != want {
			t.Errorf("parseHanzi(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
}
