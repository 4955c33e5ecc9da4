package analysis

import (
	"math"
	"slices"
	"sort"
)

// Ratio is the paired comparison of two cells measured in the same rounds.
// Its estimand is the median of the per-round log-ratios
// d_r = log(num_r) − log(den_r), returned on the ratio scale: the ratio
// that half of the rounds exceed and half fall short of. Rounds interleave
// the cells, so a round's ratio cancels the drift both cells saw; and
// interference, which only ever slows a sample and comes in spells, moves
// the median only by the share of rounds it spoils, never by how much it
// slowed them. Every paired comparison reports this one estimand, decided
// or not, with one of two intervals:
//
//   - fixed rounds ([PairedLogs]): the sign test's order-statistic
//     interval, exact and distribution-free;
//   - rounds sampled until decided ([AnytimeLogs]): a confidence sequence
//     for the median, valid at whatever round the run stopped.
//
// Both assume only that rounds are independent and identically
// distributed: no symmetry, no finite variance, ties allowed.
type Ratio struct {
	N      int     // rounds in which both cells were measured
	Ratio  float64 // exp(median of the log-ratios); NaN when N = 0
	Lo, Hi float64 // confidence interval of the ratio; NaN when N is too small (at 95%: < 6 fixed, < 8 anytime)
	Conf   float64 // confidence level the interval achieves (≥ the one asked for); 0 without one
	P      float64 // two-sided p-value for "the median ratio is 1" (exact sign test, or anytime-valid); 1 when N = 0
	// E, for a sequential comparison ([BetLogs]), is an e-value for no
	// change, valid at any stopping time; 0 when not computed.
	E float64
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
	_, d := roundLogRatios(num, den)
	return d
}

// roundLogRatios is LogRatios with the round of each log-ratio.
func roundLogRatios(num, den map[int]float64) (rounds []int, d []float64) {
	rounds = make([]int, 0, len(num))
	for r, x := range num {
		if y, ok := den[r]; ok && x > 0 && y > 0 {
			rounds = append(rounds, r)
		}
	}
	slices.Sort(rounds)
	d = make([]float64, len(rounds))
	for i, r := range rounds {
		d[i] = math.Log(num[r]) - math.Log(den[r])
	}
	return rounds, d
}

// LogRatios returns the independent log-ratios of num against den under
// o: one per round, or, for a run whose rounds shared link layouts
// (o.PerLayout > 1), one per cluster of rounds on one layout, the median
// of the cluster's log-ratios, in cluster order.
func (o Options) LogRatios(num, den map[int]float64) []float64 {
	return o.clusters(roundLogRatios(num, den))
}

// clusters summarises per-round log-ratios d (of rounds, ascending) by
// cluster when rounds are clustered under o (the median of each
// cluster's log-ratios, in the order of the clusters' first rounds);
// otherwise it returns d.
func (o Options) clusters(rounds []int, d []float64) []float64 {
	if !o.Clustered() {
		return d
	}
	groups := o.Clusters(rounds)
	out := make([]float64, 0, len(groups))
	cur := make([]float64, 0, 8)
	for _, g := range groups {
		cur = cur[:0]
		for _, i := range g {
			cur = append(cur, d[i])
		}
		if s := sortedFinite(cur); len(s) > 0 {
			out = append(out, median(s))
		}
	}
	return out
}

// Clusters groups rounds into the independent units of o: it returns,
// for each cluster, the indexes into rounds of its rounds, clusters in
// the order of their first round (rounds need not be sorted, and a
// cluster's rounds need not be consecutive). Without clustering every
// round is a group of its own. Statistics that resample or pair rounds
// resample or summarise these groups.
func (o Options) Clusters(rounds []int) [][]int {
	order := make([]int, len(rounds))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rounds[a] - rounds[b] })
	if !o.Clustered() {
		out := make([][]int, len(order))
		for i, j := range order {
			out[i] = []int{j}
		}
		return out
	}
	index := map[int]int{}
	var out [][]int
	for _, j := range order {
		c := o.clusterOf(rounds[j])
		k, ok := index[c]
		if !ok {
			k = len(out)
			index[c] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], j)
	}
	return out
}

