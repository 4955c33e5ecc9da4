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
// knee can contradict a claimed one: the bend test below fits three
// parameters and needs at least two degrees of freedom left.
const kneeMinRuleOut = 5

// kneeMaterial is the smallest change of slope, relative to the slope of a
// straight line through the whole series, that counts as a bend when ruling
// a knee out: the same 10% below which the analysis package does not call
// a significant two-segment fit a knee.
const kneeMaterial = 0.1

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

// knee judges where the series selected by Where and A bends along Axis:
// its knee must lie in [Min, Max]. The series is the median of each cell
// along the axis; the knee is analysis.FindKnee's, and only a significant
// two-segment fit (PiecewiseFound) counts as a knee, Kneedle being a second
// opinion shown in the measurement.
//
// Not finding a knee is not evidence against one when the medians are
// noisy, so ruling a knee out takes a test of its own: at every sampled
// interior axis value k in [Min, Max], a line plus a hinge at k
// (y = a + b·x + c·max(0, x−k), least squares over the medians) gives the
// change of slope c with a 95% t interval, and the knee is ruled out when
// every such interval lies within ±kneeMaterial times the slope of one line
// through the whole series.
//
// Verdicts:
//   - reproduced: a significant knee at an axis value in [Min, Max];
//   - contradicted: a significant knee outside [Min, Max]; or no significant
//     knee, and the bend test rules out a material change of slope at every
//     sampled interior value in [Min, Max] (at least five points needed);
//   - inconclusive: otherwise, including no interior axis value in
//     [Min, Max] (a knee is always an interior point, so the sweep cannot
//     show one there) and cells with fewer than six samples;
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
	logX := analysis.SpansDecades(xs)
	k := analysis.FindKnee(xs, ys, analysis.KneeOptions{LogX: logX, Alpha: opt.Alpha})
	span := fmt.Sprintf("%g–%g, %d points", xs[0], xs[len(xs)-1], len(xs))
	var m string
	if k.PiecewiseFound {
		m = fmt.Sprintf("%s %s: knee at %g (%s, p=%.2g, confidence %s; %s)", unit, label, k.PiecewiseX, k.Method, k.P, k.Confidence, span)
	} else {
		m = fmt.Sprintf("%s %s: no significant knee (%s; best break %g, p=%.2g)", unit, label, span, k.PiecewiseX, k.P)
	}
	cr := CheckResult{Measured: m}
	switch {
	case few > 0:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("%d of %d points have fewer than 6 samples: no confidence interval", few, len(xs))
		return cr
	case k.PiecewiseFound && k.PiecewiseX >= ch.Min && k.PiecewiseX <= ch.Max:
		cr.Verdict = Reproduced
		return cr
	case k.PiecewiseFound:
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("expected the knee of %s in [%g, %g]", label, ch.Min, ch.Max)
		return cr
	}
	ruled, tested, why := ruleOutBend(xs, ys, ch.Min, ch.Max, logX)
	switch {
	case tested == 0:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("no interior point of the sweep (%s) lies in [%g, %g], where a knee could be found; sweep more axis values", span, ch.Min, ch.Max)
	case len(xs) < kneeMinRuleOut:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("no significant knee, but %d points are too few to rule one out (need %d)", len(xs), kneeMinRuleOut)
	case ruled:
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("expected a knee of %s in [%g, %g], but the series is straight there: %s", label, ch.Min, ch.Max, why)
	default:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("no significant knee, but a bend in [%g, %g] cannot be ruled out: %s", ch.Min, ch.Max, why)
	}
	return cr
}

