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

// kneeMinRuleOut is the fewest points along the axis for which a missing
// knee contradicts a claimed one. With fewer points the two-segment fit has
// too few degrees of freedom to be significant even over a real bend, so
// "no knee" is only inconclusive.
const kneeMinRuleOut = 6

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

// knee judges where the series selected by Where and A bends along Axis:
// its knee must lie in [Min, Max]. The series is the median of each cell
// along the axis; the knee is analysis.FindKnee's, and only a significant
// two-segment fit (PiecewiseFound) counts as a knee, Kneedle being a second
// opinion shown in the measurement.
//
// Verdicts:
//   - reproduced: a significant knee at an axis value in [Min, Max];
//   - contradicted: a significant knee outside [Min, Max], or no significant
//     knee although the series has at least six points and at least one
//     interior point lies in [Min, Max];
//   - inconclusive: no significant knee with fewer than six points, no
//     interior axis value in [Min, Max] (a knee is always an interior point,
//     so the sweep cannot show one there), or a cell with fewer than six
//     samples;
//   - not testable: the selection is not one series of at least four points.
func knee(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	sel, err := selectAll(samples, unit, ch.Where, ch.A)
	if err != nil {
		return CheckResult{Verdict: NotTestable, Reason: err.Error()}
	}
	xs, cells, err := oneSeries(sel, ch.Axis)
	if err != nil {
		return CheckResult{Verdict: NotTestable, Reason: fmt.Sprintf("%s %s: %v", unit, joinSel([]string{ch.Where, ch.A}), err)}
	}
	label := fmt.Sprintf("%s along %s", short(ch.A), ch.Axis)
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	if len(xs) < 4 {
		return CheckResult{Verdict: NotTestable, Reason: fmt.Sprintf("%s has %d points; a knee needs at least 4", label, len(xs))}
	}
	ys := make([]float64, len(cells))
	few := 0
	for i, c := range cells {
		s := analysis.Summarize(c.Values, opt)
		ys[i] = s.Center
		if anyInf(s.Lo, s.Hi) {
			few++
		}
	}
	k := analysis.FindKnee(xs, ys, analysis.KneeOptions{LogX: decades(xs), Alpha: opt.Alpha})
	span := fmt.Sprintf("%g–%g, %d points", xs[0], xs[len(xs)-1], len(xs))
	var m string
	if k.PiecewiseFound {
		m = fmt.Sprintf("%s %s: knee at %g (%s, p=%.2g, confidence %s; %s)", unit, label, k.PiecewiseX, k.Method, k.P, k.Confidence, span)
	} else {
		m = fmt.Sprintf("%s %s: no significant knee (%s; best break %g, p=%.2g)", unit, label, span, k.PiecewiseX, k.P)
	}
	cr := CheckResult{Measured: m}
	interior := 0
	for _, x := range xs[1 : len(xs)-1] {
		if x >= ch.Min && x <= ch.Max {
			interior++
		}
	}
	switch {
	case few > 0:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("%d of %d points have fewer than 6 samples: no confidence interval", few, len(xs))
	case k.PiecewiseFound && k.PiecewiseX >= ch.Min && k.PiecewiseX <= ch.Max:
		cr.Verdict = Reproduced
	case k.PiecewiseFound:
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("expected the knee of %s in [%g, %g]", label, ch.Min, ch.Max)
	case interior == 0:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("no interior point of the sweep (%s) lies in [%g, %g], where a knee could be found; sweep more axis values", span, ch.Min, ch.Max)
	case len(xs) >= kneeMinRuleOut:
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("expected a knee of %s in [%g, %g]; %s", label, ch.Min, ch.Max, k.Note)
	default:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("no significant knee, but %d points are too few to rule one out (need %d)", len(xs), kneeMinRuleOut)
	}
	return cr
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

// decades reports whether the positive xs span two decades or more, as the
// analysis package decides for its knee tables.
func decades(xs []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		if x <= 0 {
			return false
		}
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return hi/lo >= 100
}
