package claim

import (
	"fmt"
	"math"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// correlationThreshold resolves a correlation check's threshold: for a
// claimed coefficient (effect) the Fisher-z midpoint tanh(atanh(r)/2),
// else the stated op and value.
func correlationThreshold(ch spec.Check) threshold {
	t := plainThreshold(ch)
	if ch.Effect == 0 || math.IsNaN(ch.Effect) {
		return t
	}
	t.claimed = ch.Effect
	t.op = ">"
	if ch.Effect < 0 {
		t.op = "<"
	}
	if ch.Why != "" && ch.Value != 0 {
		t.origin = fmt.Sprintf("stated: %s; the claimed r = %.3g", ch.Why, ch.Effect)
		return t
	}
	t.value = analysis.FisherMidpoint(ch.Effect)
	t.origin = fmt.Sprintf("tanh(atanh(%.3g)/2): midpoint on Fisher's z scale between no correlation and the claimed r = %.3g", ch.Effect, ch.Effect)
	return t
}

// correlation judges a check of kind "correlation": the cell num reports,
// in unit, one Pearson coefficient per round, computed by the benchmark
// over the time series it sampled during that round. The coefficients are
// summarised over rounds on Fisher's z scale (analysis.CorrelationRounds)
// and the interval is compared with the threshold.
func correlation(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := ch.Unit
	label := short(ch.Num)
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	th := correlationThreshold(ch)
	cr := noInterval(th.predicate("r("+unit+")", label), unit)
	th.fill(&cr)
	s, err := selectOne(samples, unit, ch.Where, ch.Num)
	if err != nil {
		cr.Verdict, cr.Reason = NotTestable, err.Error()+" (the benchmark reports a coefficient only when both series varied in a round)"
		return cr
	}
	c := opt.CorrelationRounds(s.Values)
	if c.N == 0 {
		cr.Verdict, cr.Reason = NotTestable, fmt.Sprintf("%s %s has no coefficient in (−1, 1) in this run", unit, label)
		return cr
	}
	cr.Estimate = c.R
	if !c.HasInterval() {
		cr.Measured = fmt.Sprintf("r(%s) %s = %.3g (%d rounds)", unit, label, c.R, c.N)
		cr.Verdict, cr.Reason = Inconclusive, fmt.Sprintf("%d rounds with a coefficient are too few for an interval (need 6)", c.N)
		return cr
	}
	cr.Lo, cr.Hi = c.Lo, c.Hi
	cr.Measured = fmt.Sprintf("r(%s) %s = %.3g [%.3g, %.3g] (median over %d rounds, interval on Fisher's z scale)", unit, label, c.R, c.Lo, c.Hi, c.N)
	cr.Verdict, cr.Reason = th.judge(c.Lo, c.Hi, "r "+label)
	return cr
}
