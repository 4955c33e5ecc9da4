package main

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/mathx"
)

// level is the confidence level of every interval varlab prints.
const level = 0.90

// estimate is a standard deviation (or a ratio) with a 90% interval.
type estimate struct{ V, Lo, Hi float64 }

// anova is an additive two-way analysis of variance of a complete table
// y[i][j], one value per cell: rows i (layouts, or rounds), columns j.
type anova struct {
	rows, cols          int
	msRow, msCol, msRes float64
}

// twoWay fits y[i][j] = μ + a_i + b_j + e_ij; y must have at least two
// rows and two columns, every row as long as the first.
func twoWay(y [][]float64) anova {
	a := anova{rows: len(y), cols: len(y[0])}
	rowMean := make([]float64, a.rows)
	colMean := make([]float64, a.cols)
	grand := 0.0
	for i, row := range y {
		for j, x := range row {
			rowMean[i] += x / float64(a.cols)
			colMean[j] += x / float64(a.rows)
			grand += x / float64(a.rows*a.cols)
		}
	}
	var ssRow, ssCol, ssRes float64
	for i, row := range y {
		ssRow += float64(a.cols) * sq(rowMean[i]-grand)
		for j, x := range row {
			ssRes += sq(x - rowMean[i] - colMean[j] + grand)
		}
	}
	for j := range colMean {
		ssCol += float64(a.rows) * sq(colMean[j]-grand)
	}
	a.msRow = ssRow / float64(a.rows-1)
	a.msCol = ssCol / float64(a.cols-1)
	a.msRes = ssRes / float64((a.rows-1)*(a.cols-1))
	return a
}

// rowVar is the rows' variance component, (msRow − msRes)/cols (floored
// at 0): the spread of the row effects once the noise in a row mean is
// taken out. colVar is the columns'.
func (a anova) rowVar() float64 { return math.Max(0, (a.msRow-a.msRes)/float64(a.cols)) }
func (a anova) colVar() float64 { return math.Max(0, (a.msCol-a.msRes)/float64(a.rows)) }

// rowSD is the rows' component as a standard deviation with the
// modified large-sample (Graybill–Wang) interval at level, the F- and
// χ²-based interval for a difference of mean squares (Burdick and
// Graybill, Confidence Intervals on Variance Components, 1992, §3.3),
// bounds floored at 0. It is near exact for normal effects and noise.
func (a anova) rowSD() estimate {
	n1, n2 := float64(a.rows-1), float64((a.rows-1)*(a.cols-1))
	s1, s2, c := a.msRow, a.msRes, 1/float64(a.cols)
	al := (1 - level) / 2
	g1, h1 := 1-n1/chi2Quantile(1-al, n1), n1/chi2Quantile(al, n1)-1
	g2, h2 := 1-n2/chi2Quantile(1-al, n2), n2/chi2Quantile(al, n2)-1
	fu, fl := fQuantile(1-al, n1, n2), fQuantile(al, n1, n2)
	g12 := (sq(fu-1) - sq(g1*fu) - sq(h2)) / fu
	h12 := (sq(1-fl) - sq(h1*fl) - sq(g2)) / fl
	theta := c * (s1 - s2)
	vl := c * c * (sq(g1*s1) + sq(h2*s2) + g12*s1*s2)
	vu := c * c * (sq(h1*s1) + sq(g2*s2) + h12*s1*s2)
	return estimate{
		V:  math.Sqrt(a.rowVar()),
		Lo: math.Sqrt(math.Max(0, theta-math.Sqrt(math.Max(0, vl)))),
		Hi: math.Sqrt(math.Max(0, theta+math.Sqrt(math.Max(0, vu)))),
	}
}

// columns returns y with its columns picked by idx (repeats allowed).
func columns(y [][]float64, idx []int) [][]float64 {
	out := make([][]float64, len(y))
	for i, row := range y {
		out[i] = make([]float64, len(idx))
		for k, j := range idx {
			out[i][k] = row[j]
		}
	}
	return out
}

// chi2Quantile is the p-quantile of the χ² distribution with df degrees
// of freedom: exact up to exactDF, Wilson and Hilferty's cube-root
// approximation above (within 1e-5 of it there, closer as df grows),
// where the incomplete gamma function's series no longer converges.
func chi2Quantile(p, df float64) float64 {
	if df > exactDF {
		z := math.Sqrt2 * math.Erfinv(2*p-1)
		h := 2 / (9 * df)
		return df * math.Pow(1-h+z*math.Sqrt(h), 3)
	}
	hi := df + 10*math.Sqrt(2*df) + 10
	for mathx.GammaInc(df/2, hi/2) < p {
		hi *= 2
	}
	return invert(func(x float64) float64 { return mathx.GammaInc(df/2, x/2) }, p, 0, hi)
}

// exactDF is the most degrees of freedom chi2Quantile computes exactly.
const exactDF = 300

// fQuantile is the p-quantile of the F distribution with d1 and d2
// degrees of freedom, found on u = d1·x/(d1·x + d2), which is Beta(d1/2,
// d2/2). Degrees of freedom above maxFDF are taken as maxFDF (the
// incomplete beta function's continued fraction no longer converges
// above it; the quantile then moves by less than 1e-4).
func fQuantile(p, d1, d2 float64) float64 {
	d1, d2 = min(d1, maxFDF), min(d2, maxFDF)
	u := invert(func(u float64) float64 { return mathx.BetaInc(u, d1/2, d2/2) }, p, 0, 1)
	return d2 * u / (d1 * (1 - u))
}

const maxFDF = 1e5

// invert finds x in [lo, hi] with cdf(x) = p by bisection; cdf must be
// non-decreasing there.
func invert(cdf func(float64) float64, p, lo, hi float64) float64 {
	for range 200 {
		mid := (lo + hi) / 2
		if cdf(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-12*math.Max(1, hi) {
			break
		}
	}
	return (lo + hi) / 2
}

// meanVar is the mean and the sample variance of xs (variance NaN for
// fewer than two).
func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	if len(xs) < 2 {
		return m, math.NaN()
	}
	for _, x := range xs {
		v += sq(x - m)
	}
	return m, v / float64(len(xs)-1)
}

func sq(x float64) float64 { return x * x }

// logs returns the logarithms of xs.
func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Log(x)
	}
	return out
}

// sortedKeys returns m's keys in order.
func sortedKeys[K interface{ ~int | ~int64 | ~string }, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// jackknife returns exp(stat) on n independent units (rounds), stat being
// on the log scale (the log of a variance, or of a ratio of variances),
// with the interval exp(stat ± t·SE) at level, SE the jackknife's
// standard error over the units left out one at a time and t Student's
// with n − 1 degrees of freedom. The log scale makes a variance's
// sampling distribution near symmetric; the jackknife needs no normal
// noise (Miller, 1968).
func jackknife(n int, stat func(idx []int) float64) estimate {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	v := stat(all)
	loo := make([]float64, n)
	idx := make([]int, 0, n-1)
	for k := range n {
		idx = append(append(idx[:0], all[:k]...), all[k+1:]...)
		loo[k] = stat(idx)
	}
	_, s2 := meanVar(loo)
	se := math.Sqrt(s2 * float64(n-1) * float64(n-1) / float64(n))
	t := math.Sqrt(fQuantile(level, 1, float64(n-1)))
	return estimate{V: math.Exp(v), Lo: math.Exp(v - t*se), Hi: math.Exp(v + t*se)}
}
