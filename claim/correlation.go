package claim

import (
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
		t.origin = Origin{From: StatedCoefficient, Effect: ch.Effect, Why: ch.Why}
		return t
	}
	t.value = analysis.FisherMidpoint(ch.Effect)
	t.origin = Origin{From: Fisher, Effect: ch.Effect}
	return t
}

// correlation judges a check of kind "correlation": the cell num reports,
// in unit, one Pearson coefficient per round, computed by the benchmark
// over the time series it sampled during that round. The coefficients are
// summarised over rounds (clusters first) on Fisher's z scale (analysis.CorrelationOf)
// and the interval is compared with the threshold.
func correlation(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := ch.Unit
	th := correlationThreshold(ch)
	cr := th.check(ch, unit)
	s, err := selectOne(samples, unit, ch.Where, ch.Num)
	if err != nil {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: NoCoefficientCell, Err: err.Error()}
		return cr
	}
	c := opt.CorrelationOf(s)
	if c.N == 0 {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: NoCoefficient}
		return cr
	}
	cr.Estimate = c.R
	if !c.HasInterval() {
		cr.Measure = Measure{How: CoefficientsTooFew, N: c.N}
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: TooFewCoefficients, N: c.N}
		return cr
	}
	cr.Lo, cr.Hi = c.Lo, c.Hi
	cr.Measure = Measure{How: Coefficients, N: c.N}
	cr.Verdict, cr.Why = th.judge(c.Lo, c.Hi)
	return cr
}
