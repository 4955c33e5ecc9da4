package claim

import (
	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// contrast judges a check of kind "contrast": how many times larger the
// ratio num/den is for series a than for series b, (num/den at a) /
// (num/den at b), paired by round (analysis.Options.Contrast), against its
// threshold (see the rule in the package documentation). It answers
// "encoding/json slows down more from depth 5 to 8 than jsoniter does".
func contrast(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	th := ratioThreshold(ch)
	cr := th.check(ch, unit)
	var cells [4]map[int]float64
	for i, sel := range [][2]string{{ch.Num, ch.A}, {ch.Den, ch.A}, {ch.Num, ch.B}, {ch.Den, ch.B}} {
		s, err := selectOne(samples, unit, ch.Where, sel[0], sel[1])
		if err != nil {
			cr.Verdict, cr.Why = NotTestable, failed(err)
			return cr
		}
		if cells[i] = s.ByRound(); cells[i] == nil {
			cr.Verdict, cr.Why = NotTestable, Reason{Why: NoRounds, Cell: s.Name.Full}
			return cr
		}
	}
	r := opt.Contrast(cells[0], cells[1], cells[2], cells[3])
	if r.N == 0 {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: NoCommonRound}
		return cr
	}
	cr.Estimate, cr.Sequence = r.Ratio, opt.Anytime
	if !r.HasInterval() {
		cr.Measure = Measure{How: PairedTooFew, N: r.N, Clustered: opt.Clustered()}
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: TooFewRounds, N: r.N, Conf: opt.Confidence, IntervalName: opt.PairedIntervalName()}
		return cr
	}
	cr.Lo, cr.Hi = r.Lo, r.Hi
	cr.Measure = Measure{How: PairedRounds, N: r.N, Clustered: opt.Clustered(), Conf: r.Conf, IntervalName: opt.PairedIntervalName()}
	cr.Verdict, cr.Why = th.judge(r.Lo, r.Hi)
	return cr
}