// ruleOutBend tests, at every interior xs[i] in [lo, hi], whether the
// change of slope of a hinge there is provably immaterial (see knee). It
// returns whether all tested points rule a bend out, how many were tested,
// and what the tests found: the widest interval, or a point whose interval
// shows a material bend by itself.
func ruleOutBend(xs, ys []float64, lo, hi float64, logX bool) (ruled bool, tested int, why string) {
	ts := slices.Clone(xs)
	if logX {
		for i, x := range ts {
			ts[i] = math.Log10(x)
		}
	}
	slope, ok := lineSlope(ts, ys)
	if !ok || slope == 0 {
		return false, 0, "the points do not determine a sloped line"
	}
	pct := func(v float64) string { return fmt.Sprintf("%+.0f%%", 100*v/math.Abs(slope)) }
	ruled = true
	worst := -1.0
	var bends []string
	for i := 1; i < len(xs)-1; i++ {
		if xs[i] < lo || xs[i] > hi {
			continue
		}
		tested++
		c, clo, chi, ok := hingeBend(ts, ys, ts[i])
		if !ok {
			return false, tested, fmt.Sprintf("no hinge fit at %g", xs[i])
		}
		margin := kneeMaterial * math.Abs(slope)
		ruled = ruled && clo > -margin && chi < margin
		desc := fmt.Sprintf("at %g the slope changes by %s [%s, %s] of the series' slope", xs[i], pct(c), pct(clo), pct(chi))
		if clo > margin || chi < -margin {
			bends = append(bends, desc)
		}
		if w := math.Max(math.Abs(clo), math.Abs(chi)); w > worst {
			worst, why = w, desc
		}
	}
	switch {
	case len(bends) > 0:
		why = strings.Join(bends, "; ") + ", a bend by itself, though the search over all breakpoints does not single it out as the knee"
	case ruled:
		why += fmt.Sprintf(", within ±%.0f%%", 100*kneeMaterial)
	default:
		why += fmt.Sprintf(", not within ±%.0f%%", 100*kneeMaterial)
	}
	return ruled && tested > 0, tested, why
}

// lineSlope is the least-squares slope of y on t.
func lineSlope(t, y []float64) (float64, bool) {
	n := float64(len(t))
	var st, sy, stt, sty float64
	for i := range t {
		st, sy, stt, sty = st+t[i], sy+y[i], stt+t[i]*t[i], sty+t[i]*y[i]
	}
	d := n*stt - st*st
	if len(t) < 2 || d == 0 {
		return 0, false
	}
	return (n*sty - st*sy) / d, true
}

// hingeBend fits y = a + b·t + c·max(0, t−k) by least squares and returns
// c with its 95% confidence interval (t distribution, n−3 degrees of
// freedom). It needs at least five points.
func hingeBend(t, y []float64, k float64) (c, lo, hi float64, ok bool) {
	n := len(t)
	if n < 5 {
		return 0, 0, 0, false
	}
	var a [3][3]float64
	var rhs [3]float64
	row := func(i int) [3]float64 { return [3]float64{1, t[i], math.Max(0, t[i]-k)} }
	for i := range t {
		r := row(i)
		for p := 0; p < 3; p++ {
			rhs[p] += r[p] * y[i]
			for q := 0; q < 3; q++ {
				a[p][q] += r[p] * r[q]
			}
		}
	}
	inv, ok := invert3(a)
	if !ok {
		return 0, 0, 0, false
	}
	var beta [3]float64
	for p := 0; p < 3; p++ {
		for q := 0; q < 3; q++ {
			beta[p] += inv[p][q] * rhs[q]
		}
	}
	var sse float64
	for i := range t {
		r := row(i)
		e := y[i] - (beta[0]*r[0] + beta[1]*r[1] + beta[2]*r[2])
		sse += e * e
	}
	se := math.Sqrt(sse / float64(n-3) * inv[2][2])
	if math.IsNaN(se) {
		return 0, 0, 0, false
	}
	h := tQuantile975(n-3) * se
	return beta[2], beta[2] - h, beta[2] + h, true
}

// invert3 inverts a 3×3 matrix by cofactors.
func invert3(m [3][3]float64) ([3][3]float64, bool) {
	var inv [3][3]float64
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) -
		m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) +
		m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	scale := 0.0
	for _, r := range m {
		for _, v := range r {
			scale = math.Max(scale, math.Abs(v))
		}
	}
	if scale == 0 || math.Abs(det) <= 1e-12*scale*scale*scale {
		return inv, false
	}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			// cofactor of m[j][i], divided by det
			r1, r2 := (j+1)%3, (j+2)%3
			c1, c2 := (i+1)%3, (i+2)%3
			inv[i][j] = (m[r1][c1]*m[r2][c2] - m[r1][c2]*m[r2][c1]) / det
		}
	}
	return inv, true
}

// tQuantile975 is the 97.5% quantile of Student's t with df degrees of
// freedom (two-sided 95%), from the standard table; beyond 30, 2.0, a
// little wider than the normal 1.96.
func tQuantile975(df int) float64 {
	table := [...]float64{0, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
		2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
		2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042}
	switch {
	case df < 1:
		return math.Inf(1)
	case df < len(table):
		return table[df]
	}
	return 2.0
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
