package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Forecast is when a confidence sequence of the median is predicted to
// decide: the round (counting every round, the current ones included) of
// the median simulated path, and the 10th and 90th percentiles of the
// paths, an 80% predictive range. Beyond says the median path had not
// decided by the horizon searched, so Median is only a lower bound; Open
// says the same of Hi (the range is Lo or more).
type Forecast struct {
	Median, Lo, Hi int
	Beyond, Open   bool
}

// forecastPaths is the number of simulated paths of a forecast: the 10th,
// 50th and 90th percentiles are paths 4, 20 and 36.
const forecastPaths = 41

// ForecastDecision predicts the round at which decided first holds for
// the median's confidence sequence over log-ratios, given the current
// ones d, searched up to limit rounds. decided receives the interval's
// ends on the log scale.
//
// A "round" here is one independent observation: d holds one value per
// unit the sequence counts (a round, or a cluster of rounds on one link
// layout or machine, summarised by its median as [Options.LogRatios]
// does), and every simulated observation is a whole such unit, drawn
// with what its rounds share; a caller with clusters of k rounds passes
// the cluster medians and multiplies the forecast by k. Simulating rounds
// of clustered data as if independent would forecast too few.
//
// Each simulated path keeps the current rounds and first draws a new
// sample of len(d) values from them (a bootstrap, so the effect that its
// further rounds have varies as much as the current estimate of it
// does), then adds rounds drawn from that sample one at a time, applying
// the sequence's rule after each, until it decides or reaches limit. Simulating the rule itself, rather than
// extrapolating a half-width, gives the first passage its due: a path
// that wanders across the boundary early stops there. On rounds
// resampled from the recorded noise of analysis/testdata/noise, the
// range held the round the rule in fact decided at in about 80–90% of
// rows (docs/calibration.md). The paths are seeded from d, so the same
// rounds give the same forecast.
func ForecastDecision(d []float64, confidence float64, target, limit int, decided func(lo, hi float64) bool) Forecast {
	s := sortedFinite(d)
	n := len(s)
	if n < 2 || !(confidence > 0 && confidence < 1) || limit <= n {
		return Forecast{Median: max(n, limit), Lo: max(n, limit), Hi: max(n, limit), Beyond: true, Open: true}
	}
	bound := boundaryFor(confidence, target).countsTo(limit)
	seed := uint64(n)
	for _, x := range s {
		seed = seed*0x9E3779B97F4A7C15 + math.Float64bits(x)
	}
	rng := rand.New(rand.NewPCG(seed, 0x5EED))
	// A path's values are all values of s: it is kept as a count per
	// index of s, and its order statistics are read off the counts.
	counts := make([]int, n)
	pool := make([]int, n)
	stops := make([]int, forecastPaths)
	for p := range stops {
		for i := range pool {
			pool[i] = rng.IntN(n)
		}
		for i := range counts {
			counts[i] = 1 // the current rounds
		}
		stops[p] = limit + 1
		for t := n + 1; t <= limit; t++ {
			counts[pool[rng.IntN(n)]]++
			if t < AnytimeMinRounds || !checkAt(t, n) {
				continue
			}
			j := bound[t]
			if j < 0 {
				continue
			}
			if lo, hi := orderStats(counts, j, t-1-j); decided(s[lo], s[hi]) {
				stops[p] = t
				break
			}
		}
	}
	slices.Sort(stops)
	f := Forecast{Lo: stops[forecastPaths/10], Median: stops[forecastPaths/2], Hi: stops[forecastPaths*9/10]}
	f.Beyond, f.Open = f.Median > limit, f.Hi > limit
	f.Lo, f.Median, f.Hi = min(f.Lo, limit), min(f.Median, limit), min(f.Hi, limit)
	return f
}

// checkAt says whether a path applies the rule at round t, having started
// from n rounds: every round for the first 20, then about every 2% of t,
// which keeps a forecast's cost near linear in its horizon.
func checkAt(t, n int) bool {
	return t <= n+20 || t%max(1, t/50) == 0
}

// orderStats returns the indices of the j-th and k-th smallest (from 0,
// j ≤ k) of the multiset holding counts[i] copies of value i.
func orderStats(counts []int, j, k int) (int, int) {
	seen, lo := 0, -1
	for i, c := range counts {
		seen += c
		if lo < 0 && j < seen {
			lo = i
		}
		if k < seen {
			return lo, i
		}
	}
	last := len(counts) - 1
	return max(lo, 0), last
}