// LayoutSpread is what link layout alone moves a paired ratio by, from a
// run whose rounds shared layouts in clusters (o.PerLayout, o.ClusterOf):
// a one-way random-effects analysis of variance of the per-round
// log-ratios by cluster. Within a cluster both builds keep their layouts,
// so the log-ratios vary by noise alone (variance σ²_e, estimated by the
// within-cluster mean square MSW); across clusters by noise and the two
// builds' layouts (the between-cluster mean square MSB estimates
// σ²_e + n₀·σ²_L for clusters of n₀ rounds, n₀ their effective size when
// sizes differ). The layout component σ²_L = (MSB − MSW)/n₀, floored at
// 0, is returned as a log-scale standard deviation.
//
// Whether layout moves the ratio at all is the ANOVA F-test of σ²_L = 0:
// F = MSB/MSW follows Snedecor's F(g−1, N−g) for g clusters of N rounds
// when it does not (exactly for normal noise, whatever the clusters'
// sizes), so P, the chance of an F as large, is a test with a known null
// rate. Lo and Hi bound SD at 90% from the same law: the interval
// (F/F₀.₉₅ − 1)/n₀ ≤ σ²_L/σ²_e ≤ (F/F₀.₀₅ − 1)/n₀ (exact for balanced
// clusters of normal noise) scaled by MSW. Lo > 0 exactly when P < 5%.
type LayoutSpread struct {
	SD float64 // the layout component's standard deviation (log scale)
	// Lo and Hi bound SD at 90% (see above): Lo > 0 says layout moves the
	// ratio at all (the F-test at 5%); Hi is how much it could move it.
	Lo, Hi   float64
	Noise    float64 // the per-round noise's standard deviation (log scale)
	Clusters int
	// F is the variance ratio MSB/MSW and P its p-value under no layout
	// effect, P(F(Clusters−1, N−Clusters) ≥ F).
	F, P float64
}

// LayoutMoves is the level of the F-test behind [LayoutSpread]'s Lo: the
// one-sided 5% that a two-sided 90% interval leaves below its lower end.
const LayoutMoves = 0.05

// LayoutSpread estimates [LayoutSpread] for num against den; ok is false
// without at least three clusters of two rounds or more.
func (o Options) LayoutSpread(num, den map[int]float64) (LayoutSpread, bool) {
	if !o.Clustered() {
		return LayoutSpread{}, false
	}
	rounds, d := roundLogRatios(num, den)
	var groups [][]float64
	for _, g := range o.Clusters(rounds) {
		var vals []float64
		for _, i := range g {
			if !math.IsNaN(d[i]) {
				vals = append(vals, d[i])
			}
		}
		if len(vals) >= 2 {
			groups = append(groups, vals)
		}
	}
	a, ok := anovaLayout(groups)
	if !ok {
		return LayoutSpread{}, false
	}
	ls := LayoutSpread{SD: math.Sqrt(math.Max(0, (a.msb-a.msw)/a.n0)), Noise: math.Sqrt(a.msw), Clusters: len(groups)}
	d1, d2 := float64(len(groups)-1), float64(a.rounds-len(groups))
	switch {
	case a.msw == 0 && a.msb == 0: // every log-ratio the same
		ls.F, ls.P = math.NaN(), 1
		return ls, true
	case a.msw == 0: // no noise within clusters: the layouts are all there is
		ls.F, ls.P, ls.Lo, ls.Hi = math.Inf(1), 0, ls.SD, ls.SD
		return ls, true
	}
	ls.F = a.msb / a.msw
	ls.P = fSurvival(ls.F, d1, d2)
	bound := func(q float64) float64 {
		theta := (ls.F/fQuantile(q, d1, d2) - 1) / a.n0
		return math.Sqrt(math.Max(0, theta) * a.msw)
	}
	ls.Lo, ls.Hi = bound(1-LayoutMoves), bound(LayoutMoves)
	ls.Lo, ls.Hi = math.Min(ls.Lo, ls.SD), math.Max(ls.Hi, ls.SD)
	return ls, true
}

// anova is a one-way analysis of variance: the between- and
// within-group mean squares, the groups' effective size n₀ and the
// number of values.
type anova struct {
	msb, msw, n0 float64
	rounds       int
}

