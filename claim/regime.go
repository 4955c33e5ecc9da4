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
//   - reproduced: a knee whose breakpoint interval lies inside the window
//     (and, when the check states a Bend, that bends that way: steeper
//     after it for "up", flatter for "down");
//   - contradicted: a knee that bends the other way from the check's Bend,
//     wherever it lies; a knee whose interval lies wholly outside the
//     window, or smooth growth (no regime change), provided the window
//     holds an interior point of the sweep, where a knee could be seen;
//   - inconclusive: otherwise (a knee whose interval reaches beyond the
//     window, undecided fits, a window beyond the sweep, cells with fewer
//     than six samples);
//   - not testable: the selection is not one series of at least four points.
func knee(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	nan := math.NaN()
	cr := CheckResult{Subject: subject(ch, unit), Unit: ch.Axis, Estimate: nan, Lo: nan, Hi: nan, Threshold: nan, BandLo: ch.Min, BandHi: ch.Max, Claimed: nan}
	sel, err := selectAll(samples, unit, ch.Where, ch.A)
	if err != nil {
		cr.Verdict, cr.Why = NotTestable, failed(err)
		return cr
	}
	xs, cells, err := oneSeries(sel, ch.Axis)
	if err != nil {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: NotASeries, Err: err.Error()}
		return cr
	}
	lo, hi := gridWindow(xs, ch.Min, ch.Max)
	cr.BandLo, cr.BandHi = lo, hi
	cr.Predicate = Predicate{Shape: true, Margin: analysis.KneeMargin, Min: ch.Min, Max: ch.Max, Bend: ch.Bend}
	if len(xs) < 4 {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: FewPoints, N: len(xs)}
		return cr
	}
	k := analysis.FitKnee(xs, cells, analysis.KneeOptions{LogX: analysis.SpansDecades(xs), Confidence: opt.Confidence, Rounds: opt})
	cr.Measure = Measure{How: KneeFit, Note: k.Note, From: xs[0], To: xs[len(xs)-1], N: len(xs)}
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
	up := k.SlopeAfter > k.SlopeBefore
	switch {
	case few > 0:
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: FewSamplesAtPoints, N: few, Of: len(xs)}
	case k.Found && ch.Bend != "" && up != (ch.Bend == "up"):
		cr.Verdict, cr.Why = Contradicted, Reason{Why: BendsOtherWay, Before: k.SlopeBefore, After: k.SlopeAfter}
	case k.Found && k.Lo >= lo && k.Hi <= hi:
		cr.Verdict = Reproduced
	case interior == 0:
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: NoInterior}
	case k.Found && (k.Hi < lo || k.Lo > hi):
		cr.Verdict, cr.Why = Contradicted, Reason{Why: KneeElsewhere}
	case k.Found:
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: KneeBeyond}
	case k.Verdict == analysis.KneeSmooth:
		cr.Verdict, cr.Why = Contradicted, Reason{Why: Smooth}
	default:
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: NoShape}
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
	cr := CheckResult{Subject: subject(ch, unit), Unit: ch.Axis, Estimate: nan, Lo: nan, Hi: nan, Threshold: nan, BandLo: ch.Min, BandHi: ch.Max, Claimed: nan}
	want, winner, err := aboveSign(ch)
	if err != nil {
		cr.Verdict, cr.Why = NotTestable, failed(err)
		return cr
	}
	a, err := selectAll(samples, unit, ch.Where, ch.A)
	if err != nil {
		cr.Verdict, cr.Why = NotTestable, failed(err)
		return cr
	}
	b, err := selectAll(samples, unit, ch.Where, ch.B)
	if err != nil {
		cr.Verdict, cr.Why = NotTestable, failed(err)
		return cr
	}
	pts := analysis.Along(a, b, ch.Axis)
	an := analysis.CompareAlong(pts, opt)
	cr.Predicate = Predicate{Shape: true, Min: ch.Min, Max: ch.Max, Paired: an.Paired, Correction: an.Correction, Alpha: an.Alpha, Better: winner}
	if len(an.Points) < 2 {
		cr.Verdict, cr.Why = NotTestable, Reason{Why: NoSeries}
		return cr
	}
	cr.Measure = Measure{From: an.Points[0].X, To: an.Points[len(an.Points)-1].X, Points: len(an.Points), Paired: an.Paired, N: roundsAlong(an), Clustered: opt.Clustered(), Correction: an.Correction}
	if len(an.Crossovers) == 0 {
		return noCrossover(cr, an, ch)
	}
	cr.Measure.How = Crossings
	for _, c := range an.Crossovers {
		cr.Measure.Crossings = append(cr.Measure.Crossings, Crossing{X: c.X, Lo: c.Lo, Hi: c.Hi, XLo: c.XLo, XHi: c.XHi,
			Below: pointAt(an, c.SigLo), Above: pointAt(an, c.SigHi), Better: betterAbove(ch, c.After)})
	}
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
		cr.Verdict, cr.Why = Contradicted, Reason{Why: CrossesOtherWay, Better: betterAbove(ch, best.After)}
	case best.After != want:
		cr.Verdict, cr.Why = Contradicted, Reason{Why: OnlyOtherWay, Better: betterAbove(ch, best.After)}
	case inside(best):
		cr.Verdict = Reproduced
	case !reaches(best):
		cr.Verdict, cr.Why = Contradicted, Reason{Why: CrossingOutside}
	default:
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: CrossingOverlaps}
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
		sign, winner = -1, ch.A
	case "b":
		sign, winner = 1, ch.B
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
		return ch.A
	}
	return ch.B
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
func noCrossover(cr CheckResult, an analysis.CrossAnalysis, ch spec.Check) CheckResult {
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
	cr.Measure.Significant = pos + neg
	if cr.Measure.Significant == 0 || pos > 0 && neg > 0 || below == 0 || above == 0 {
		cr.Measure.How = NoCrossing
		cr.Verdict, cr.Why = Inconclusive, Reason{Why: FewSignificant}
		return cr
	}
	cr.Measure.How, cr.Measure.Higher = NoCrossingEither, sign > 0
	cr.Verdict, cr.Why = Contradicted, Reason{Why: NoCrossover}
	return cr
}

// pointAt is the comparison's ratio A/B at axis value x.
func pointAt(an analysis.CrossAnalysis, x float64) Point {
	for _, p := range an.Points {
		if p.X == x {
			return Point{X: x, Ratio: p.Ratio, Lo: p.Lo, Hi: p.Hi, Interval: p.HasInterval, Found: true}
		}
	}
	return Point{X: x}
}

// roundsAlong is the most rounds any point of the comparison was paired
// over.
func roundsAlong(an analysis.CrossAnalysis) int {
	n := 0
	for _, p := range an.Points {
		n = max(n, p.N)
	}
	return n
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
	var keys []key
	var cells []*analysis.Sample
	for _, s := range samples {
		if _, ok := s.Num(axis); !ok {
			continue
		}
		k := key{s.Config, s.Name.Without(axis)}
		if !groups[k] {
			groups[k] = true
			keys = append(keys, k)
		}
		cells = append(cells, s)
	}
	switch {
	case len(cells) == 0:
		return nil, nil, fmt.Errorf("no selected cell has a numeric %q value", axis)
	case len(groups) > 1:
		return nil, nil, fmt.Errorf("the selection holds %d series along %q (e.g. %s and %s); narrow the selector", len(groups), axis,
			strings.TrimSpace(keys[0].name+" config="+keys[0].config), strings.TrimSpace(keys[1].name+" config="+keys[1].config))
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
