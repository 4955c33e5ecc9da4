package claim

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// This file judges the claims about the shape of a series: a knee (the
// cost changes regime at a claimed axis value) and a crossover (two series
// trade places inside a claimed range). Both take the estimate and its
// interval from the analysis package, so a verdict follows the interval:
// the checks can fail either way.

// knee judges the claim that the series selected by Where and A changes
// regime at an axis value in [Min, Max].
//
// The series is judged by analysis.FitKnee: a continuous hinge must beat
// a straight line and the smooth alternatives (quadratic, power law,
// exponential) by AICc, with a breakpoint interval from resampling rounds.
// The claimed location is widened by one grid step on each side, to the
// sampled axis values next below Min and next above Max (the window): a
// breakpoint between two sampled values cannot be placed more finely.
//
// Verdicts:
//   - reproduced: a knee whose breakpoint interval lies inside the window;
//   - contradicted: a knee whose interval lies wholly outside the window,
//     or smooth growth (no regime change), provided the window holds an
//     interior point of the sweep, where a knee could be seen;
//   - inconclusive: otherwise (a knee whose interval reaches beyond the
//     window, undecided fits, a window beyond the sweep, cells with fewer
//     than six samples);
//   - not testable: the selection is not one series of at least four points.
func knee(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	nan := math.NaN()
	cr := CheckResult{Unit: ch.Axis, Estimate: nan, Lo: nan, Hi: nan, Threshold: nan, BandLo: ch.Min, BandHi: ch.Max, Claimed: nan}
	label := fmt.Sprintf("%s along %s", short(ch.A), ch.Axis)
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	sel, err := selectAll(samples, unit, ch.Where, ch.A)
	if err != nil {
		cr.Verdict, cr.Reason = NotTestable, err.Error()
		return cr
	}
	xs, cells, err := oneSeries(sel, ch.Axis)
	if err != nil {
		cr.Verdict, cr.Reason = NotTestable, fmt.Sprintf("%s %s: %v", unit, joinSel([]string{ch.Where, ch.A}), err)
		return cr
	}
	lo, hi := gridWindow(xs, ch.Min, ch.Max)
	cr.BandLo, cr.BandHi = lo, hi
	cr.Predicate = fmt.Sprintf("%s %s: a knee (hinge beats line, quadratic, cubic, power law, two powers, exponential by ΔAICc ≥ %g) whose breakpoint interval lies inside [%g, %g] (claimed [%g, %g] ± one grid step)",
		unit, label, analysis.KneeMargin, lo, hi, ch.Min, ch.Max)
	if len(xs) < 4 {
		cr.Verdict, cr.Reason = NotTestable, fmt.Sprintf("%s has %d points; a knee needs at least 4", label, len(xs))
		return cr
	}
	k := analysis.FitKnee(xs, cells, analysis.KneeOptions{LogX: analysis.SpansDecades(xs), Confidence: opt.Confidence})
	span := fmt.Sprintf("%g–%g, %d points", xs[0], xs[len(xs)-1], len(xs))
	cr.Measured = fmt.Sprintf("%s %s: %s (%s)", unit, label, k.Note, span)
	if k.Found {
		cr.Estimate, cr.Lo, cr.Hi = k.X, k.Lo, k.Hi
	}
	few := 0
	for _, c := range cells {
		if len(c.Values) < 6 {
			few++
		}
	}
	interior := 0
	for _, x := range xs[1 : len(xs)-1] {
		if x >= lo && x <= hi {
			interior++
		}
	}
	switch {
	case few > 0:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("%d of %d points have fewer than 6 samples", few, len(xs))
	case k.Found && k.Lo >= lo && k.Hi <= hi:
		cr.Verdict = Reproduced
	case interior == 0:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("no interior point of the sweep (%s) lies in [%g, %g], where a knee could be seen; sweep more axis values", span, lo, hi)
	case k.Found && (k.Hi < lo || k.Lo > hi):
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("the knee of %s lies elsewhere: [%.3g, %.3g], outside [%g, %g]", label, k.Lo, k.Hi, lo, hi)
	case k.Found:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("the knee's interval [%.3g, %.3g] reaches beyond [%g, %g]: the knee is not placed inside the claimed window", k.Lo, k.Hi, lo, hi)
	case k.Verdict == analysis.KneeSmooth:
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("expected a knee of %s in [%g, %g], but it grows smoothly (no regime change)", label, lo, hi)
	default:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("neither a knee nor smooth growth is shown: %s", k.Note)
	}
	return cr
}

