package textstats

import "unicode"

// The reference interpreter of the official IFEval scorer here is Python
// 3.11, whose unicodedata is Unicode 14.0; Go's unicode tables are 15.0
// (TestUnicodeVersion pins that). The two disagree on the code points
// below, found by comparing Python 3.11's `\w` and str.islower() with
// IsWordRune and IsLowerRune on every code point (str.isupper(),
// str.isspace() and str.lower() agree everywhere).

// newIn15Word holds the characters Unicode 15.0 made letters or numbers
// (Kawi, Nag Mundari, CJK Extension H, Cyrillic modifier letters...):
// Python 3.11's `\w` does not match them.
var newIn15Word = &unicode.RangeTable{
	R16: []unicode.Range16{},
	R32: []unicode.Range32{
		{Lo: 0x1123f, Hi: 0x11240, Stride: 1},
		{Lo: 0x11f02, Hi: 0x11f02, Stride: 1},
		{Lo: 0x11f04, Hi: 0x11f10, Stride: 1},
		{Lo: 0x11f12, Hi: 0x11f33, Stride: 1},
		{Lo: 0x11f50, Hi: 0x11f59, Stride: 1},
		{Lo: 0x1342f, Hi: 0x1342f, Stride: 1},
		{Lo: 0x13441, Hi: 0x13446, Stride: 1},
		{Lo: 0x1b132, Hi: 0x1b132, Stride: 1},
		{Lo: 0x1b155, Hi: 0x1b155, Stride: 1},
		{Lo: 0x1d2c0, Hi: 0x1d2d3, Stride: 1},
		{Lo: 0x1df25, Hi: 0x1df2a, Stride: 1},
		{Lo: 0x1e030, Hi: 0x1e06d, Stride: 1},
		{Lo: 0x1e4d0, Hi: 0x1e4eb, Stride: 1},
		{Lo: 0x1e4f0, Hi: 0x1e4f9, Stride: 1},
		{Lo: 0x2b739, Hi: 0x2b739, Stride: 1},
		{Lo: 0x31350, Hi: 0x323af, Stride: 1},
	},
}

// newIn15Lower holds the characters that are Lowercase in Unicode 15.0 but
// not in 14.0: modifier letters given Other_Lowercase in 15.0 (ჼ, ꟲ–ꟴ, ꭩ)
// and the new lowercase letters of 1DF25–1DF2A and 1E030–1E06D.
var newIn15Lower = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x10fc, Hi: 0x10fc, Stride: 1},
		{Lo: 0xa7f2, Hi: 0xa7f4, Stride: 1},
		{Lo: 0xab69, Hi: 0xab69, Stride: 1},
	},
	R32: []unicode.Range32{
		{Lo: 0x1df25, Hi: 0x1df2a, Stride: 1},
		{Lo: 0x1e030, Hi: 0x1e06d, Stride: 1},
	},
}
