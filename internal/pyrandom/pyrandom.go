// Package pyrandom provides a pseudo-random generator whose every output
// equals CPython's random.Random: the Mersenne Twister MT19937 seeded the
// way random.seed(int) seeds it (init_by_array over the 32-bit words of the
// seed's absolute value), random(), getrandbits(k), the rejection sampling
// of _randbelow (and so choice), sample over a range, and gauss with its
// cached second value, which seeding clears. langdetect's detector
// (scorers/langdetect) and lm-evaluation-harness's few-shot sampler
// (evals/fewshot, for task files and the built-in gsm8k) draw with it.
//
// gauss needs cos, sin and log. CPython takes them from the platform's C
// library, whose results differ in the last bit from one libm to another;
// this package uses correctly rounded versions of the three functions
// (crmath.go), which is what any libm returns for all but about one call in
// a thousand. See docs/ifeval.md for what that means for langdetect.
//
// The package intentionally implements only what those callers use; it is
// not a general replacement for math/rand, and a Rand is not safe for
// concurrent use.
package pyrandom

import (
	"fmt"
	"math"
)

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Rand is CPython's random.Random. The zero value is not seeded; call Seed
// first.
type Rand struct {
	mt        [n]uint32
	index     int
	gaussNext float64
	hasGauss  bool
}

// New returns a generator seeded as random.Random(seed).
func New(seed uint64) *Rand {
	r := &Rand{}
	r.Seed(seed)
	return r
}

// NewInt returns a generator seeded as random.Random(seed) for any int64:
// Python seeds with the absolute value, so -5 and 5 draw alike.
func NewInt(seed int64) *Rand {
	u := uint64(seed)
	if seed < 0 {
		u = -u // the absolute value, also for math.MinInt64
	}
	return New(u)
}

func (r *Rand) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		prev := r.mt[i-1]
		r.mt[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	r.index = n
}

// Seed reseeds the generator as random.seed(seed) does for a non-negative
// int (Python seeds with abs(seed), so a negative seed -s equals s) and
// forgets the cached gauss value.
func (r *Rand) Seed(seed uint64) {
	// The key is the seed's 32-bit words, least significant first; zero
	// is one zero word.
	key := [2]uint32{uint32(seed), uint32(seed >> 32)}
	keyLen := 1
	if seed>>32 != 0 {
		keyLen = 2
	}
	r.initByArray(key[:keyLen])
	r.hasGauss = false
	r.gaussNext = 0
}

func (r *Rand) initByArray(key []uint32) {
	r.initGenrand(19650218)
	mt := &r.mt
	i, j := 1, 0
	k := max(n, len(key))
	for ; k > 0; k-- {
		prev := mt[i-1]
		mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			mt[0] = mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = n - 1; k > 0; k-- {
		prev := mt[i-1]
		mt[i] = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			mt[0] = mt[n-1]
			i = 1
		}
	}
	mt[0] = 0x80000000
}

// Uint32 is MT19937's next tempered 32-bit output (genrand_uint32).
func (r *Rand) Uint32() uint32 {
	mt := &r.mt
	if r.index >= n {
		var kk int
		for kk = 0; kk < n-m; kk++ {
			y := mt[kk]&upperMask | mt[kk+1]&lowerMask
			mt[kk] = mt[kk+m] ^ y>>1 ^ (y&1)*matrixA
		}
		for ; kk < n-1; kk++ {
			y := mt[kk]&upperMask | mt[kk+1]&lowerMask
			mt[kk] = mt[kk+(m-n)] ^ y>>1 ^ (y&1)*matrixA
		}
		y := mt[n-1]&upperMask | mt[0]&lowerMask
		mt[n-1] = mt[m-1] ^ y>>1 ^ (y&1)*matrixA
		r.index = 0
	}
	y := mt[r.index]
	r.index++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// Random is random.random(): 53 random bits as a float in [0, 1).
func (r *Rand) Random() float64 {
	a := r.Uint32() >> 5
	b := r.Uint32() >> 6
	return (float64(float64(a)*67108864.0) + float64(b)) * (1.0 / 9007199254740992.0)
}

// Getrandbits is random.getrandbits(k) for 0 <= k <= 64: 32-bit words,
// least significant first, the last one cut to its top bits.
func (r *Rand) Getrandbits(k int) uint64 {
	if k < 0 || k > 64 {
		panic("pyrandom: Getrandbits needs 0 <= k <= 64")
	}
	if k == 0 {
		return 0
	}
	if k <= 32 {
		return uint64(r.Uint32() >> (32 - k))
	}
	lo := uint64(r.Uint32())
	hi := uint64(r.Uint32() >> (64 - k))
	return hi<<32 | lo
}

// Randbelow is random._randbelow(n) for n >= 1: getrandbits(n.bit_length())
// drawn until it is below n.
func (r *Rand) Randbelow(n int) int {
	if n <= 0 {
		panic("pyrandom: Randbelow needs n >= 1")
	}
	k := bitLength(uint64(n))
	v := r.Getrandbits(k)
	for v >= uint64(n) {
		v = r.Getrandbits(k)
	}
	return int(v)
}

func bitLength(x uint64) int {
	b := 0
	for x != 0 {
		b++
		x >>= 1
	}
	return b
}

// Choice is the index random.choice(seq) picks in a sequence of length n.
func (r *Rand) Choice(n int) int { return r.Randbelow(n) }

// twoPi is random.TWOPI, 2.0 * math.pi.
const twoPi = 2.0 * math.Pi

// Gauss is random.gauss(mu, sigma): the Box–Muller transform, whose second
// value is kept for the next call.
func (r *Rand) Gauss(mu, sigma float64) float64 {
	z, cached := r.gaussNext, r.hasGauss
	r.hasGauss = false
	if !cached {
		x2pi := float64(r.Random() * twoPi)
		g2rad := math.Sqrt(float64(-2.0 * Log(1.0-r.Random())))
		z = float64(Cos(x2pi) * g2rad)
		r.gaussNext = float64(Sin(x2pi) * g2rad)
		r.hasGauss = true
	}
	return mu + float64(z*sigma)
}

// Sample returns the indices random.sample(range(pop), k) returns, in the
// order it returns them: a partial shuffle of a pool when the pool is
// smaller than the set CPython would need, rejection of repeats otherwise.
func (r *Rand) Sample(pop, k int) ([]int, error) {
	if k < 0 || k > pop {
		return nil, fmt.Errorf("sample %d of %d: sample larger than population or is negative", k, pop)
	}
	result := make([]int, k)
	setsize := 21
	if k > 5 {
		setsize += int(math.Pow(4, math.Ceil(math.Log(float64(k*3))/math.Log(4))))
	}
	if pop <= setsize {
		pool := make([]int, pop)
		for i := range pool {
			pool[i] = i
		}
		for i := range k {
			j := r.Randbelow(pop - i)
			result[i] = pool[j]
			pool[j] = pool[pop-i-1]
		}
		return result, nil
	}
	selected := make(map[int]bool, k)
	for i := range k {
		j := r.Randbelow(pop)
		for selected[j] {
			j = r.Randbelow(pop)
		}
		selected[j] = true
		result[i] = j
	}
	return result, nil
}
