package claim

import (
	"fmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// value judges one cell's median against a threshold: median Op Value.
// The check is reproduced when the whole confidence interval of the median
// satisfies the relation, contradicted when the whole interval violates it,
// and inconclusive when the interval straddles the threshold or the cell
// has fewer than six samples (no interval).
func value(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	label := short(ch.Num)
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	th := plainThreshold(ch)
	cr := noInterval(th.predicate(unit, label), unit)
	th.fill(&cr)
	s, err := selectOne(samples, unit, ch.Where, ch.Num)
	if err != nil {
		cr.Verdict, cr.Reason = NotTestable, err.Error()
		return cr
	}
	sum := analysis.Summarize(s.Values, opt)
	if anyInf(sum.Center) {
		cr.Verdict, cr.Reason = NotTestable, fmt.Sprintf("%s %s has no values in this run", unit, label)
		return cr
	}
	cr.Estimate = sum.Center
	if anyInf(sum.Lo, sum.Hi) {
		cr.Measured = fmt.Sprintf("%s %s = %.3g (n=%d)", unit, label, sum.Center, sum.N)
		cr.Verdict, cr.Reason = Inconclusive, "fewer than 6 samples: no confidence interval"
		return cr
	}
	cr.Lo, cr.Hi = sum.Lo, sum.Hi
	cr.Measured = fmt.Sprintf("%s %s = %.3g [%.3g, %.3g] (n=%d)", unit, label, sum.Center, sum.Lo, sum.Hi, sum.N)
	cr.Verdict, cr.Reason = th.judge(sum.Lo, sum.Hi, unit+" "+label)
	return cr
}

// compareOp reports whether x op v for op "<", "<=", ">" or ">=". Any other
// op is false; spec validation rejects them before a check gets here.
func compareOp(x float64, op string, v float64) bool {
	switch op {
	case "<":
		return x < v
	case "<=":
		return x <= v
	case ">":
		return x > v
	case ">=":
		return x >= v
	}
	return false
}
