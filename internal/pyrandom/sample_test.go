package pyrandom

import (
	"reflect"
	"testing"
)

// The expected values were printed by CPython 3.11.2 (Debian bookworm):
//
//	r = random.Random(1234); [r.getrandbits(32) for _ in range(3)]
//	r = random.Random(1234); [r.sample(list(range(n)), k) for n, k in cases]
//	random.Random(2**40+7).sample(list(range(50)), 4), and seeds -5 and 0
func TestSampleMatchesCPython(t *testing.T) {
	r := NewInt(1234)
	got := []uint32{r.Uint32(), r.Uint32(), r.Uint32()}
	if want := []uint32{4150886329, 3342196574, 1892932127}; !reflect.DeepEqual(got, want) {
		t.Fatalf("getrandbits(32) = %v, want %v", got, want)
	}

	r = NewInt(1234)
	cases := []struct {
		pop, k int
		want   []int
	}{
		{8, 5, []int{7, 0, 6, 5, 4}},
		{8, 5, []int{1, 0, 2, 7, 6}},
		{8, 6, []int{0, 6, 7, 2, 3, 4}},
		{100, 5, []int{59, 19, 11, 23, 91}},
		{7473, 5, []int{937, 6925, 119, 4121, 3987}},
		{7473, 6, []int{7212, 2046, 528, 5466, 4432, 3816}},
		{30, 10, []int{2, 19, 21, 29, 16, 18, 1, 8, 17, 26}},
		{3, 3, []int{2, 1, 0}},
		{1, 1, []int{0}},
		{500, 9, []int{136, 127, 335, 477, 102, 232, 448, 271, 340}},
	}
	for i, c := range cases {
		got, err := r.Sample(c.pop, c.k)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Fatalf("call %d: sample(range(%d), %d) = %v, want %v", i, c.pop, c.k, got, c.want)
		}
	}

	for _, c := range []struct {
		seed int64
		want []int
	}{
		{1<<40 + 7, []int{39, 47, 40, 36}},
		{-5, []int{39, 16, 47, 22}},
		{0, []int{24, 48, 26, 2}},
	} {
		got, _ := NewInt(c.seed).Sample(50, 4)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("seed %d: sample = %v, want %v", c.seed, got, c.want)
		}
	}
}

func TestSampleRejectsOversizedK(t *testing.T) {
	if _, err := NewInt(1).Sample(3, 4); err == nil {
		t.Fatal("sample 4 of 3: no error")
	}
}
