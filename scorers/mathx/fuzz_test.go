package mathx

import "testing"

// FuzzEquivalent checks that arbitrary input never panics and that every
// answer is equivalent to itself.
func FuzzEquivalent(f *testing.F) {
	for _, s := range []string{
		`\frac{1}{2}`, `\left( 3, \frac{\pi}{2} \right)`, `\boxed{`, `\frac`, `\sqrt[`, `x=`,
		`\{1,2\}`, `(1,2]`, `\begin{pmatrix}1\\2\end{pmatrix}`, `3\pm`, `|x|`, `5!`, `2^`, `.`,
		`\text{`, `1,\!000`, `$`, `\left`, `0.0`, `e^{i\pi}`, `\sqrt[3]{-8}`,
	} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		Equivalent(a, b)
		NewNumericExtractor("The answer is").Flexible(a)
		MathFlexible(b)
		if n := Normalize(a); n != "" && !Equivalent(a, a) {
			t.Errorf("%q (normalised %q) is not equivalent to itself", a, n)
		}
	})
}
