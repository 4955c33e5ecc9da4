package analysis

import "math/rand/v2"

// drawRounds fills draw with len(rounds) rounds drawn with replacement: one
// bootstrap resample of a run's rounds (resample rounds, not samples, so
// what a round shares stays together).
func drawRounds(rng *rand.Rand, rounds, draw []int) []int {
	draw = draw[:0]
	for range rounds {
		draw = append(draw, rounds[rng.IntN(len(rounds))])
	}
	return draw
}

// inRounds appends to buf the value of byRound for each drawn round that
// has one.
func inRounds(byRound map[int]float64, draw []int, buf []float64) []float64 {
	for _, r := range draw {
		if v, ok := byRound[r]; ok {
			buf = append(buf, v)
		}
	}
	return buf
}
