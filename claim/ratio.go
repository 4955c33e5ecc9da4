package claim

import (
	"math"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// ratio judges num/den against its threshold (see the package
// documentation). When both cells carry their rounds the ratio is paired by
// round: analysis's Options.Paired, the median of the per-round log-ratios
// with its sign-test interval (a confidence sequence in a sequential run).
// Two fallbacks are labelled as such in the measurement: cells with a zero
// value (no log-ratio), where the per-round ratios' median interval is
// used, or the difference when the denominator is zero; and cells without
// rounds, where the interval is the quotient of the two medians' intervals
// (unpaired, conservative). The fallbacks count the independent unit as
// the paired ratio does: cells whose rounds cluster under opt (a layout
// cluster, a machine's cluster; analysis.Options.Clusters) are summarised
// by each cluster's median first (analysis.Options.ClusterMedians), so
// that an interval counts clusters, not the rounds that shared one.
func ratio(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	th := ratioThreshold(ch)
	cr := th.check(ch, unit)
	fail := func(v Verdict, why Reason) CheckResult {
		cr.Verdict, cr.Why = v, why
		return cr
	}
	num, err := selectOne(samples, unit, ch.Where, ch.Num)
	if err != nil {
		return fail(NotTestable, failed(err))
	}
	den, err := selectOne(samples, unit, ch.Where, ch.Den)
	if err != nil {
		return fail(NotTestable, failed(err))
	}
	a, b := num.ByRound(), den.ByRound()
	switch {
	case a != nil && b != nil && allPositive(num.Values) && allPositive(den.Values):
		r := opt.Paired(a, b)
		if r.N == 0 {
			return fail(NotTestable, Reason{Why: NoSharedRound})
		}
		cr.Estimate, cr.Lo, cr.Hi = r.Ratio, r.Lo, r.Hi
		cr.Sequence = opt.Anytime
		if !r.HasInterval() {
			cr.Measure = Measure{How: PairedTooFew, N: r.N}
			return fail(Inconclusive, Reason{Why: TooFewRounds, N: r.N, Conf: opt.Confidence, IntervalName: opt.PairedIntervalName()})
		}
		cr.Measure = Measure{How: PairedRounds, N: r.N, Conf: r.Conf, IntervalName: opt.PairedIntervalName(), P: r.P}
	case a != nil && b != nil && allPositive(den.Values):
		// A zero in num has no log: the per-round ratios themselves,
		// one value a cluster.
		per := opt.ClusterMedians(pairedRatios(a, b))
		s := analysis.Summarize(per, opt)
		cr.Estimate, cr.Lo, cr.Hi = s.Center, s.Lo, s.Hi
		cr.Measure = Measure{How: PerRoundRatios, N: len(per)}
	default:
		n, d := analysis.Summarize(clusterValues(num, a, opt), opt), analysis.Summarize(clusterValues(den, b, opt), opt)
		if anyInf(n.Lo, n.Hi, d.Lo, d.Hi) {
			cr.Measure = Measure{How: MediansOnly, Value: n.Center / d.Center, N: n.N, Of: d.N}
			return fail(Inconclusive, Reason{Why: FewSamplesPerCell})
		}
		if !(d.Lo > 0) {
			return differenceCheck(cr, th, n, d)
		}
		cr.Estimate = n.Center / d.Center
		cr.Lo, cr.Hi = quotientInterval(n, d)
		cr.Measure = Measure{How: UnpairedQuotient}
	}
	if anyInf(cr.Lo, cr.Hi) {
		return fail(Inconclusive, Reason{Why: FewRounds})
	}
	cr.Verdict, cr.Why = th.judge(cr.Lo, cr.Hi)
	return cr
}

func allPositive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) {
			return false
		}
	}
	return len(xs) > 0
}

func anyInf(xs ...float64) bool {
	for _, x := range xs {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return true
		}
	}
	return false
}

// differenceCheck handles a ratio whose denominator's interval reaches
// zero (e.g. 0 allocs/op): only a direction can be judged, num above or
// below den, from the two medians' intervals.
func differenceCheck(cr CheckResult, th threshold, n, d analysis.Summary) CheckResult {
	cr.Measure = Measure{How: ZeroDenominator, Num: Median{n.Center, n.Lo, n.Hi}, Den: Median{d.Center, d.Lo, d.Hi}}
	if th.op == "~" {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: BandAtZero}
		return cr
	}
	// num above den means num/den > 1 (any ratio at all when den is
	// exactly zero); num below den means num/den < 1.
	above, below := n.Lo > d.Hi, n.Hi < d.Lo
	aboveAny := above && d.Hi == 0
	switch {
	case th.op == ">" && (aboveAny || above && th.value <= 1), th.op == "<" && below && th.value >= 1:
		cr.Verdict = Reproduced
	case th.op == ">" && below && th.value >= 1, th.op == "<" && above && th.value <= 1:
		cr.Verdict, cr.Why = Contradicted, Reason{Why: AgainstAtZero}
	case above || below:
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: UnsureAtZero}
	default:
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: Overlap}
	}
	return cr
}

// pairedRatios divides a by b within each round both were measured in.
func pairedRatios(a, b map[int]float64) map[int]float64 {
	out := map[int]float64{}
	for r, x := range a {
		if y, ok := b[r]; ok && y != 0 {
			out[r] = x / y
		}
	}
	return out
}

// clusterValues is a cell's values as the unpaired fallbacks summarise
// them: one a cluster of rounds under opt (the median of its rounds) when
// the cell carries its rounds (byRound), else every value.
func clusterValues(s *analysis.Sample, byRound map[int]float64, opt analysis.Options) []float64 {
	if byRound == nil {
		return s.Values
	}
	return opt.ClusterMedians(byRound)
}

// quotientInterval bounds n/d from the two medians' intervals.
func quotientInterval(n, d analysis.Summary) (lo, hi float64) {
	cands := []float64{n.Lo / d.Lo, n.Lo / d.Hi, n.Hi / d.Lo, n.Hi / d.Hi}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range cands {
		lo, hi = math.Min(lo, c), math.Max(hi, c)
	}
	return lo, hi
}
