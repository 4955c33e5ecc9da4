package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/perflab/perflab/benchname"
)

// genSeries draws rounds × len(xs) samples of f(x) with multiplicative
// noise: a per-sample lognormal factor with σ = cv, a per-round factor
// with σ = cv/2 (drift every cell of a round shares), and one sample in
// twenty inflated by 10–40% (preemption), as benchmark noise is.
func genSeries(name string, xs []float64, f func(float64) float64, rounds int, cv float64, rng *rand.Rand) []*Sample {
	out := make([]*Sample, len(xs))
	for i, x := range xs {
		out[i] = &Sample{Name: benchname.Parse(fmt.Sprintf("%s/x=%g", name, x)), Unit: "sec/op"}
	}
	for r := 1; r <= rounds; r++ {
		rf := math.Exp(rng.NormFloat64() * cv / 2)
		for i, x := range xs {
			v := f(x) * rf * math.Exp(rng.NormFloat64()*cv)
			if rng.IntN(20) == 0 {
				v *= 1.1 + 0.3*rng.Float64()
			}
			out[i].Values = append(out[i].Values, v)
			out[i].Rounds = append(out[i].Rounds, r)
		}
	}
	return out
}

// hingeCurve is y0 + s·x up to k, then the slope is ratio·s.
func hingeCurve(y0, s, k, ratio float64) func(float64) float64 {
	return func(x float64) float64 {
		if x <= k {
			return y0 + s*x
		}
		return y0 + s*k + ratio*s*(x-k)
	}
}

func axis1to(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	return xs
}
