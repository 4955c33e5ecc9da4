package claim

import (
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
	th := plainThreshold(ch)
	cr := th.check(ch, unit)
	s, err := selectOne(samples, unit, ch.Where, ch.Num)
	if err != nil {
		cr.Verdict, cr.Why = NotTestable, failed(err)
		return cr
	}
	sum := analysis.Summarize(s.Values, opt)
	if anyInf(sum.Center) {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: NoValues}
		return cr
	}
	cr.Estimate = sum.Center
	if anyInf(sum.Lo, sum.Hi) {
		cr.Measure = Measure{How: CellMedianOnly, N: sum.N}
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: FewSamples}
		return cr
	}
	cr.Lo, cr.Hi = sum.Lo, sum.Hi
	cr.Measure = Measure{How: CellMedian, N: sum.N}
	cr.Verdict, cr.Why = th.judge(sum.Lo, sum.Hi)
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
