package runtime

import "testing"

// TestVocabSHA256: each token's bytes in id order, each preceded by its
// length as a little-endian uint32 (the value is sha256 of
// 01000000 'a' 00000000 03000000 '<s>').
func TestVocabSHA256(t *testing.T) {
	pieces := []string{"a", "", "<s>"}
	got := VocabSHA256(len(pieces), func(id int) []byte { return []byte(pieces[id]) })
	if want := "d446dec1e1f6d5724b817dd9462d49ad668541f9ce7371117aedc1c5199d699f"; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}
