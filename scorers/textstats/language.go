package textstats

import (
	"errors"
	"math"
	"regexp"
	"strings"
	"unicode"

	"github.com/abadojack/whatlanggo"
)

// ErrNoFeatures is returned by DetectLanguage for text without any letter;
// langdetect raises LangDetectException ("No features in text") there, and
// IFEval counts such an instruction as followed.
var ErrNoFeatures = errors.New("detect language: no features in text")

// langdetectCodes are the 55 languages langdetect knows, as it names them.
var langdetectCodes = setOf(`af ar bg bn ca cs cy da de el en es et fa fi fr gu he hi hr hu
	id it ja kn ko lt lv mk ml mr ne nl no pa pl pt ro ru sk sl so sq sv sw ta te th tl tr uk
	ur vi zh-cn zh-tw`)

// fromISO6393 maps whatlanggo's ISO 639-3 codes to langdetect's codes where
// ISO 639-1 has none or langdetect spells it differently.
var fromISO6393 = map[string]string{
	"pes": "fa", "arb": "ar", "nob": "no", "nno": "no", "tgl": "tl", "cmn": "zh-cn",
	"heb": "he", "ydd": "yi",
}

func langCode(l whatlanggo.Lang) string {
	if c, ok := fromISO6393[l.Iso6393()]; ok {
		return c
	}
	return l.Iso6391()
}

// detectorOptions restricts whatlanggo to the languages langdetect can
// answer, so that a verdict "is this X?" is taken among the same
// candidates as the official scorer's.
var detectorOptions = func() whatlanggo.Options {
	wl := map[whatlanggo.Lang]bool{}
	for code := range whatlanggo.Langs {
		if langdetectCodes[langCode(code)] {
			wl[code] = true
		}
	}
	return whatlanggo.Options{Whitelist: wl}
}()

var (
	urlRE  = regexp.MustCompile(`https?://[-_.?&~;+=/#0-9A-Za-z]+`)
	mailRE = regexp.MustCompile(`[-_.0-9A-Za-z]+@[-_0-9A-Za-z]+[-_.0-9A-Za-z]+`)
)

// DetectLanguage identifies the language of s and names it as langdetect
// does ("en", "hi", "zh-cn", "zh-tw", ...). Like langdetect it ignores URLs
// and e-mail addresses and fails with ErrNoFeatures when no letter is left.
//
// Identification is deterministic: whatlanggo's trigram models restricted to
// langdetect's 55 languages, plus two rules of pocketeval's own for what
// whatlanggo lacks: Swahili (by its function words) and the simplified /
// traditional split of Chinese (by characters that exist in only one of
// the two scripts).
func DetectLanguage(s string) (string, error) {
	s = urlRE.ReplaceAllString(s, " ")
	s = mailRE.ReplaceAllString(s, " ")
	latin, letters := 0, 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if unicode.Is(unicode.Latin, r) {
				latin++
			}
		}
	}
	if letters == 0 {
		return "", ErrNoFeatures
	}
	mostlyLatin := latin*2 > letters
	if mostlyLatin && IsUpper(s) {
		// langdetect sees only the first letter of an all-capitals word, so
		// an all-capitals text is English exactly when its initials look
		// English; otherwise it names another language.
		// Initials alone do not identify any other language either:
		// "und" (undetermined).
		if capsLookEnglish(s) {
			return "en", nil
		}
		return "und", nil
	}
	if latin*10 >= letters*9 && plainEnglish(s) {
		return "en", nil
	}
	info := stableDetect(s, detectorOptions.Whitelist)
	code := langCode(info.Lang)
	if info.Script == unicode.Latin && isSwahili(s) {
		return "sw", nil
	}
	if info.Script == unicode.Latin && code != "en" && !info.IsReliable() && englishRunnerUp(s, info.Lang) {
		return "en", nil
	}
	if code == "zh-cn" && traditionalChinese(s) {
		return "zh-tw", nil
	}
	if code == "" {
		return "", ErrNoFeatures
	}
	return code, nil
}

// plainEnglish is the fast path for ordinary English prose: at least five
// words of which a quarter or more are among the most frequent English
// function words (no other language's text comes near that share).
func plainEnglish(s string) bool {
	n, fw := 0, 0
	in := false
	start := 0
	for i, r := range s {
		w := IsWordRune(r)
		if w && !in {
			start = i
		}
		if !w && in {
			n++
			if englishFunctionWords[strings.ToLower(s[start:i])] {
				fw++
			}
		}
		in = w
	}
	if in {
		n++
		if englishFunctionWords[strings.ToLower(s[start:])] {
			fw++
		}
	}
	return n >= 5 && fw*4 >= n
}

// swahiliFunctionWords are frequent Swahili grammatical words.
var swahiliFunctionWords = setOf(`na ya wa kwa ni za la katika kuwa hii hiyo huu hizi
	yake wake cha vya pia sana au lakini kama si hata tu huo hizo yako wangu yangu nini
	kwamba zaidi baada kabla ili hivyo mimi wewe yeye sisi ninyi wao nyingi kubwa moja
	mbili vizuri habari asante ndiyo hapana kwenye hadi bila tena sasa kila wote wengi`)

