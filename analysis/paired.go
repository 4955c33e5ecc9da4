package analysis

import (
	"math"
	"slices"
	"sort"
)

// Ratio is the paired comparison of two cells measured in the same rounds:
// the per-round log-ratios d_r = log(num_r) − log(den_r), their
// Hodges–Lehmann estimate and the Wilcoxon signed-rank confidence interval
// and test, returned on the ratio scale. Rounds interleave the cells, so a
// round's ratio cancels the drift both cells saw.
type Ratio struct {
	N      int     // rounds in which both cells were measured
	Ratio  float64 // exp(Hodges–Lehmann estimate of the log-ratios); NaN when N = 0
	Lo, Hi float64 // confidence interval of the ratio; NaN when N is too small (< 6 at 95%)
	Conf   float64 // confidence level the interval achieves (≥ the one asked for); 0 without one
	P      float64 // two-sided signed-rank p-value for "the ratio is 1"; 1 when N = 0
}

// HalfWidth is half the interval's width relative to the estimate on the
// log scale, as a fraction: (log Hi − log Lo)/2, e.g. 0.01 for ±1%. It is
// +Inf without an interval.
func (r Ratio) HalfWidth() float64 {
	if !r.HasInterval() {
		return math.Inf(1)
	}
	return (math.Log(r.Hi) - math.Log(r.Lo)) / 2
}

// HasInterval reports whether the ratio has a confidence interval.
func (r Ratio) HasInterval() bool { return !math.IsNaN(r.Lo) && !math.IsNaN(r.Hi) }

// Excludes reports whether the interval lies wholly above or below x.
func (r Ratio) Excludes(x float64) bool { return r.HasInterval() && (r.Lo > x || r.Hi < x) }

// LogRatios returns log(num[r]/den[r]) for every round present in both maps
// with positive values, in round order.
func LogRatios(num, den map[int]float64) []float64 {
	rounds := make([]int, 0, len(num))
	for r, x := range num {
		if y, ok := den[r]; ok && x > 0 && y > 0 {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	out := make([]float64, len(rounds))
	for i, r := range rounds {
		out[i] = math.Log(num[r]) - math.Log(den[r])
	}
	return out
}

// PairedRatio compares num with den round by round (see [Ratio]).
func PairedRatio(num, den map[int]float64, confidence float64) Ratio {
	return PairedLogs(LogRatios(num, den), confidence)
}

// GeomeanRatio is the paired geometric mean of several ratios: in each
// round where every pair was measured, the mean of the pairs' log-ratios,
// then [PairedLogs] over those per-round means. pairs[i] is {num, den}.
func GeomeanRatio(pairs [][2]map[int]float64, confidence float64) Ratio {
	return PairedLogs(geomeanLogs(pairs), confidence)
}

// geomeanLogs is, in each round where every pair was measured, the mean of
// the pairs' log-ratios, in round order.
func geomeanLogs(pairs [][2]map[int]float64) []float64 {
	if len(pairs) == 0 {
		return nil
	}
	sum := map[int]float64{}
	count := map[int]int{}
	for _, p := range pairs {
		for r, x := range p[0] {
			if y, ok := p[1][r]; ok && x > 0 && y > 0 {
				sum[r] += math.Log(x) - math.Log(y)
				count[r]++
			}
		}
	}
	rounds := make([]int, 0, len(sum))
	for r, c := range count {
		if c == len(pairs) {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	d := make([]float64, len(rounds))
	for i, r := range rounds {
		d[i] = sum[r] / float64(len(pairs))
	}
	return d
}

// PairedLogs summarises per-round log-ratios d (see [Ratio]). The
// estimate is the Hodges–Lehmann median of the Walsh averages; the
// interval is the signed-rank interval, exact for N ≤ 200 (normal
// approximation above), so it assumes only that d is symmetric about its
// centre; the p-value is the signed-rank test of a zero centre, exact
// without ties.
func PairedLogs(d []float64, confidence float64) Ratio {
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
	r.P = SignedRankP(d)
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

func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
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

// SignedRankP is the two-sided Wilcoxon signed-rank p-value for the
// hypothesis that d is centred on 0. Zeros are dropped; ties get average
// ranks and the normal approximation with tie correction, otherwise the
// exact distribution is used for up to 200 values.
func SignedRankP(d []float64) float64 {
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

// Holm adjusts p-values for the family-wise error rate (Holm, 1979): a
// hypothesis is rejected at level α when its adjusted p-value is ≤ α.
func Holm(ps []float64) []float64 {
	n := len(ps)
	idx := sortedIdx(ps)
	adj := make([]float64, n)
	running := 0.0
	for k, i := range idx {
		v := math.Min(1, float64(n-k)*ps[i])
		running = math.Max(running, v)
		adj[i] = running
	}
	return adj
}

// BH adjusts p-values for the false discovery rate (Benjamini & Hochberg,
// 1995): hypotheses whose adjusted p-value is ≤ q are discoveries at FDR q.
func BH(ps []float64) []float64 {
	n := len(ps)
	idx := sortedIdx(ps)
	adj := make([]float64, n)
	running := 1.0
	for k := n - 1; k >= 0; k-- {
		i := idx[k]
		v := math.Min(1, ps[i]*float64(n)/float64(k+1))
		running = math.Min(running, v)
		adj[i] = running
	}
	return adj
}

func sortedIdx(ps []float64) []int {
	idx := make([]int, len(ps))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ps[idx[a]] < ps[idx[b]] })
	return idx
}

// Paired compares num with den round by round at the options' confidence.
// Every comparison of two cells goes through here (or [Options.PairedLogs]
// and [Options.Geomean]), so a run analysed under another rule (a
// sequential run's anytime-valid intervals) changes in one place.
func (o Options) Paired(num, den map[int]float64) Ratio {
	return o.PairedLogs(LogRatios(num, den))
}

// PairedLogs summarises per-round log-ratios at the options' confidence:
// the fixed-n signed-rank interval, or with o.Anytime the confidence
// sequence of [AnytimeLogs].
func (o Options) PairedLogs(d []float64) Ratio {
	if o.Anytime {
		return AnytimeLogs(d, o.Confidence, o.AnytimeTarget)
	}
	return PairedLogs(d, o.Confidence)
}

// Geomean is the paired geometric mean of several ratios (see [GeomeanRatio]).
func (o Options) Geomean(pairs [][2]map[int]float64) Ratio {
	if o.Anytime {
		return o.PairedLogs(geomeanLogs(pairs))
	}
	return GeomeanRatio(pairs, o.Confidence)
}

// RepeatEstimate is one process's value from the repeated timed runs it
// made of the same benchmark (k back-to-back repetitions of equal
// iteration counts): their median. Interference only ever adds time and
// comes in spells, so it spoils some repetitions of a process while others
// run clean; the median ignores a spoiled minority, where one long timed
// run absorbs every spell into its mean. The repetitions are not
// independent samples: the process, not the repetition, is the unit of a
// round, and every interval is computed across rounds.
func RepeatEstimate(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return median(s)
}
