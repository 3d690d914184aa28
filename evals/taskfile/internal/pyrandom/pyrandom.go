// Package pyrandom reproduces the draws of CPython's random.Random that
// lm-evaluation-harness uses to pick few-shot examples: the MT19937
// generator seeded from an integer exactly as random.seed(int) does, and
// random.sample's selection algorithm (CPython 3.x). A Rand seeded with 1234
// returns, call after call, the same indices as random.Random(1234).sample.
//
// Only what few-shot sampling needs is provided: integer seeding,
// getrandbits up to 32 bits, randbelow and sample over indices. It is not a
// general random library and not safe for concurrent use.
package pyrandom

import (
	"fmt"
	"math"
	"math/bits"
)

const (
	n         = 624
	m         = 397
	matrixA   = 0x9908b0df
	upperMask = 0x80000000
	lowerMask = 0x7fffffff
)

// Rand is a Mersenne Twister in CPython's configuration.
type Rand struct {
	mt  [n]uint32
	mti int
}

// New returns a generator seeded as random.Random(seed): the absolute value
// of the seed, split into 32-bit words from the least significant end, goes
// through init_by_array.
func New(seed int64) *Rand {
	u := uint64(seed)
	if seed < 0 {
		u = uint64(-seed) // two's complement negation is the absolute value, also for MinInt64
	}
	key := []uint32{uint32(u)}
	if hi := uint32(u >> 32); hi != 0 {
		key = append(key, hi)
	}
	r := &Rand{}
	r.initByArray(key)
	return r
}

func (r *Rand) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < n; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = n
}

func (r *Rand) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	k := max(n, len(key))
	for ; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k = n - 1; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= n {
			r.mt[0] = r.mt[n-1]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

// Uint32 returns the next 32-bit output (genrand_uint32).
func (r *Rand) Uint32() uint32 {
	if r.mti >= n {
		for kk := 0; kk < n; kk++ {
			y := (r.mt[kk] & upperMask) | (r.mt[(kk+1)%n] & lowerMask)
			next := r.mt[(kk+m)%n] ^ (y >> 1)
			if y&1 != 0 {
				next ^= matrixA
			}
			r.mt[kk] = next
		}
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// GetRandBits returns random.getrandbits(k) for 0 <= k <= 32.
func (r *Rand) GetRandBits(k int) uint32 {
	if k <= 0 {
		return 0
	}
	if k > 32 {
		panic("pyrandom: getrandbits above 32 bits is not implemented")
	}
	return r.Uint32() >> (32 - k)
}

// RandBelow returns random._randbelow(n): a uniform integer in [0, n)
// drawn by rejection from n.bit_length() random bits.
func (r *Rand) RandBelow(limit int) int {
	if limit <= 0 {
		return 0
	}
	if limit > math.MaxUint32 {
		panic("pyrandom: randbelow above 2**32 is not implemented")
	}
	k := bits.Len64(uint64(limit))
	for {
		v := int(r.GetRandBits(k))
		if v < limit {
			return v
		}
	}
}

// Sample returns the population indices random.sample(range(pop), k)
// returns, in the order it returns them.
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
		for i := 0; i < k; i++ {
			j := r.RandBelow(pop - i)
			result[i] = pool[j]
			pool[j] = pool[pop-i-1]
		}
		return result, nil
	}
	selected := make(map[int]bool, k)
	for i := 0; i < k; i++ {
		j := r.RandBelow(pop)
		for selected[j] {
			j = r.RandBelow(pop)
		}
		selected[j] = true
		result[i] = j
	}
	return result, nil
}
