package claim

import (
	"fmt"
	"math"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// ratio judges num/den against its threshold (see Rule). When both cells
// carry their rounds the ratio is paired by round: analysis's
// Options.Paired, the median of the per-round log-ratios with its
// sign-test interval (a confidence sequence in a sequential run). Two fallbacks are labelled as such in the
// measurement: cells with a zero value (no log-ratio), where the per-round
// ratios' median interval is used, or the difference when the
// denominator is zero; and cells without rounds, where the interval is
// the quotient of the two medians' intervals (unpaired, conservative).
func ratio(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	th := ratioThreshold(ch)
	label := fmt.Sprintf("%s / %s", short(ch.Num), short(ch.Den))
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	cr := noInterval(th.predicate(unit, label), unit)
	th.fill(&cr)
	fail := func(v Verdict, reason string) CheckResult {
		cr.Verdict, cr.Reason = v, reason
		return cr
	}
	num, err := selectOne(samples, unit, ch.Where, ch.Num)
	if err != nil {
		return fail(NotTestable, err.Error())
	}
	den, err := selectOne(samples, unit, ch.Where, ch.Den)
	if err != nil {
		return fail(NotTestable, err.Error())
	}
	a, b := num.ByRound(), den.ByRound()
	var how string
	switch {
	case a != nil && b != nil && allPositive(num.Values) && allPositive(den.Values):
		r := opt.Paired(a, b)
		if r.N == 0 {
			return fail(NotTestable, fmt.Sprintf("%s: the two cells share no round", label))
		}
		cr.Estimate, cr.Lo, cr.Hi = r.Ratio, r.Lo, r.Hi
		cr.Sequence = opt.Anytime
		if !r.HasInterval() {
			cr.Measured = fmt.Sprintf("%s %s = %.3g (paired over %d rounds)", unit, label, r.Ratio, r.N)
			return fail(Inconclusive, fmt.Sprintf("%d paired rounds are too few for a %.4g%% %s", r.N, opt.Confidence*100, opt.PairedIntervalName()))
		}
		how = fmt.Sprintf("paired over %d rounds: median, %.1f%% %s, p=%.2g", r.N, r.Conf*100, opt.PairedIntervalName(), r.P)
	case a != nil && b != nil && allPositive(den.Values):
		// A zero in num has no log: the per-round ratios themselves.
		per := pairedRatios(a, b)
		s := analysis.Summarize(per, opt)
		cr.Estimate, cr.Lo, cr.Hi = s.Center, s.Lo, s.Hi
		how = fmt.Sprintf("fallback for zero values: median of %d per-round ratios", len(per))
	default:
		n, d := analysis.Summarize(num.Values, opt), analysis.Summarize(den.Values, opt)
		if anyInf(n.Lo, n.Hi, d.Lo, d.Hi) {
			cr.Measured = fmt.Sprintf("%s %s = %.3g (n=%d/%d)", unit, label, n.Center/d.Center, n.N, d.N)
			return fail(Inconclusive, "fewer than 6 samples per cell: no confidence interval")
		}
		if !(d.Lo > 0) {
			return differenceCheck(cr, th, unit, label, n, d)
		}
		cr.Estimate = n.Center / d.Center
		cr.Lo, cr.Hi = quotientInterval(n, d)
		how = "unpaired fallback: the cells carry no rounds; quotient of the medians' intervals"
	}
	cr.Measured = fmt.Sprintf("%s %s = %.3g [%.3g, %.3g] (%s)", unit, label, cr.Estimate, cr.Lo, cr.Hi, how)
	if anyInf(cr.Lo, cr.Hi) {
		return fail(Inconclusive, "fewer than 6 rounds: no confidence interval")
	}
	cr.Verdict, cr.Reason = th.judge(cr.Lo, cr.Hi, label)
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
func differenceCheck(cr CheckResult, th threshold, unit, label string, n, d analysis.Summary) CheckResult {
	cr.Measured = fmt.Sprintf("%s %s: %.3g [%.3g, %.3g] vs %.3g [%.3g, %.3g] (fallback for a zero denominator: medians' intervals compared)",
		unit, label, n.Center, n.Lo, n.Hi, d.Center, d.Lo, d.Hi)
	if th.op == "~" {
		cr.Verdict, cr.Reason = NotTestable, "the denominator reaches zero: an equivalence band cannot be tested"
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
		cr.Verdict, cr.Reason = Contradicted, fmt.Sprintf("expected %s %s %.3g", label, th.op, th.value)
	case above || below:
		cr.Verdict, cr.Reason = Inconclusive, fmt.Sprintf("the denominator reaches zero: the direction is clear, but not whether %s %s %.3g", label, th.op, th.value)
	default:
		cr.Verdict, cr.Reason = Inconclusive, "the two intervals overlap"
	}
	return cr
}

// pairedRatios divides a by b within each round both were measured in.
func pairedRatios(a, b map[int]float64) []float64 {
	var out []float64
	for r, x := range a {
		if y, ok := b[r]; ok && y != 0 {
			out = append(out, x/y)
		}
	}
	return out
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
