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
	s, err := selectOne(samples, unit, ch.Where, ch.Num)
	if err != nil {
		return CheckResult{Verdict: NotTestable, Reason: err.Error()}
	}
	label := short(ch.Num)
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	sum := analysis.Summarize(s.Values, opt)
	if anyInf(sum.Center) {
		return CheckResult{Verdict: NotTestable, Reason: fmt.Sprintf("%s %s has no values in this run", unit, label)}
	}
	if anyInf(sum.Lo, sum.Hi) {
		m := fmt.Sprintf("%s %s = %.3g (n=%d)", unit, label, sum.Center, sum.N)
		return CheckResult{Verdict: Inconclusive, Measured: m, Reason: "fewer than 6 samples: no confidence interval"}
	}
	m := fmt.Sprintf("%s %s = %.3g [%.3g, %.3g] (n=%d)", unit, label, sum.Center, sum.Lo, sum.Hi, sum.N)
	holds := func(x float64) bool { return compareOp(x, ch.Op, ch.Value) }
	switch lo, hi := holds(sum.Lo), holds(sum.Hi); {
	case lo && hi:
		return CheckResult{Verdict: Reproduced, Measured: m}
	case !lo && !hi:
		return CheckResult{Verdict: Contradicted, Measured: m, Reason: fmt.Sprintf("expected %s %s %s %g", unit, label, ch.Op, ch.Value)}
	}
	return CheckResult{Verdict: Inconclusive, Measured: m, Reason: fmt.Sprintf("interval of %s straddles %g", label, ch.Value)}
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
