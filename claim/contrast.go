package claim

import (
	"fmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// contrast judges a check of kind "contrast": how many times larger the
// ratio num/den is for series a than for series b, (num/den at a) /
// (num/den at b), paired by round (analysis.Options.Contrast), against its
// threshold (see Rule). It answers "encoding/json slows down more from
// depth 5 to 8 than jsoniter does".
func contrast(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	th := ratioThreshold(ch)
	label := fmt.Sprintf("(%s / %s @%s) / (… @%s)", short(ch.Num), short(ch.Den), short(ch.A), short(ch.B))
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	cr := noInterval(th.predicate(unit, label), unit)
	th.fill(&cr)
	var cells [4]map[int]float64
	for i, sel := range [][2]string{{ch.Num, ch.A}, {ch.Den, ch.A}, {ch.Num, ch.B}, {ch.Den, ch.B}} {
		s, err := selectOne(samples, unit, ch.Where, sel[0], sel[1])
		if err != nil {
			cr.Verdict, cr.Reason = NotTestable, err.Error()
			return cr
		}
		if cells[i] = s.ByRound(); cells[i] == nil {
			cr.Verdict, cr.Reason = NotTestable, fmt.Sprintf("%s carries no rounds: a contrast needs all four cells paired by round", s.Name.Full)
			return cr
		}
	}
	r := opt.Contrast(cells[0], cells[1], cells[2], cells[3])
	if r.N == 0 {
		cr.Verdict, cr.Reason = NotTestable, "the four cells share no round with positive values"
		return cr
	}
	cr.Estimate, cr.Sequence = r.Ratio, opt.Anytime
	if !r.HasInterval() {
		cr.Measured = fmt.Sprintf("%s %s = %.3g (paired over %d rounds)", unit, label, r.Ratio, r.N)
		cr.Verdict, cr.Reason = Inconclusive, fmt.Sprintf("%d rounds are too few for a %.4g%% %s", r.N, opt.Confidence*100, opt.PairedIntervalName())
		return cr
	}
	cr.Lo, cr.Hi = r.Lo, r.Hi
	cr.Measured = fmt.Sprintf("%s %s = %.3g [%.3g, %.3g] (paired over %d rounds: median, %.1f%% %s)", unit, label, r.Ratio, r.Lo, r.Hi, r.N, r.Conf*100, opt.PairedIntervalName())
	cr.Verdict, cr.Reason = th.judge(r.Lo, r.Hi, label)
	return cr
}
