package mathx

import "testing"

func TestEquivalent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		gold, cand string
		want       bool
	}{
		// Fractions in every spelling.
		{`\frac{1}{2}`, `\dfrac{1}{2}`, true},
		{`\frac{1}{2}`, `\tfrac12`, true},
		{`\frac{1}{2}`, `1/2`, true},
		{`\frac{1}{2}`, `0.5`, true},
		{`\frac{1}{2}`, `.5`, true},
		{`\frac{1}{2}`, `\frac{2}{4}`, true},
		{`\frac{1}{2}`, `\frac{1}{3}`, false},
		{`\frac{1}{3}`, `0.333`, false},
		{`-\frac{3}{4}`, `\frac{-3}{4}`, true},
		{`-\frac{3}{4}`, `\frac{3}{4}`, false},
		{`\frac{7}{2}`, `3\frac{1}{2}`, true},
		{`\frac{\sqrt{3}}{3}`, `\frac{1}{\sqrt{3}}`, true},
		{`\frac{\sqrt{3}}{3}`, `\frac{\sqrt{3}}{2}`, false},
		// Roots and pi.
		{`2\sqrt{3}`, `2\sqrt3`, true},
		{`2\sqrt{3}`, `\sqrt{12}`, true},
		{`2\sqrt{3}`, `3\sqrt{2}`, false},
		{`\sqrt[3]{-8}`, `-2`, true},
		{`3\pi`, `3 \pi`, true},
		{`3\pi`, `\pi \cdot 3`, true},
		{`3\pi`, `3`, false},
		{`\frac{\pi}{2}`, `\pi/2`, true},
		// Spacing, \left/\right, thin spaces, delimiters.
		{`\left( 3, \frac{\pi}{2} \right)`, `(3,\frac{\pi}{2})`, true},
		{`\left( 3, \frac{\pi}{2} \right)`, `(3, \pi/2)`, true},
		{`\left( 3, \frac{\pi}{2} \right)`, `(\frac{\pi}{2}, 3)`, false},
		{`\left( 3, \frac{\pi}{2} \right)`, `[3, \frac{\pi}{2}]`, false},
		{`10`, `$10$`, true},
		{`10`, `\(10\)`, true},
		{`1\!000`, `1000`, true},
		{`10,\!080`, `10080`, true},
		{`10{,}080`, `10,080`, true},
		// Units, degrees, percent, dollars.
		{`90^\circ`, `90`, true},
		{`90^{\circ}`, `90°`, true},
		{`90^\circ`, `89^\circ`, false},
		{`20\%`, `20`, true},
		{`\$32`, `32`, true},
		{`\$32.50`, `32.5`, true},
		{`5 \text{ cm}`, `5`, true},
		{`5\text{ cm}^2`, `5`, true},
		{`12 \mbox{ inches}`, `12`, true},
		{`12`, `12 inches`, true},
		{`12`, `13 inches`, false},
		// Decimals and trailing zeros.
		{`2.5`, `2.50`, true},
		{`3`, `3.0`, true},
		{`3`, `3.00`, true},
		{`0.25`, `\frac14`, true},
		{`1.5`, `1.05`, false},
		// Variable prefixes and equations.
		{`5`, `x = 5`, true},
		{`5`, `x=6`, false},
		{`y = 2x + 3`, `y=2x+3`, true},
		{`y = 2x + 3`, `2x + 3`, true},
		{`y = 2x + 3`, `y = 3 + 2x`, true},
		{`y = 2x + 3`, `y = 2x - 3`, false},
		{`x^2+7x+10`, `x^2 + 7x + 10`, true},
		{`x^2+7x+10`, `10 + 7x + x^2`, true},
		{`x^2+7x+10`, `x^2+7x+11`, false},
		{`x^2+7x+10`, `y^2+7y+10`, false},
		// Intervals: brackets matter.
		{`(-\infty, 3]`, `(-\infty,3]`, true},
		{`(-\infty, 3]`, `\left(-\infty, 3\right]`, true},
		{`(-\infty, 3]`, `(-\infty, 3)`, false},
		{`[2, 5)`, `(2, 5]`, false},
		{`[2, 5)`, `x \in [2,5)`, true},
		{`(-\infty,1)\cup(2,\infty)`, `(2,\infty)\cup(-\infty,1)`, true},
		{`(-\infty,1)\cup(2,\infty)`, `(-\infty,1]\cup(2,\infty)`, false},
		// Lists and sets: order free; tuples: order fixed.
		{`1, 2, 3`, `3, 1, 2`, true},
		{`1, 2, 3`, `1, 2`, false},
		{`-2, 1`, `1,-2`, true},
		{`-2, 1`, `x = 1, x = -2`, true},
		{`-2, 1`, `x = 1, x = 2`, false},
		{`\frac{3}{2}`, `1 \frac{1}{2}`, true},
		{`\left( -\frac{1}{2}, \frac{3}{2} \right)`, `(-0.5, 1.5)`, true},
		{`\{1, 2\}`, `\{2, 1\}`, true},
		{`\{1, 2\}`, `\{1, 3\}`, false},
		{`(1, 2)`, `(2, 1)`, false},
		{`(1,2,3)`, `(1,2)`, false},
		// Matrices and vectors.
		{`\begin{pmatrix} 1 \\ 2 \end{pmatrix}`, `\begin{bmatrix}1\\2\end{bmatrix}`, true},
		{`\begin{pmatrix} 1 & 0 \\ 0 & 1 \end{pmatrix}`, `\begin{pmatrix}1&0\\0&1\end{pmatrix}`, true},
		{`\begin{pmatrix} 1/2 \\ 2 \end{pmatrix}`, `\begin{pmatrix} 0.5 \\ 2 \end{pmatrix}`, true},
		{`\begin{pmatrix} 1 \\ 2 \end{pmatrix}`, `\begin{pmatrix} 1 \\ -2 \end{pmatrix}`, false},
		{`\begin{pmatrix} -1/3 \\ 2/3 \\ 5/3 \end{pmatrix}`, `\left(-\frac13, \frac23, \frac53\right)`, true},
		{`\begin{pmatrix} -1/3 \\ 2/3 \\ 5/3 \end{pmatrix}`, `(-\frac13, \frac23)`, false},
		{`\begin{pmatrix} -1/3 \\ 2/3 \\ 5/3 \end{pmatrix}`, `[-\frac13, \frac23, \frac53]`, false},
		// Text answers, choices, bases.
		{`\text{Evelyn}`, `Evelyn`, true},
		{`\text{Evelyn}`, `evelyn`, true},
		{`\text{Evelyn}`, `Devon`, false},
		{`\text{(C)}`, `(C)`, true},
		{`\text{(C)}`, `C`, true},
		{`\text{(C)}`, `D`, false},
		{`1011_2`, `1011_{2}`, true},
		{`1011_2`, `1011`, true},
		{`1011_2`, `1001_2`, false},
		// Complex numbers, signs, digits.
		{`2+3i`, `3i+2`, true},
		{`2+3i`, `2-3i`, false},
		{`-7`, `-7`, true},
		{`-7`, `7`, false},
		{`1728`, `1729`, false},
		{`11111111100`, `11111111101`, false},
		{`2^{40}`, `1099511627777`, false},
		{`2^{40}`, `1099511627776`, true},
		{`0.1234567891`, `0.1234567892`, false},
		{`\frac{1}{3}`, `0.3333333333`, false},
		{`10\%`, `10 percent`, true},
		{`\infty`, `\infty`, true},
		// Plain-text math and Unicode.
		{`5\sqrt{2}`, `5 sqrt(2)`, true},
		{`5\sqrt{2}`, `5√2`, true},
		{`\frac{\pi}{2}`, `pi/2`, true},
		{`(-\infty, 3]`, `(-inf, 3]`, true},
		{`(-\infty, 3]`, `(-infinity, 3)`, false},
		{`(0,9) \cup (9,36)`, `(0,9) U (9,36)`, true},
		{`x^2+1`, `x²+1`, true},
		{`1, 2, 3`, `1, 2 and 3`, true},
		{`1, 2, 3`, `1 and 2`, false},
		{`\{1, 2\}`, `{2, 1}`, true},
		{`\text{(C)}`, `(c)`, true},
		{`\binom{5}{2}`, `10`, true},
		{`\dbinom{6}{3}`, `\binom{6}{3}`, true},
		{`\binom{5}{2}`, `20`, false},
		{`\begin{pmatrix} 1 & 2 \end{pmatrix}`, `(1, 2)`, true},
		{`\sqrt{-2}`, `i\sqrt{2}`, true},
		{`5`, `five`, true},
		{`5`, `Five`, true},
		{`5`, `six`, false},
		{``, ``, false},
		{`5`, ``, false},
	}
	for _, tt := range tests {
		if got := Equivalent(tt.gold, tt.cand); got != tt.want {
			t.Errorf("Equivalent(%q, %q) = %v, want %v (normalised %q vs %q)",
				tt.gold, tt.cand, got, tt.want, Normalize(tt.gold), Normalize(tt.cand))
		}
	}
	if len(tests) < 60 {
		t.Fatalf("only %d cases; the table must stay at 60 or more", len(tests))
	}
}

