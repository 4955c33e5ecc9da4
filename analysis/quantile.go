package analysis

import (
	"math"
	"slices"
)

// Median is the median of the finite values of xs (NaN and ±Inf are
// left out): the middle one, or the mean of the two middle ones; NaN when
// there are none. It is [Quantile] at ½. xs is not modified.
func Median(xs []float64) float64 {
	return median(finiteValues(xs))
}

// Quantile is the p-quantile of the finite values of xs (NaN and ±Inf are
// left out), for p in [0, 1]; NaN when there are none. It is the one
// convention of the package: of n sorted values, the i-th (counting from
// 0) is placed at (i + ½)/n and quantiles between two of them are
// interpolated linearly; below ½/n it is the smallest value, above
// (n − ½)/n the largest (Hazen's rule, type 5 of Hyndman and Fan, 1996).
// Its median is [Median]'s. xs is not modified.
func Quantile(xs []float64, p float64) float64 {
	return quantile(finiteValues(xs), p)
}

// finiteValues returns the finite values of xs, sorted.
func finiteValues(xs []float64) []float64 {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s = append(s, x)
		}
	}
	slices.Sort(s)
	return s
}

// sortedFinite returns the values of d that are not NaN, sorted. Log-ratios
// keep ±Inf (a zero or infinite cell), which ranks them.
func sortedFinite(d []float64) []float64 {
	s := make([]float64, 0, len(d))
	for _, x := range d {
		if !math.IsNaN(x) {
			s = append(s, x)
		}
	}
	slices.Sort(s)
	return s
}

// median is [Median] of sorted values, none NaN; NaN when there are none.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// quantile is [Quantile] of sorted values, none NaN; NaN when there are
// none.
func quantile(sorted []float64, p float64) float64 {
	x := p*float64(len(sorted)) - 0.5
	switch {
	case len(sorted) == 0:
		return math.NaN()
	case x <= 0:
		return sorted[0]
	case x >= float64(len(sorted)-1):
		return sorted[len(sorted)-1]
	}
	i := int(x)
	return sorted[i] + (x-float64(i))*(sorted[i+1]-sorted[i])
}

// MAD is the median absolute deviation of the finite values of xs about
// their median (not scaled: 1.4826·MAD estimates a normal SD); NaN when
// there are none.
func MAD(xs []float64) float64 {
	s := finiteValues(xs)
	if len(s) == 0 {
		return math.NaN()
	}
	m := median(s)
	dev := make([]float64, len(s))
	for i, x := range s {
		dev[i] = math.Abs(x - m)
	}
	slices.Sort(dev)
	return median(dev)
}