// anovaLayout is the one-way analysis of variance behind LayoutSpread,
// of groups of two or more log-ratios each; ok is false with fewer than
// three groups.
func anovaLayout(groups [][]float64) (anova, bool) {
	if len(groups) < 3 {
		return anova{}, false
	}
	var a anova
	sum, sumSq := 0.0, 0.0
	within := 0.0
	for _, g := range groups {
		m := mean(g)
		for _, x := range g {
			within += (x - m) * (x - m)
			sum += x
		}
		a.rounds += len(g)
		sumSq += float64(len(g) * len(g))
	}
	n, k := float64(a.rounds), float64(len(groups))
	grand := sum / n
	between := 0.0
	for _, g := range groups {
		m := mean(g)
		between += float64(len(g)) * (m - grand) * (m - grand)
	}
	a.msb, a.msw = between/(k-1), within/(n-k)
	a.n0 = (n - sumSq/n) / (k - 1)
	return a, true
}

// incBeta is the regularised incomplete beta function I_x(a, b), by its
// continued fraction (Lentz's method) on the side where it converges
// fast; NaN outside 0 ≤ x ≤ 1 or for a, b ≤ 0. It is not go-moremath's
// mathx.BetaInc, which panics when 200 terms do not converge (large a or
// b: the degrees of freedom of a long run's rounds); this one allows
// enough terms for any run and never panics.
func incBeta(x, a, b float64) float64 {
	switch {
	case !(a > 0 && b > 0) || !(x >= 0 && x <= 1):
		return math.NaN()
	case x == 0:
		return 0
	case x == 1:
		return 1
	}
	front := math.Exp(a*math.Log(x) + b*math.Log1p(-x) - logBeta(a, b))
	if x < (a+1)/(a+b+2) {
		return front * incBetaFraction(x, a, b) / a
	}
	return 1 - front*incBetaFraction(1-x, b, a)/b
}

// incBetaFraction is the continued fraction of I_x(a, b).
func incBetaFraction(x, a, b float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	clamp := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	c, d := 1.0, 1/clamp(1-(a+b)*x/(a+1))
	h := d
	for m := 1.0; m <= 100000; m++ {
		num := m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		h *= d * c
		num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		h *= d * c
		if math.Abs(d*c-1) < eps {
			break
		}
	}
	return h
}

// fSurvival is P(F > f) for F ~ F(d1, d2), Snedecor's F distribution.
func fSurvival(f, d1, d2 float64) float64 {
	if !(f > 0) {
		return 1
	}
	if math.IsInf(f, 1) {
		return 0
	}
	return incBeta(d2/(d2+d1*f), d2/2, d1/2)
}

// fQuantile is the p-quantile of F(d1, d2), by bisection on its
// distribution function.
func fQuantile(p, d1, d2 float64) float64 {
	if !(p > 0 && p < 1) {
		return math.NaN()
	}
	lo, hi := 0.0, 1.0
	for 1-fSurvival(hi, d1, d2) < p && hi < 1e300 {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := lo/2 + hi/2
		if 1-fSurvival(mid, d1, d2) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo <= 1e-12*hi {
			break
		}
	}
	return lo/2 + hi/2
}

// Clustered reports whether rounds form clusters under o: paired
// statistics then count clusters, not rounds.
func (o Options) Clustered() bool { return o.ClusterOf != nil || o.PerLayout > 1 }