// englishFunctionWords are frequent English grammatical words, to keep
// English with a few Swahili-looking tokens English.
var englishFunctionWords = setOf(`the of and to in is that it for on with as was be by
	this are or from at an but not have has you your we they he she his her their our
	a i my me so if all will can do about who what which there been were would its them
	into more when than then these those our us him no just one also how each`)

func isSwahili(s string) bool {
	words := Words(strings.ToLower(s))
	if len(words) < 3 {
		return false
	}
	sw, en := 0, 0
	for _, w := range words {
		if swahiliFunctionWords[w] {
			sw++
		}
		if englishFunctionWords[w] {
			en++
		}
	}
	return sw*100 >= 15*len(words) && sw > 2*en
}

// Characters used (almost) only in traditional or only in simplified
// Chinese: the common ones that differ between the two scripts.
const (
	traditionalOnly = "們個這來時為說國會對學後發經與過麼於裡開點長問還現關動實體當種從樣進機電話見頭書將應處爾區變產義氣麗灣總讓認識語覺寫聽買賣師歲車東華愛業門間題號無萬東邊廣員報場隊條紅綠藍議論請謝職視覽歡樂陽陰雲飛鳥魚馬龍"
	simplifiedOnly  = "们个这来时为说国会对学后发经与过么于里开点长问还现关动实体当种从样进机电话见头书将应处尔区变产义气丽湾总让认识语觉写听买卖师岁车东华爱业门间题号无万东边广员报场队条红绿蓝议论请谢职视览欢乐阳阴云飞鸟鱼马龙"
)

func traditionalChinese(s string) bool {
	trad, simp := 0, 0
	for _, r := range s {
		if strings.ContainsRune(traditionalOnly, r) {
			trad++
		} else if strings.ContainsRune(simplifiedOnly, r) {
			simp++
		}
	}
	return trad > simp
}

// englishInitials is the approximate share of English words beginning with
// each letter (general English text).
var englishInitials = map[rune]float64{
	'a': .117, 'b': .044, 'c': .052, 'd': .032, 'e': .028, 'f': .040, 'g': .016,
	'h': .042, 'i': .070, 'j': .005, 'k': .006, 'l': .024, 'm': .038, 'n': .023,
	'o': .076, 'p': .040, 'q': .002, 'r': .028, 's': .078, 't': .160, 'u': .012,
	'v': .008, 'w': .055, 'x': .0005, 'y': .008, 'z': .0005,
}

// capsLookEnglish decides English for text written in capitals. langdetect
// drops every character n-gram of a word after its second capital letter,
// so an all-capitals text is identified by its words' initial letters only.
// pocketeval models that: the initials must be at least two and more likely
// under English word-initial letter frequencies than under a uniform choice
// of letter (a list of names A–Z, or a single word, is not English).
func capsLookEnglish(s string) bool {
	var initials []rune
	in := false
	for _, r := range s {
		isLetter := r < 0x80 && unicode.IsLetter(r)
		if isLetter && !in {
			initials = append(initials, unicode.ToLower(r))
		}
		in = isLetter
	}
	if len(initials) < 2 {
		return false
	}
	llEnglish, llUniform := 0.0, 0.0
	for _, r := range initials {
		llEnglish += math.Log(englishInitials[r])
		llUniform += math.Log(1.0 / 26)
	}
	return llEnglish > llUniform
}

// englishRunnerUp reports whether English is among the next two candidates
// after best. On short Latin-script text (a title, a haiku) the trigram
// model is unreliable, and langdetect, whose English profile is the richest,
// settles on English in such cases far more often.
func englishRunnerUp(s string, best whatlanggo.Lang) bool {
	wl := map[whatlanggo.Lang]bool{}
	for l := range detectorOptions.Whitelist {
		if l != best {
			wl[l] = true
		}
	}
	for range 2 {
		next := stableDetect(s, wl).Lang
		if next == whatlanggo.Eng {
			return true
		}
		if next < 0 {
			return false
		}
		delete(wl, next)
	}
	return false
}

// stableDetect is whatlanggo's detection among the languages of wl made
// deterministic. whatlanggo ranks languages in map order, so two languages
// at the same trigram distance come out in either order from run to run; a
// tie shows as confidence 0. stableDetect then collects every language tied
// for first place and returns the one with the smallest ISO 639-3 code.
func stableDetect(s string, wl map[whatlanggo.Lang]bool) whatlanggo.Info {
	info := whatlanggo.DetectWithOptions(s, whatlanggo.Options{Whitelist: wl})
	if info.Lang < 0 || info.Confidence != 0 || len(wl) < 2 {
		return info
	}
	tied := []whatlanggo.Lang{info.Lang}
	rest := map[whatlanggo.Lang]bool{}
	for l := range wl {
		if l != info.Lang {
			rest[l] = true
		}
	}
	for len(rest) > 0 {
		next := whatlanggo.DetectWithOptions(s, whatlanggo.Options{Whitelist: rest}).Lang
		if next < 0 {
			break
		}
		pair := whatlanggo.DetectWithOptions(s, whatlanggo.Options{Whitelist: map[whatlanggo.Lang]bool{info.Lang: true, next: true}})
		if pair.Confidence != 0 {
			break
		}
		tied = append(tied, next)
		delete(rest, next)
	}
	best := tied[0]
	for _, l := range tied[1:] {
		if l.Iso6393() < best.Iso6393() {
			best = l
		}
	}
	info.Lang = best
	return info
}