func TestEquivalentPlusMinusAndThousands(t *testing.T) {
	t.Parallel()
	check := func(gold, cand string, want bool) {
		t.Helper()
		if got := Equivalent(gold, cand); got != want {
			t.Errorf("Equivalent(%q, %q) = %v, want %v", gold, cand, got, want)
		}
	}
	check(`3 \pm 2 \sqrt{2}`, `3+2\sqrt{2}, 3-2\sqrt{2}`, true)
	check(`3 \pm 2 \sqrt{2}`, `3 \pm 2\sqrt2`, true)
	check(`3 \pm 2 \sqrt{2}`, `3+2\sqrt{2}`, false)
	check(`\{1\pm\sqrt{5},-2\}`, `-2, 1+\sqrt5, 1-\sqrt5`, true)
	check(`\{1\pm\sqrt{5},-2\}`, `1+\sqrt5, 1-\sqrt5`, false)
	check(`11,\! 111,\! 111,\! 100`, `11111111100`, true)
	check(`11,\! 111,\! 111,\! 100`, `11,111,111,100`, true)
	check(`11,\! 111,\! 111,\! 100`, `11111111000`, false)
	check(`\$32,\!348`, `32348`, true)
	check(`5x - 7y + 11z + 4 = 0`, `5x-7y+11z+4=0`, true)
	check(`5x - 7y + 11z + 4 = 0`, `5x-7y+11z-4=0`, false)
}