// clusterOf is round's cluster under o.
func (o Options) clusterOf(round int) int {
	if o.ClusterOf != nil {
		return o.ClusterOf(round)
	}
	return (round - 1) / max(1, o.PerLayout)
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// geomeanRoundLogs is, in each round where every pair was measured, the
// mean of the pairs' log-ratios, in round order, with the rounds.
func geomeanRoundLogs(pairs [][2]map[int]float64) ([]int, []float64) {
	if len(pairs) == 0 {
		return nil, nil
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
	return rounds, d
}

// PairedLogs summarises per-round log-ratios d for a fixed number of
// rounds (see [Ratio]). The estimate is the sample median. The interval is
// [d_(k), d_(N+1−k)], the k-th smallest and the k-th largest log-ratio, for
// the largest k with P(B < k) ≤ (1 − confidence)/2, B ~ Binomial(N, ½):
// the sign test's interval, exact for any distribution of d, each bound a
// one-sided bound at half of 1 − confidence (ties only make it
// conservative). At 95% it needs 6 rounds. P is the exact two-sided sign
// test of a zero median, 2·P(B ≤ min(#{d ≤ 0}, #{d ≥ 0})) capped at 1: a
// zero counts against both sides, so P ≤ 1 − confidence exactly when the
// interval excludes 1. NaN log-ratios are ignored.
func PairedLogs(d []float64, confidence float64) Ratio {
	s := sortedFinite(d)
	r := Ratio{N: len(s), Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: 1}
	if len(s) == 0 {
		return r
	}
	r.Ratio = math.Exp(median(s))
	if confidence > 0 && confidence < 1 {
		if j, tail := signCritical(len(s), (1-confidence)/2); j >= 0 {
			r.Lo, r.Hi, r.Conf = math.Exp(s[j]), math.Exp(s[len(s)-1-j]), 1-2*tail
		}
	}
	r.P = math.Min(1, 2*binomialHalfCDF(len(s), signCount(s)))
	return r
}

// signCount is the sign statistic of sorted values s for a zero median:
// min(#{s ≤ 0}, #{s ≥ 0}), so that a zero counts against both sides.
func signCount(s []float64) int {
	atMost := sort.Search(len(s), func(i int) bool { return s[i] > 0 })
	below := sort.Search(len(s), func(i int) bool { return s[i] >= 0 })
	return min(atMost, len(s)-below)
}

// binomialHalfCDF is P(B ≤ j) for B ~ Binomial(n, ½).
func binomialHalfCDF(n, j int) float64 {
	if j < 0 {
		return 0
	}
	if j >= n {
		return 1
	}
	logp := -float64(n) * math.Ln2 // log P(B = 0)
	sum := 0.0
	for i := 0; i <= j; i++ {
		sum += math.Exp(logp)
		logp += math.Log(float64(n-i)) - math.Log(float64(i+1))
	}
	return math.Min(1, sum)
}

// signCritical returns the largest j with P(B ≤ j) ≤ tail for
// B ~ Binomial(n, ½), and that probability; j is −1 (probability 0) when
// even P(B = 0) = 2^−n exceeds tail. The sign-test interval of n sorted
// values at two-sided level 1 − 2·tail is then [s[j], s[n−1−j]].
func signCritical(n int, tail float64) (j int, p float64) {
	logp := -float64(n) * math.Ln2
	j = -1
	for i := 0; 2*i < n; i++ {
		next := p + math.Exp(logp)
		if next > tail {
			break
		}
		j, p = i, next
		logp += math.Log(float64(n-i)) - math.Log(float64(i+1))
	}
	return j, p
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
	return o.PairedLogs(o.LogRatios(num, den))
}

// PairedLogs summarises per-round log-ratios at the options' confidence:
// their median with the fixed-n sign-test interval ([PairedLogs]), or
// with o.Anytime with the confidence sequence of [AnytimeLogs].
func (o Options) PairedLogs(d []float64) Ratio {
	if o.Anytime {
		return AnytimeLogs(d, o.Confidence, o.AnytimeTarget)
	}
	return PairedLogs(d, o.Confidence)
}

// Geomean is the paired geometric mean of several ratios: in each round
// where every pair was measured, the mean of the pairs' log-ratios, then
// [Options.PairedLogs] over those per-round means (per layout cluster
// under o.PerLayout, as [Options.LogRatios]). pairs[i] is {num, den}.
func (o Options) Geomean(pairs [][2]map[int]float64) Ratio {
	return o.PairedLogs(o.clusters(geomeanRoundLogs(pairs)))
}

// PairedIntervalName names the interval [Options.PairedLogs] gives, for
// the text beside a ratio: "sign-test interval", or "anytime-valid
// confidence sequence" with o.Anytime.
func (o Options) PairedIntervalName() string {
	if o.Anytime {
		return "anytime-valid confidence sequence"
	}
	return "sign-test interval"
}

// FixedFirstInterval is the fewest observations (rounds, or layout
// clusters) for which [PairedLogs] gives an interval at confidence: the
// sign test's interval needs P(B = 0) = 2^−n ≤ (1 − confidence)/2: 6 at
// 95%, 9 at 1 − 0.05/10.
func FixedFirstInterval(confidence float64) int {
	if !(confidence > 0 && confidence < 1) {
		return 0
	}
	n := 1
	for ; n < 64; n++ {
		if j, _ := signCritical(n, (1-confidence)/2); j >= 0 {
			break
		}
	}
	return n
}