// gridWindow widens [lo, hi] by one grid step on each side: down to the
// largest sampled value below lo and up to the smallest above hi (the
// range itself where there is none).
func gridWindow(xs []float64, lo, hi float64) (float64, float64) {
	wlo, whi := lo, hi
	for _, x := range xs {
		if x < lo {
			wlo = x
		}
	}
	for i := len(xs) - 1; i >= 0; i-- {
		if xs[i] > hi {
			whi = xs[i]
		}
	}
	return wlo, whi
}

// crossover judges the claim that series A and B cross along Axis inside
// [Min, Max]. The comparison is analysis.CompareAlong: per point the
// per-round paired log-ratio (median, sign test; Mann-Whitney U when
// the samples carry no rounds), the family-wise error held at α within
// each sign across the points, a crossover between decided differences of
// opposite sign, and an interval for the crossing from resampling rounds.
//
// The check states which series is better above the crossing (WinsAbove:
// lower in its unit, or higher for a unit better higher); a crossing's
// direction is the sign of A − B after it (analysis.Crossover.After).
//
// Verdicts:
//   - reproduced: a crossing in the claimed direction has its interval
//     inside [Min, Max], and no crossing the other way reaches the range;
//   - contradicted: a crossing the other way has its interval reaching
//     [Min, Max]; or every crossing lies wholly outside the range (the
//     nearest is then named); or there is no crossover and A − B is
//     significant with one sign on both sides of the range (at a point
//     ≤ Min and at a point ≥ Max) and nowhere of the other sign;
//   - inconclusive: otherwise (a crossing in the claimed direction whose
//     interval reaches beyond the range, too few significant points);
//   - not testable: the cells do not form two series with common points,
//     or the check does not state WinsAbove.
func crossover(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	nan := math.NaN()
	cr := CheckResult{Unit: ch.Axis, Estimate: nan, Lo: nan, Hi: nan, Threshold: nan, BandLo: ch.Min, BandHi: ch.Max, Claimed: nan}
	label := fmt.Sprintf("%s vs %s along %s", short(ch.A), short(ch.B), ch.Axis)
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	want, winner, err := aboveSign(ch)
	if err != nil {
		cr.Verdict, cr.Reason = NotTestable, err.Error()
		return cr
	}
	a, err := selectAll(samples, unit, ch.Where, ch.A)
	if err != nil {
		cr.Verdict, cr.Reason = NotTestable, err.Error()
		return cr
	}
	b, err := selectAll(samples, unit, ch.Where, ch.B)
	if err != nil {
		cr.Verdict, cr.Reason = NotTestable, err.Error()
		return cr
	}
	pts := analysis.Along(a, b, ch.Axis)
	an := analysis.CompareAlong(pts, opt)
	cr.Predicate = fmt.Sprintf("%s %s: a sign change of %s/%s, significant on both sides (%s, %s across the points, α=%g), with %s better above it, whose crossing interval lies inside [%g, %g]",
		unit, label, short(ch.A), short(ch.B), testName(an), an.Correction, an.Alpha, winner, ch.Min, ch.Max)
	if len(an.Points) < 2 {
		cr.Verdict, cr.Reason = NotTestable, fmt.Sprintf("%s and %s do not form two series along %q with common points", ch.A, ch.B, ch.Axis)
		return cr
	}
	first, last := an.Points[0].X, an.Points[len(an.Points)-1].X
	span := fmt.Sprintf("%g–%g", first, last)
	if len(an.Crossovers) == 0 {
		return noCrossover(cr, an, ch, label, span)
	}
	var parts []string
	for _, c := range an.Crossovers {
		parts = append(parts, fmt.Sprintf("%.3g (between %g and %g; interval [%.3g, %.3g]; %s/%s %s at %g, %s at %g; %s better above)", c.X, c.Lo, c.Hi, c.XLo, c.XHi,
			short(ch.A), short(ch.B), ratioAt(an, c.SigLo), c.SigLo, ratioAt(an, c.SigHi), c.SigHi, betterAbove(ch, c.After)))
	}
	cr.Measured = fmt.Sprintf("%s %s: crossover at %s; %s", unit, label, strings.Join(parts, ", "), pairing(an))
	reaches := func(c analysis.Crossover) bool { return c.XHi >= ch.Min && c.XLo <= ch.Max }
	inside := func(c analysis.Crossover) bool { return c.XLo >= ch.Min && c.XHi <= ch.Max }
	var right, wrong []analysis.Crossover
	for _, c := range an.Crossovers {
		if c.After == want {
			right = append(right, c)
		} else {
			wrong = append(wrong, c)
		}
	}
	// The crossing reported is the one the verdict rests on: a crossing
	// the wrong way in the range, else the right-way crossing nearest it,
	// else the nearest crossing of all.
	best, found := nearest(wrong, ch, reaches)
	if !found {
		best, found = nearest(right, ch, nil)
	}
	if !found {
		best, _ = nearest(an.Crossovers, ch, nil)
	}
	cr.Estimate, cr.Lo, cr.Hi = best.X, best.XLo, best.XHi
	switch {
	case best.After != want && reaches(best):
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("expected %s better above a crossing in [%g, %g]; the series cross the other way there (interval [%.3g, %.3g]): %s is better above it", winner, ch.Min, ch.Max, best.XLo, best.XHi, betterAbove(ch, best.After))
	case best.After != want:
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("expected %s better above a crossing in [%g, %g]; the only crossings go the other way (%s better above), the nearest at [%.3g, %.3g]", winner, ch.Min, ch.Max, betterAbove(ch, best.After), best.XLo, best.XHi)
	case inside(best):
		cr.Verdict = Reproduced
	case !reaches(best):
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("expected a crossover in [%g, %g]; the crossing's interval [%.3g, %.3g] lies outside", ch.Min, ch.Max, best.XLo, best.XHi)
	default:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("the crossing's interval [%.3g, %.3g] overlaps [%g, %g] but does not lie inside it", best.XLo, best.XHi, ch.Min, ch.Max)
	}
	return cr
}

