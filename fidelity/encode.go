package fidelity

import (
	"math"
)

// recordLen is the number of uint16 a position takes for a vocabulary of
// nVocab tokens: two float32 (scale, minimum log-probability) and one
// value per token, padded to an even count (llama-perplexity's nv).
func recordLen(nVocab int) int { return 2*((nVocab+1)/2) + 4 }

// BytesPerPosition is what one saved position costs for a vocabulary of
// nVocab tokens.
func BytesPerPosition(nVocab int) int { return 2 * recordLen(nVocab) }

// nearestInt rounds as llama-perplexity's nearest_int does (to nearest,
// ties to even, through the float32 mantissa).
func nearestInt(f float32) int32 {
	v := f + 12582912
	return int32(math.Float32bits(v)&0x007fffff) - 0x00400000
}

// logSumExp returns max(logits) + log Σ exp(logits - max) in float32 as
// llama-perplexity computes it (sum in float64 of float32 exponentials),
// with the argmax and the minimum.
func logSumExp(logits []float32) (lse, maxLogit, minLogit float32, imax int) {
	maxLogit, minLogit = logits[0], logits[0]
	for i, v := range logits {
		if v > maxLogit {
			maxLogit, imax = v, i
		}
		minLogit = min(minLogit, v)
	}
	var sum float64
	for _, v := range logits {
		sum += float64(float32(math.Exp(float64(v - maxLogit))))
	}
	return maxLogit + float32(math.Log(sum)), maxLogit, minLogit, imax
}

// encode writes the log-probabilities of logits into rec (recordLen
// entries) and returns the negative log-likelihood of token tok.
func encode(logits []float32, rec []uint16, tok int) float64 {
	lse, maxLogit, minLogit, _ := logSumExp(logits)
	minLogit = max(minLogit, maxLogit-16)
	logSum := lse - maxLogit
	minLogProb := minLogit - maxLogit - logSum
	scale := (maxLogit - minLogit) / 65535
	putFloat(rec[0:2], scale)
	putFloat(rec[2:4], minLogProb)
	vals := rec[4:]
	if scale != 0 {
		inv := 1 / scale
		for i, v := range logits {
			if v > minLogit {
				vals[i] = uint16(nearestInt(float32(inv * (v - minLogit))))
			} else {
				vals[i] = 0
			}
		}
	} else {
		clear(vals[:len(logits)])
	}
	return float64(maxLogit + logSum - logits[tok])
}

func putFloat(dst []uint16, f float32) {
	b := math.Float32bits(f)
	dst[0], dst[1] = uint16(b), uint16(b>>16)
}

func getFloat(src []uint16) float32 {
	return math.Float32frombits(uint32(src[0]) | uint32(src[1])<<16)
}

// decoded is a saved position read back: log p_i = scale*vals[i] + minLP.
type decoded struct {
	scale, minLP float32
	vals         []uint16
}

func decode(rec []uint16, nVocab int) decoded {
	return decoded{scale: getFloat(rec[0:2]), minLP: getFloat(rec[2:4]), vals: rec[4 : 4+nVocab]}
}

func (d decoded) logProb(i int) float32 { return d.scale*float32(d.vals[i]) + d.minLP }
