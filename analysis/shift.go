package analysis

import (
	"math"
	"slices"
)

// Shift is the unpaired comparison of two samples of one benchmark (two
// runs, two files): each side's median with its interval, the change
// Δ = median(new)/median(old) − 1 (benchstat's figure), a distribution-free
// confidence interval for Δ, and the Mann-Whitney U p-value.
//
// The interval is the Hodges–Lehmann interval of the shift between the
// samples on a log scale (Bauer, 1972): the order statistics of all
// pairwise log ratios new/old cut at the exact U distribution's critical
// value (normal approximation above n·m = 40000), so it agrees with the U
// test and assumes nothing about the distributions. When a value is not
// positive, the shift of raw values relative to the old median is used.
type Shift struct {
	Old, New Summary
	Delta    float64 // median(new)/median(old) − 1; ±Inf when the old median is 0 and the new is not
	Lo, Hi   float64 // interval of Delta at 1 − Alpha; ±Inf without one
	// Interval is false when the samples are too small for Delta's
	// interval at this α (Lo and Hi are then infinite).
	Interval bool
	P        float64 // Mann-Whitney U p-value
	AllEqual bool    // every value on both sides is the same
	// Significant is P < Alpha for a change that is not zero and not
	// between identical samples.
	Significant bool
}

// Shift compares new against old, unpaired (see [Shift]): the medians at
// o.Confidence, the interval of Δ and the U test at o.Alpha.
func (o Options) Shift(old, new []float64) Shift {
	so, sn := Summarize(old, o), Summarize(new, o)
	s := Shift{Old: so, New: sn, P: Compare(old, new, o), AllEqual: allEqual(old, new)}
	s.Delta = ratioDelta(sn.Center, so.Center)
	s.Lo, s.Hi, s.Interval = ShiftInterval(old, new, so.Center, o.Alpha)
	s.Significant = s.P < o.Alpha && s.Delta != 0 && !s.AllEqual
	return s
}

// ratioDelta is n/o − 1, 0 when both are 0, and ±Inf from 0.
func ratioDelta(n, o float64) float64 {
	switch {
	case o == 0 && n == 0:
		return 0
	case o == 0:
		return math.Copysign(math.Inf(1), n)
	}
	return n/o - 1
}

func allEqual(a, b []float64) bool {
	if len(a) == 0 {
		return false
	}
	for _, x := range append(slices.Clone(a), b...) {
		if x != a[0] {
			return false
		}
	}
	return true
}

// ShiftInterval returns the confidence interval, at 1−alpha, of the
// relative change from old to new: the Hodges–Lehmann interval of the
// shift of log values, turned into a ratio − 1. When a value is not
// positive, the shift of raw values relative to the old median is used.
// ok is false (and the bounds infinite) when the samples are too small for
// the interval at this level.
func ShiftInterval(old, new []float64, oldMedian, alpha float64) (lo, hi float64, ok bool) {
	n, m := len(old), len(new)
	k := criticalK(n, m, alpha)
	if k < 1 {
		return math.Inf(-1), math.Inf(1), false
	}
	positive := true
	for _, v := range append(slices.Clone(old), new...) {
		if !(v > 0) || math.IsInf(v, 0) {
			positive = false
		}
	}
	diffs := make([]float64, 0, n*m)
	for _, x := range old {
		for _, y := range new {
			if positive {
				diffs = append(diffs, math.Log(y)-math.Log(x))
			} else {
				diffs = append(diffs, y-x)
			}
		}
	}
	slices.Sort(diffs)
	dlo, dhi := diffs[k-1], diffs[len(diffs)-k]
	if positive {
		return math.Expm1(dlo), math.Expm1(dhi), true
	}
	switch {
	case oldMedian != 0:
		return dlo / math.Abs(oldMedian), dhi / math.Abs(oldMedian), true
	case dlo == 0 && dhi == 0:
		return 0, 0, true
	}
	return math.Inf(-1), math.Inf(1), false
}

// criticalK returns the largest k with P(U ≤ k−1) ≤ alpha/2 for the
// Mann-Whitney U statistic of samples of sizes n and m: the interval
// [D(k), D(nm+1−k)] of the sorted pairwise differences then covers the
// shift with probability at least 1−alpha. It is 0 when no k qualifies.
func criticalK(n, m int, alpha float64) int {
	if n == 0 || m == 0 {
		return 0
	}
	cdf := uCDF(n, m)
	k := 0
	for u := 0; u < len(cdf); u++ {
		if cdf[u] <= alpha/2+1e-12 {
			k = u + 1
		} else {
			break
		}
	}
	return min(k, (n*m+1)/2)
}

// maxExactU bounds n·m for the exact U distribution; above it the normal
// approximation is used.
const maxExactU = 40000

// uCDF returns P(U ≤ u) for u = 0..n·m (no ties), exactly for small
// samples: the counts of U are the coefficients of the Gaussian binomial
// [n+m choose n](q) = Π_{i=1..n} (1 − q^(m+i)) / (1 − q^i).
func uCDF(n, m int) []float64 {
	nm := n * m
	if nm > maxExactU {
		out := make([]float64, 0, nm+1)
		mu := float64(nm) / 2
		sd := math.Sqrt(float64(nm) * float64(n+m+1) / 12)
		for u := 0; u <= nm; u++ {
			out = append(out, 0.5*math.Erfc(-(float64(u)+0.5-mu)/sd/math.Sqrt2))
		}
		return out
	}
	c := make([]float64, nm+1)
	c[0] = 1
	// After step i, c holds the coefficients of [m+i choose i](q), all
	// non-negative; the products are truncated at degree nm, which the
	// recurrences below never read beyond.
	for i := 1; i <= n; i++ {
		// Multiply by (1 − q^(m+i)).
		for d := nm; d >= m+i; d-- {
			c[d] -= c[d-m-i]
		}
		// Divide by (1 − q^i): b[d] = a[d] + b[d−i].
		for d := i; d <= nm; d++ {
			c[d] += c[d-i]
		}
	}
	total := 0.0
	for _, v := range c {
		total += v
	}
	out := make([]float64, nm+1)
	acc := 0.0
	for u, v := range c {
		acc += v
		out[u] = math.Min(acc/total, 1)
	}
	return out
}

// GeomeanChange is the geometric mean change over pairs of medians
// {old, new}: exp(mean of ln(new/old)) − 1 over the pairs whose medians
// are both positive, and how many those are. It is unpaired by round, the
// geomean benchstat prints; n = 0 when no pair qualifies.
func GeomeanChange(pairs [][2]float64) (delta float64, n int) {
	sum := 0.0
	for _, p := range pairs {
		if p[0] > 0 && p[1] > 0 {
			sum += math.Log(p[1] / p[0])
			n++
		}
	}
	if n == 0 {
		return math.NaN(), 0
	}
	return math.Exp(sum/float64(n)) - 1, n
}