// aboveSign returns the sign of A − B above the crossing the check claims
// (−1 when A is lower there) and the winning series' selector.
func aboveSign(ch spec.Check) (int, string, error) {
	var sign int
	var winner string
	switch ch.WinsAbove {
	case "a":
		sign, winner = -1, short(ch.A)
	case "b":
		sign, winner = 1, short(ch.B)
	default:
		return 0, "", fmt.Errorf("the crossover check does not say which series is better above the crossing; set wins_above = \"a\" or \"b\" (got %q)", ch.WinsAbove)
	}
	if ch.HigherIsBetter {
		sign = -sign
	}
	return sign, winner, nil
}

// betterAbove names the series that is better where A − B has the sign
// after.
func betterAbove(ch spec.Check, after int) string {
	aLower := after < 0
	if aLower != ch.HigherIsBetter {
		return short(ch.A)
	}
	return short(ch.B)
}

// nearest returns the crossing of cs nearest [Min, Max] among those ok
// accepts (all when ok is nil), and whether there is one.
func nearest(cs []analysis.Crossover, ch spec.Check, ok func(analysis.Crossover) bool) (analysis.Crossover, bool) {
	var best analysis.Crossover
	found := false
	for _, c := range cs {
		if ok != nil && !ok(c) {
			continue
		}
		if !found || dist(c.X, ch.Min, ch.Max) < dist(best.X, ch.Min, ch.Max) {
			best, found = c, true
		}
	}
	return best, found
}

