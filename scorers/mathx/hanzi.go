package mathx

import (
	"strconv"

	"github.com/pocketeval/pocketeval/internal/lazyre"
)

// hanziAfterCue matches a number written in Chinese numerals right after a
// Chinese answer cue ("答案是十八"). Elsewhere numerals are left alone:
// 一 in 一共 or 一半 is not an answer.
var hanziAfterCue = lazyre.New(`(答案是|答案为|答案[:：]|最终答案是|最终答案为|最终答案[:：])(\s*)([零〇一二两三四五六七八九十百千万亿]+)`)

var hanziDigits = map[rune]int64{'零': 0, '〇': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}

var hanziUnits = map[rune]int64{'十': 10, '百': 100, '千': 1000}

// parseHanzi converts a Chinese numeral ("十八", "一百零五", "三万两千",
// "一二三" digit by digit) to an integer.
func parseHanzi(s string) (int64, bool) {
	runes := []rune(s)
	hasUnit := false
	for _, r := range runes {
		if _, ok := hanziDigits[r]; !ok {
			hasUnit = true
		}
	}
	if !hasUnit { // digit by digit: 一二三 = 123
		var n int64
		for _, r := range runes {
			n = n*10 + hanziDigits[r]
		}
		return n, len(runes) > 0
	}
	var total, section, digit int64
	seenDigit := false
	for _, r := range runes {
		if d, ok := hanziDigits[r]; ok {
			digit, seenDigit = d, true
			continue
		}
		if u, ok := hanziUnits[r]; ok {
			if !seenDigit {
				digit = 1 // 十八 = 18
			}
			section += digit * u
			digit, seenDigit = 0, false
			continue
		}
		var big int64 = 10000
		if r == '亿' {
			big = 100000000
		}
		section += digit
		total = (total + section) * big
		section, digit, seenDigit = 0, 0, false
	}
	return total + section + digit, true
}

// hanziToDigits rewrites a Chinese-numeral answer after a Chinese cue in
// Arabic digits.
func hanziToDigits(s string) string {
	return hanziAfterCue.ReplaceAllStringFunc(s, func(m string) string {
		sub := hanziAfterCue.FindStringSubmatch(m)
		n, ok := parseHanzi(sub[3])
		if !ok {
			return m
		}
		return sub[1] + sub[2] + strconv.FormatInt(n, 10)
	})
}
