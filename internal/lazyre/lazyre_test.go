package lazyre

import "testing"

func TestLazy(t *testing.T) {
	re := New(`a(b+)`)
	if re.re != nil {
		t.Fatal("compiled before first use")
	}
	if m := re.FindStringSubmatch("xabbby"); len(m) != 2 || m[1] != "bbb" {
		t.Errorf("FindStringSubmatch = %q", m)
	}
	if got := re.ReplaceAllString("ab ab", "<$1>"); got != "<b> <b>" {
		t.Errorf("ReplaceAllString = %q", got)
	}
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic at first use")
		}
	}()
	New(`(`).MatchString("x")
}

func TestAllRegistered(t *testing.T) {
	re := New(`x+`)
	for _, r := range All() {
		if r == re {
			return
		}
	}
	t.Fatal("All does not list an expression New returned")
}