// noCrossover judges a comparison without a crossover.
func noCrossover(cr CheckResult, an analysis.CrossAnalysis, ch spec.Check, label, span string) CheckResult {
	var pos, neg, below, above int
	sign := 0
	for _, p := range an.Points {
		switch p.Sign {
		case 1:
			pos++
		case -1:
			neg++
		default:
			continue
		}
		sign = p.Sign
		if p.X <= ch.Min {
			below++
		}
		if p.X >= ch.Max {
			above++
		}
	}
	unit := unitOf(ch)
	sig := pos + neg
	if sig == 0 || pos > 0 && neg > 0 || below == 0 || above == 0 {
		cr.Measured = fmt.Sprintf("%s %s: no crossover in %s; significant difference at %d of %d points; %s", unit, label, span, sig, len(an.Points), pairing(an))
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("too few points differ significantly to rule a crossover in [%g, %g] out: need one sign on both sides of it", ch.Min, ch.Max)
		return cr
	}
	who := "lower"
	if sign > 0 {
		who = "higher"
	}
	cr.Measured = fmt.Sprintf("%s %s: no crossover in %s (%s %s at %d of %d points, on both sides of [%g, %g]); %s", unit, label, span, short(ch.A), who, sig, len(an.Points), ch.Min, ch.Max, pairing(an))
	cr.Verdict = Contradicted
	cr.Reason = fmt.Sprintf("expected a crossover in [%g, %g]", ch.Min, ch.Max)
	return cr
}

// ratioAt formats the ratio A/B at axis value x with its interval.
func ratioAt(an analysis.CrossAnalysis, x float64) string {
	for _, p := range an.Points {
		if p.X == x {
			if p.HasInterval {
				return fmt.Sprintf("×%.3g [%.3g, %.3g]", p.Ratio, p.Lo, p.Hi)
			}
			return fmt.Sprintf("×%.3g", p.Ratio)
		}
	}
	return "?"
}

func testName(an analysis.CrossAnalysis) string {
	if an.Paired {
		return "paired per-round log-ratios, sign test"
	}
	return "unpaired, Mann-Whitney U"
}

// pairing says how the points were compared.
func pairing(an analysis.CrossAnalysis) string {
	n := 0
	for _, p := range an.Points {
		n = max(n, p.N)
	}
	if an.Paired {
		return fmt.Sprintf("paired over %d rounds, %s-corrected", n, an.Correction)
	}
	return fmt.Sprintf("unpaired (no rounds), %s-corrected", an.Correction)
}

func dist(x, lo, hi float64) float64 {
	switch {
	case x < lo:
		return lo - x
	case x > hi:
		return x - hi
	}
	return 0
}

// oneSeries orders the samples along axis, requiring that they form a single
// series: one config, one name apart from the axis, one cell per axis value.
func oneSeries(samples []*analysis.Sample, axis string) ([]float64, []*analysis.Sample, error) {
	type key struct{ config, name string }
	groups := map[key]bool{}
	var names []string
	var cells []*analysis.Sample
	for _, s := range samples {
		if _, ok := s.Num(axis); !ok {
			continue
		}
		k := key{s.Config, s.Name.Without(axis)}
		if !groups[k] {
			groups[k] = true
			names = append(names, strings.TrimSpace(k.name+" config="+k.config))
		}
		cells = append(cells, s)
	}
	switch {
	case len(cells) == 0:
		return nil, nil, fmt.Errorf("no selected cell has a numeric %q value", axis)
	case len(groups) > 1:
		return nil, nil, fmt.Errorf("the selection holds %d series along %q (e.g. %s and %s); narrow the selector", len(groups), axis, names[0], names[1])
	}
	slices.SortStableFunc(cells, func(a, b *analysis.Sample) int {
		x, _ := a.Num(axis)
		y, _ := b.Num(axis)
		return cmp.Compare(x, y)
	})
	xs := make([]float64, len(cells))
	for i, c := range cells {
		xs[i], _ = c.Num(axis)
		if i > 0 && xs[i] == xs[i-1] {
			return nil, nil, fmt.Errorf("two cells share %s=%g; narrow the selector", axis, xs[i])
		}
	}
	return xs, cells, nil
}
