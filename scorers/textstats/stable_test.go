package textstats

import (
	"strings"
	"testing"
)

// TestDetectLanguageStableOnShortText calls DetectLanguage repeatedly on
// short snippets, where whatlanggo's trigram distances tie most often; its
// map-ordered ranking would then answer differently from call to call.
func TestDetectLanguageStableOnShortText(t *testing.T) {
	words := strings.Fields(`the quick brown fox jumps over lazy dog und der die das le la les el los
		de het een og i på och är ja nie tak sim não si no il lo gli uma um una ein eine hello world
		bonjour hola ciao hej hallo tere labas sveiki dzień dobry ahoj szia merhaba salut olá`)
	var snippets []string
	for i := range words {
		snippets = append(snippets, words[i])
		if i+1 < len(words) {
			snippets = append(snippets, words[i]+" "+words[i+1])
		}
	}
	for _, s := range snippets {
		first, firstErr := DetectLanguage(s)
		for range 30 {
			got, err := DetectLanguage(s)
			if got != first || (err == nil) != (firstErr == nil) {
				t.Errorf("DetectLanguage(%q) varies: %q then %q", s, first, got)
				break
			}
		}
	}
}
