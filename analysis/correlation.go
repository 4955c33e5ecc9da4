package analysis

import (
	"math"
	"slices"
)

// Correlation summarises correlation coefficients measured once per
// round (each over its own time series). Every r is mapped to Fisher's
// z = atanh(r); the median of the z values and its distribution-free
// interval (as [Summarize] gives for any sample) are mapped back with tanh.
// Rounds, not the windows inside one round, are the independent units:
// windows of one time series are autocorrelated, so Fisher's z ± 1.96/√(n−3)
// over windows would claim more certainty than the data hold. Values
// outside (−1, 1) and NaNs are dropped.
type Correlation struct {
	N         int     // rounds with a coefficient
	R, Lo, Hi float64 // median r and its interval; Lo, Hi NaN without one
}

// HasInterval reports whether the coefficient has an interval.
func (c Correlation) HasInterval() bool { return !math.IsNaN(c.Lo) && !math.IsNaN(c.Hi) }

// CorrelationRounds summarises per-round coefficients rs at the options'
// confidence (see [Correlation]).
func (o Options) CorrelationRounds(rs []float64) Correlation {
	var z []float64
	for _, r := range rs {
		if r > -1 && r < 1 {
			z = append(z, math.Atanh(r))
		}
	}
	c := Correlation{N: len(z), R: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	if len(z) == 0 {
		return c
	}
	s := Summarize(z, o)
	c.R = math.Tanh(s.Center)
	if !math.IsInf(s.Lo, 0) && !math.IsNaN(s.Lo) && !math.IsInf(s.Hi, 0) && !math.IsNaN(s.Hi) {
		c.Lo, c.Hi = math.Tanh(s.Lo), math.Tanh(s.Hi)
	}
	return c
}

// CorrelationOf summarises the per-round coefficients of s (one value a
// round, as [Options.CorrelationRounds] reads them) by cluster first when
// s carries its rounds and they cluster under o: each cluster's median on
// Fisher's z scale is one observation, so the interval counts clusters
// (layouts, machines), not the rounds that shared one. Without rounds it
// is CorrelationRounds(s.Values).
func (o Options) CorrelationOf(s *Sample) Correlation {
	byRound := s.ByRound()
	if byRound == nil || !o.clustered() {
		return o.CorrelationRounds(s.Values)
	}
	z := map[int]float64{}
	for r, v := range byRound {
		if v > -1 && v < 1 {
			z[r] = math.Atanh(v)
		}
	}
	rs := o.ClusterMedians(z)
	for i, v := range rs {
		rs[i] = math.Tanh(v)
	}
	return o.CorrelationRounds(rs)
}

// FisherMidpoint is tanh(atanh(r)/2), the midpoint between no correlation
// and r on Fisher's z scale: the threshold a claimed correlation r is
// tested against.
func FisherMidpoint(r float64) float64 { return math.Tanh(math.Atanh(r) / 2) }

// Contrast compares two paired ratios round by round: in each round where
// all four cells were measured, log(numA/denA) − log(numB/denB), then
// summarised within each cluster of rounds under o (the independent unit:
// a layout cluster, a machine's cluster; [Options.Clusters]) by its
// median and over clusters as [Options.PairedLogs] does. Its Ratio is how
// many times larger the ratio numA/denA is than numB/denB (e.g. how much
// more one library slows down from depth 5 to 8 than another).
func (o Options) Contrast(numA, denA, numB, denB map[int]float64) Ratio {
	var rounds []int
	for r, x := range numA {
		y, ok1 := denA[r]
		u, ok2 := numB[r]
		v, ok3 := denB[r]
		if ok1 && ok2 && ok3 && x > 0 && y > 0 && u > 0 && v > 0 {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	d := make([]float64, len(rounds))
	for i, r := range rounds {
		d[i] = math.Log(numA[r]) - math.Log(denA[r]) - (math.Log(numB[r]) - math.Log(denB[r]))
	}
	return o.PairedLogs(o.clusters(rounds, d))
}
