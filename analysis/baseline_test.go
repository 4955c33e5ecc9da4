package analysis

// The rules perflab used for paired comparisons before the median of the
// per-round log-ratios, kept here only as baselines that the calibration
// tests measure the median's rules against on the same data: the
// Hodges–Lehmann estimate with the Wilcoxon signed-rank interval (fixed
// rounds) and the asymptotic confidence sequence for the mean (sequential
// rounds).

import (
	"math"
	"sort"
)

// hodgesLehmann is the fixed-n rule perflab used before the median: the
// Hodges–Lehmann median of the Walsh averages, the signed-rank interval
// (exact for N ≤ 200, normal approximation above), which assumes d is
// symmetric about its centre, and the signed-rank test of a zero centre.
func hodgesLehmann(d []float64, confidence float64) Ratio {
	r := Ratio{N: len(d), Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: 1}
	if len(d) == 0 {
		return r
	}
	w := walsh(d)
	r.Ratio = math.Exp(median(w))
	alpha := 1 - confidence
	if c, conf, ok := signedRankCritical(len(d), alpha); ok {
		m := len(w)
		r.Lo, r.Hi, r.Conf = math.Exp(w[c]), math.Exp(w[m-1-c]), conf
	}
	r.P = signedRankP(d)
	return r
}

// walsh returns the sorted Walsh averages (d_i + d_j)/2, i ≤ j.
func walsh(d []float64) []float64 {
	n := len(d)
	w := make([]float64, 0, n*(n+1)/2)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			w = append(w, (d[i]+d[j])/2)
		}
	}
	sort.Float64s(w)
	return w
}

// signedRankCDF returns P(T ≤ t) for t = 0..n(n+1)/2, where T is the
// signed-rank statistic of n observations under the null hypothesis.
func signedRankCDF(n int) []float64 {
	top := n * (n + 1) / 2
	p := make([]float64, top+1)
	p[0] = 1
	hi := 0
	for k := 1; k <= n; k++ {
		hi += k
		for t := hi; t >= 0; t-- {
			v := p[t] / 2
			if t >= k {
				v += p[t-k] / 2
			}
			p[t] = v
		}
	}
	for t := 1; t <= top; t++ {
		p[t] += p[t-1]
	}
	return p
}

// signedRankCritical returns the 0-based index c such that the Walsh
// averages W[c] and W[M−1−c] bound a confidence interval of level ≥
// 1−alpha (c is the largest t with P(T ≤ t) ≤ alpha/2), and the level the
// interval achieves. ok is false when no interval reaches it (n too small).
func signedRankCritical(n int, alpha float64) (c int, conf float64, ok bool) {
	if n < 1 {
		return 0, 0, false
	}
	if n > 200 {
		// Normal approximation of the signed-rank distribution.
		mu := float64(n*(n+1)) / 4
		sd := math.Sqrt(float64(n*(n+1)*(2*n+1)) / 24)
		c = int(math.Floor(mu - normalQuantile(1-alpha/2)*sd - 0.5))
		if c < 0 {
			return 0, 0, false
		}
		return c, 1 - alpha, true
	}
	cdf := signedRankCDF(n)
	c = -1
	for t := 0; t < len(cdf) && cdf[t] <= alpha/2; t++ {
		c = t
	}
	if c < 0 {
		return 0, 0, false
	}
	return c, 1 - 2*cdf[c], true
}

// signedRankP is the two-sided Wilcoxon signed-rank p-value for the
// hypothesis that d is centred on 0. Zeros are dropped; ties get average
// ranks and the normal approximation with tie correction, otherwise the
// exact distribution is used for up to 200 values.
func signedRankP(d []float64) float64 {
	var nz []float64
	for _, x := range d {
		if x != 0 && !math.IsNaN(x) {
			nz = append(nz, x)
		}
	}
	n := len(nz)
	if n == 0 {
		return 1
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(nz[idx[a]]) < math.Abs(nz[idx[b]]) })
	ranks := make([]float64, n)
	ties := false
	tieTerm := 0.0
	for i := 0; i < n; {
		j := i
		for j+1 < n && math.Abs(nz[idx[j+1]]) == math.Abs(nz[idx[i]]) {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = avg
		}
		if t := float64(j - i + 1); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j + 1
	}
	tplus := 0.0
	for i, x := range nz {
		if x > 0 {
			tplus += ranks[i]
		}
	}
	if !ties && n <= 200 {
		cdf := signedRankCDF(n)
		t := int(math.Round(tplus))
		lower := cdf[t]
		upper := 1.0
		if t > 0 {
			upper = 1 - cdf[t-1]
		}
		return math.Min(1, 2*math.Min(lower, upper))
	}
	mu := float64(n*(n+1)) / 4
	v := float64(n*(n+1)*(2*n+1))/24 - tieTerm/48
	if v <= 0 {
		return 1
	}
	z := (math.Abs(tplus-mu) - 0.5) / math.Sqrt(v)
	if z < 0 {
		z = 0
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// normalQuantile is the standard normal quantile function.
func normalQuantile(p float64) float64 { return -math.Sqrt2 * math.Erfcinv(2*p) }

// asymptoticLogs is the sequential rule perflab used before the median's
// confidence sequence: the asymptotic confidence sequence for the mean of
// Waudby-Smith, Arbour, Sinha, Kennedy and Ramdas (Annals of Statistics
// 2024, arXiv:2103.06476), Theorem 2.2, the Robbins normal-mixture
// boundary with the empirical variance, σ̂ widened by Student's t at few
// rounds; no interval before 8 rounds; tuned for round target (0 → 30).
// The estimate is exp of the mean log-ratio.
func asymptoticLogs(d []float64, confidence float64, target int) Ratio {
	r := Ratio{N: len(d), Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: 1}
	if len(d) == 0 {
		return r
	}
	mean, sd := meanSD(d)
	r.Ratio = math.Exp(mean)
	if len(d) < 8 || !(confidence > 0 && confidence < 1) {
		return r
	}
	alpha := 1 - confidence
	rho2 := anytimeRho2(alpha, target)
	t := float64(len(d))
	sd *= smallSampleInflation(len(d), rho2, alpha)
	if sd == 0 {
		// Every round gave the same log-ratio: no spread to bound.
		r.Lo, r.Hi, r.Conf, r.P = r.Ratio, r.Ratio, confidence, 0
		if mean == 0 {
			r.P = 1
		}
		return r
	}
	w := sd * anytimeRadius(t, rho2, alpha)
	r.Lo, r.Hi, r.Conf = math.Exp(mean-w), math.Exp(mean+w), confidence
	// P: solve sd·radius(t, ρ, p) = |mean| for p, with ρ fixed.
	a := t*rho2 + 1
	z := mean * mean * t * t * rho2 / (2 * sd * sd * a)
	r.P = math.Min(1, math.Sqrt(a)*math.Exp(-z))
	return r
}

// anytimeRadius is the boundary of the normal-mixture confidence sequence
// for unit variance at round t.
func anytimeRadius(t, rho2, alpha float64) float64 {
	a := t*rho2 + 1
	return math.Sqrt(2 * a / (t * t * rho2) * math.Log(math.Sqrt(a)/alpha))
}

// anytimeRho2 is ρ² tuned to make the boundary tightest at round target.
func anytimeRho2(alpha float64, target int) float64 {
	if target <= 0 {
		target = 30
	}
	l := -2 * math.Log(alpha)
	return (l + math.Log(l+1)) / float64(target)
}

// smallSampleInflation widens σ̂ at few rounds, where the empirical
// standard deviation underestimates σ more often than not. The boundary
// at round n is z·σ/√n for an effective normal quantile z =
// √n·radius(n); with σ estimated from n−1 degrees of freedom the same
// tail needs Student's t quantile instead, so σ̂ is scaled by t(z, n−1)/z
// (e.g. ≈1.5 at 8 rounds, ≈1.1 at 30, → 1): the plug-in correction a
// fixed-n t interval makes, applied at the sequence's own level.
func smallSampleInflation(n int, rho2, alpha float64) float64 {
	if n < 2 {
		return math.Inf(1)
	}
	z := math.Sqrt(float64(n)) * anytimeRadius(float64(n), rho2, alpha)
	return studentQuantile(z, n-1) / z
}

// studentQuantile maps a standard normal quantile z to the Student t
// quantile of the same tail probability with df degrees of freedom
// (Cornish–Fisher expansion; within 1% for df ≥ 5 and z ≤ 3.5).
func studentQuantile(z float64, df int) float64 {
	v := float64(df)
	z3, z5, z7 := z*z*z, math.Pow(z, 5), math.Pow(z, 7)
	return z + (z3+z)/(4*v) + (5*z5+16*z3+3*z)/(96*v*v) + (3*z7+19*z5+17*z3-15*z)/(384*v*v*v)
}

// meanSD is the mean and the (n−1) standard deviation of d.
func meanSD(d []float64) (mean, sd float64) {
	for _, x := range d {
		mean += x
	}
	mean /= float64(len(d))
	if len(d) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(d)-1))
}
