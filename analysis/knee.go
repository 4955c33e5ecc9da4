package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// KneeMargin is the AICc margin by which the hinge must beat the best
// smooth model before a knee is reported. It was chosen by simulation
// on curves outside the original smooth families as well as inside them
// (analysis/knee_calib_test.go, TestKneeOutsideFamilies and
// TestKneeHingeRecovery; knee_test.go for power laws, exponentials and
// quadratics): 12 points on 1…12 or 11 on 4…4096, 8 rounds, CV 2–4%,
// Gaussian, one-sided-burst and skewed noise. With the cubic and the sum
// of two powers among the smooth models, a cubic with an inflection, a
// logistic rise, sums of powers and n·log n give a knee in at most 5 of
// 120 series per curve and noise at this margin (20 + x² − 0.05x³ gave
// 82 of 120 before those two models joined), while hinges whose slope
// changes ×4 or ×6 are found within one grid step in at least 119 of 120
// without bursts. A lower margin (2 or 3) finds a few more ×2 hinges and
// more false knees on 5√x + x; a higher one (6) loses a fifth of the ×2
// hinges.
const KneeMargin = 4.0

// KneeOptions configures [FitKnee]. The zero value is ready to use.
type KneeOptions struct {
	// LogX also fits a hinge in log x against ln y (a two-segment power
	// law) beside the linear one, and adds a quadratic in log-log to the
	// smooth models. Set it for axes that span decades ([SpansDecades]);
	// it is ignored when a cost is ≤ 0, as log-log needs positive costs.
	LogX bool
	// Margin is the ΔAICc the hinge must win by; ≤ 0, NaN or +Inf means
	// [KneeMargin].
	Margin float64
	// Confidence is the level of the bootstrap intervals; values
	// outside (0, 1) mean 0.95.
	Confidence float64
	// Resamples is the number of bootstrap resamples of rounds; 0 means
	// 200, negative means none.
	Resamples int
	// Seed seeds the bootstrap; results are deterministic for a seed.
	Seed uint64
	// Rounds says how the cells' rounds cluster (its PerLayout and
	// ClusterOf, [Options.Clusters]; its other fields are not read): the
	// bootstrap draws whole clusters, so rounds that shared a layout or a
	// machine are resampled together. The zero value makes each round a
	// cluster of its own.
	Rounds Options
}

// Knee verdicts.
const (
	KneeFound     = "knee"      // the hinge beats every smooth model by the margin
	KneeSmooth    = "smooth"    // a smooth model explains the growth; no regime change
	KneeUndecided = "undecided" // neither: too few points or too noisy to tell
)

// KneeModel is one candidate curve fitted to a series.
type KneeModel struct {
	// Name is "hinge", "line", "quadratic", "cubic", "power law", "two
	// powers", "exponential", "log-log quadratic" or "log-log cubic".
	Name string `json:"name"`
	// Params counts the fitted parameters (the breakpoint included; the
	// residual variance, which AICc also counts, is not).
	Params int `json:"params"`
	// RSS is the residual sum of squares on the fitted scale (ln y when
	// every cost is positive, else y).
	RSS float64 `json:"rss"`
	// AICc is the small-sample Akaike criterion; lower is better.
	AICc float64 `json:"aicc"`
}

// KneeResult is the verdict on one series: does its cost change regime
// (a knee) or grow smoothly?
//
// A knee is a continuous two-segment line (the hinge, y = a + b·x +
// c·max(0, x−τ)) that beats a straight line and every smooth alternative
// (quadratic, cubic, power law a·x^k + c, sum of two powers a·x^j +
// b·x^k, exponential a·e^{bx} + c and, on a log axis, a quadratic and a
// cubic in log-log) by AICc by at least Margin, and whose slope changes
// by at least 10%. The cubic and the sum of two powers, each with as many
// parameters as the hinge, hold the smooth curves the others cannot — an
// inflection (a logistic rise), sums of powers, n·log n — so such a
// curve is explained without a hinge. Models are fitted by least squares on
// the medians of each point with relative residuals (ln y − ln f), since
// benchmark noise is proportional to the cost. On an axis that spans
// decades (Scale "log-log") a second hinge family competes, fitted in
// log x against ln y (a two-segment power law), and the better hinge pays
// one more parameter; a cost proportional to x is then fitted exactly by
// the smooth models (a line, a power law with k = 1) and never a knee.
// The breakpoint's interval comes from resampling rounds (a bootstrap:
// draw whole clusters of rounds with replacement, KneeOptions.Rounds,
// take each point's median over the drawn rounds, refit). Kneedle
// (Satopää et al. 2011) is a second opinion only: every convex curve has
// a point of maximum curvature, so it is never evidence of a knee.
//
// All float fields are finite (0 where they do not apply), so the value
// encodes as JSON.
type KneeResult struct {
	// Found reports a knee: Verdict == "knee".
	Found bool `json:"found"`
	// Verdict is "knee", "smooth" or "undecided" (see the constants).
	Verdict string `json:"verdict"`
	// X is the breakpoint τ of the best hinge, in axis units. It is set
	// whenever a hinge was fitted, knee or not.
	X float64 `json:"x"`
	// Lo and Hi bound X: the bootstrap percentile interval at
	// Confidence (the resampled breakpoints' [Quantile]s), widened to
	// hold X. Without resamples (Resamples == 0) they equal X.
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// Scale is "linear" (residuals ln y − ln f, the hinge in x),
	// "log-log" (an axis that spans decades: the hinge may also be a
	// two-segment power law, and a log-log quadratic joins the smooth
	// models) or "linear-abs" (some cost ≤ 0: residuals y − f).
	Scale string `json:"scale"`
	// Hinge names the hinge family fitted: "linear" (y against x: the
	// cost per unit changes at X, as when a cache overflows) or
	// "log-log" (ln y against log x: the growth exponent changes at X).
	// On a log-log scale both are fitted and the better one kept, at
	// the price of one more parameter in its AICc.
	Hinge string `json:"hinge"`
	// Criterion names the comparison: "AICc".
	Criterion string `json:"criterion"`
	// Margin is the ΔAICc the hinge had to reach.
	Margin float64 `json:"margin"`
	// DeltaAICc is AICc(best smooth model) − AICc(hinge): positive
	// favours the hinge; a knee needs DeltaAICc ≥ Margin.
	DeltaAICc float64 `json:"delta_aicc"`
	// BestSmooth names the smooth model with the lowest AICc.
	BestSmooth string `json:"best_smooth"`
	// Models lists every model fitted, hinge first.
	Models []KneeModel `json:"models"`
	// SlopeBefore and SlopeAfter are the hinge's slopes on each side of
	// X: cost per axis unit for a linear hinge, the log-log exponent
	// (d ln y / d ln x) for a log-log hinge.
	SlopeBefore float64 `json:"slope_before"`
	SlopeAfter  float64 `json:"slope_after"`
	// Exponent is k of the power law a·x^k + c fitted to the series,
	// with its bootstrap interval [ExponentLo, ExponentHi] (equal to
	// Exponent without resamples); 0 when no power law could be fitted
	// (an axis value ≤ 0).
	Exponent   float64 `json:"exponent"`
	ExponentLo float64 `json:"exponent_lo"`
	ExponentHi float64 `json:"exponent_hi"`
	// R2 is the share of the variation (on the fitted scale) that the
	// best smooth model explains. A smooth verdict needs R2 ≥ 0.9,
	// DeltaAICc ≤ 0 (the smooth model at least as good as the hinge) and,
	// with resamples, Support ≤ 0.2.
	R2 float64 `json:"r2"`
	// Support is the share of bootstrap resamples whose own fit finds a
	// knee; Resamples is how many were drawn (0: none, Support is 0).
	Support   float64 `json:"support"`
	Resamples int     `json:"resamples"`
	// Confidence grades a knee by Support: "high" (≥ 0.9), "medium"
	// (≥ 0.7) or "low"; "" when there is no knee or no resample.
	Confidence string `json:"confidence"`
	// KneedleX is where Kneedle puts the point of maximum curvature
	// (when KneedleFound): a described second opinion, never evidence.
	KneedleX     float64 `json:"kneedle_x"`
	KneedleFound bool    `json:"kneedle_found"`
	// Method describes the procedure in words.
	Method string `json:"method"`
	// Note is one human sentence: where the knee is and why, or
	// "smooth growth, exponent k [lo, hi]", or why it is undecided.
	Note string `json:"note"`
}

const (
	// kneeMinPoints is the fewest points a hinge can be fitted to.
	kneeMinPoints = 4
	// kneeMinCompare is the fewest points for which AICc can weigh a
	// hinge (4 parameters and the variance) at all.
	kneeMinCompare = 7
	// kneeMaterial is the smallest slope change, relative to the larger
	// of the two slopes, that counts as a regime change.
	kneeMaterial = 0.1
	// kneeSmoothR2 is the share of variation a smooth model must explain
	// before a series counts as smooth growth rather than noise.
	kneeSmoothR2 = 0.9
	// kneeSmoothSupport is the largest bootstrap support for a knee that
	// still lets a series count as smooth.
	kneeSmoothSupport = 0.2
	kneeMethod        = "continuous hinge vs line, quadratic, cubic, power law, sum of two powers, exponential (and log-log quadratic and cubic on a log axis) by AICc on per-point medians; breakpoint interval by resampling rounds"
)

// FitKnee judges one series, whose point i is cells[i] at axis value
// xs[i] (xs sorted, distinct, as [KneeFits] groups them): medians per
// point for the fits, and a bootstrap over rounds for the intervals of the
// breakpoint and the exponent and for Support. Cells that carry rounds
// ([Sample.ByRound]) are resampled by whole clusters of rounds
// (opt.Rounds; a round each without clustering), so a drawn cluster moves
// every point together; cells without rounds are resampled value by value.
func FitKnee(xs []float64, cells []*Sample, opt KneeOptions) KneeResult {
	if len(xs) != len(cells) {
		return kneeNone(fmt.Sprintf("no knee: got %d x values but %d cells", len(xs), len(cells)))
	}
	opt = opt.withDefaults()
	var x, y []float64
	var used []*Sample
	for i, c := range cells {
		m := Median(c.Values)
		if !kneeFinite(xs[i]) || !kneeFinite(m) || opt.LogX && !(xs[i] > 0) || (i > 0 && len(x) > 0 && xs[i] <= x[len(x)-1]) {
			continue
		}
		x, y, used = append(x, xs[i]), append(y, m), append(used, c)
	}
	if len(x) < kneeMinPoints {
		return kneeNone(fmt.Sprintf("no knee: %d usable points, need at least %d", len(x), kneeMinPoints))
	}
	return kneeJudge(x, y, used, opt)
}

func (o KneeOptions) withDefaults() KneeOptions {
	if !(o.Margin > 0) || math.IsInf(o.Margin, 1) {
		o.Margin = KneeMargin
	}
	if !(o.Confidence > 0 && o.Confidence < 1) {
		o.Confidence = 0.95
	}
	if o.Resamples == 0 {
		o.Resamples = 200
	}
	return o
}

// kneeNone is the result for input that cannot be judged.
func kneeNone(note string) KneeResult {
	return KneeResult{Verdict: KneeUndecided, Criterion: "AICc", Method: kneeMethod, Note: note}
}

// kneeDecision is the outcome of fitting one set of medians.
type kneeDecision struct {
	verdict          string
	x                float64 // breakpoint in axis units
	delta            float64
	material         bool
	before, after    float64
	exponent         float64
	hasExponent      bool
	r2               float64
	best             string
	models           []KneeModel
	scale, hinge     string
	constant, nohing bool
}

// kneeDecide fits every model to one set of medians and decides.
func kneeDecide(a *regimeAxis, y []float64, opt KneeOptions) kneeDecision {
	d := newRegimeData(a, y)
	x := a.x
	n := len(x)
	out := kneeDecision{scale: "linear", verdict: KneeUndecided}
	switch {
	case d.logX:
		out.scale = "log-log"
	case !d.logY:
		out.scale = "linear-abs"
	}
	sst := d.sst()
	floor := 1e-20 * float64(n)
	if !d.logY {
		s := 0.0
		for _, v := range y {
			s = math.Max(s, math.Abs(v))
		}
		floor *= s * s
	}
	if !(sst > floor) {
		out.constant, out.verdict = true, KneeSmooth
		return out
	}
	// On a log axis both hinge families compete: a two-segment power law
	// (log-log) and a change of cost per unit (linear in x, as when a
	// cache overflows); choosing between them costs one more parameter.
	h, hLog := d.hingeModel(false), false
	if d.logX {
		hl := d.hingeModel(true)
		if hl.ok && (!h.ok || hl.sse <= h.sse) {
			h, hLog = hl, true
		}
		h.params++
	}
	out.hinge = "linear"
	if hLog {
		out.hinge = "log-log"
	}
	smooth := d.smoothModels()
	bestA := math.Inf(1)
	var best regimeModel
	for _, m := range smooth {
		if !m.ok {
			continue
		}
		a := aicc(m.sse, n, m.params, floor)
		out.models = append(out.models, KneeModel{Name: m.name, Params: m.params, RSS: m.sse, AICc: finiteOr0(a)})
		if m.name == modelPower {
			out.exponent, out.hasExponent = m.theta, true
		}
		if a < bestA || best.name == "" {
			bestA, best = a, m
		}
	}
	out.best = best.name
	if best.name != "" {
		out.r2 = math.Max(0, 1-best.sse/sst)
	}
	if !h.ok {
		out.nohing = true
		return out
	}
	ha := aicc(h.sse, n, h.params, floor)
	out.models = append([]KneeModel{{Name: modelHinge, Params: h.params, RSS: h.sse, AICc: finiteOr0(ha)}}, out.models...)
	// Breakpoint and slopes in the caller's units.
	b, c := h.coef[1], h.coef[2]
	if hLog {
		l0, l1 := math.Log10(x[0]), math.Log10(x[n-1])
		out.x = math.Pow(10, l0+h.theta*(l1-l0))
		per := (l1 - l0) * math.Ln10
		out.before, out.after = b/per, (b+c)/per
	} else {
		out.x = x[0] + h.theta*(x[n-1]-x[0])
		span := x[n-1] - x[0]
		out.before, out.after = b/span, (b+c)/span
	}
	out.material = math.Abs(c) > kneeMaterial*math.Max(math.Abs(b), math.Abs(b+c))
	if n < kneeMinCompare || math.IsInf(ha, 1) || best.name == "" {
		return out
	}
	out.delta = bestA - ha
	switch {
	case out.delta >= opt.Margin && out.material:
		out.verdict = KneeFound
	case out.delta >= opt.Margin:
		out.verdict = KneeSmooth // a bend too small to matter
	case out.delta <= 0 && out.r2 >= kneeSmoothR2:
		out.verdict = KneeSmooth
	}
	return out
}

// kneeJudge decides on the medians, resamples rounds for the intervals
// and writes the result.
func kneeJudge(x, y []float64, cells []*Sample, opt KneeOptions) KneeResult {
	axis := newRegimeAxis(x, opt.LogX)
	dec := kneeDecide(axis, y, opt)
	r := KneeResult{
		Verdict: dec.verdict, X: dec.x, Lo: dec.x, Hi: dec.x, Scale: dec.scale, Hinge: dec.hinge,
		Criterion: "AICc", Margin: opt.Margin, DeltaAICc: finiteOr0(dec.delta),
		BestSmooth: dec.best, Models: dec.models, SlopeBefore: finiteOr0(dec.before), SlopeAfter: finiteOr0(dec.after),
		Exponent: dec.exponent, ExponentLo: dec.exponent, ExponentHi: dec.exponent, R2: dec.r2, Method: kneeMethod,
	}
	if r.Models == nil {
		r.Models = []KneeModel{}
	}
	t := x
	if dec.scale == "log-log" {
		t = mapped(x, math.Log10)
	}
	if u, v, ok := kneeNormalise(t, y); ok {
		if ki, found := kneedle(u, v, 1); found {
			r.KneedleX, r.KneedleFound = x[ki], true
		}
	}
	if cells != nil && opt.Resamples > 0 && !dec.constant && !dec.nohing {
		kneeBootstrap(&r, axis, cells, opt)
	}
	if r.Verdict == KneeSmooth && r.Resamples > 0 && r.Support > kneeSmoothSupport && !dec.constant {
		r.Verdict = KneeUndecided
	}
	r.Found = r.Verdict == KneeFound
	if r.Found && r.Resamples > 0 {
		switch {
		case r.Support >= 0.9:
			r.Confidence = "high"
		case r.Support >= 0.7:
			r.Confidence = "medium"
		default:
			r.Confidence = "low"
		}
	}
	r.Note = kneeNoteFor(r, dec, len(x))
	return r.finite()
}

// finite replaces non-finite numbers (from overflowing input) by 0 so
// that the result encodes as JSON.
func (r KneeResult) finite() KneeResult {
	for _, p := range []*float64{&r.X, &r.Lo, &r.Hi, &r.DeltaAICc, &r.SlopeBefore, &r.SlopeAfter, &r.Exponent, &r.ExponentLo, &r.ExponentHi, &r.R2, &r.KneedleX} {
		*p = finiteOr0(*p)
	}
	r.Models = slices.Clone(r.Models)
	for i := range r.Models {
		r.Models[i].RSS, r.Models[i].AICc = finiteOr0(r.Models[i].RSS), finiteOr0(r.Models[i].AICc)
	}
	if !(r.Lo <= r.X && r.X <= r.Hi) {
		r.Lo, r.Hi = r.X, r.X
	}
	return r
}

// kneeBootstrap resamples whole clusters of rounds (opt.Rounds), refits,
// and sets Lo, Hi, the exponent interval, Support and Resamples.
func kneeBootstrap(r *KneeResult, axis *regimeAxis, cells []*Sample, opt KneeOptions) {
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6b6e6565))
	byRound := make([]map[int]float64, len(cells))
	roundSet := map[int]bool{}
	paired := true
	for i, c := range cells {
		byRound[i] = c.ByRound()
		if byRound[i] == nil {
			paired = false
		}
		for rd := range byRound[i] {
			roundSet[rd] = true
		}
	}
	var rounds []int
	for rd := range roundSet {
		rounds = append(rounds, rd)
	}
	slices.Sort(rounds)
	groups := opt.Rounds.clusterGroups(rounds)
	var taus, ks []float64
	knees := 0
	y := make([]float64, len(cells))
	buf := []float64{}
	var draw, drawn []int
	for b := 0; b < opt.Resamples; b++ {
		if paired && len(groups) > 1 {
			draw = drawClusters(rng, len(groups), draw)
			drawn = roundsOfDraw(groups, draw, drawn[:0])
			for i := range cells {
				buf = inRounds(byRound[i], drawn, buf[:0])
				if len(buf) == 0 {
					buf = append(buf, cells[i].Values...)
				}
				y[i] = Median(buf)
			}
		} else {
			for i, c := range cells {
				buf = buf[:0]
				for range c.Values {
					buf = append(buf, c.Values[rng.IntN(len(c.Values))])
				}
				y[i] = Median(buf)
			}
		}
		dec := kneeDecide(axis, y, opt)
		if dec.nohing || dec.constant {
			continue
		}
		taus = append(taus, dec.x)
		if dec.hasExponent {
			ks = append(ks, dec.exponent)
		}
		if dec.verdict == KneeFound {
			knees++
		}
	}
	if len(taus) == 0 {
		return
	}
	r.Resamples = len(taus)
	r.Support = float64(knees) / float64(len(taus))
	a := (1 - opt.Confidence) / 2
	r.Lo, r.Hi = Quantile(taus, a), Quantile(taus, 1-a)
	r.Lo, r.Hi = math.Min(r.Lo, r.X), math.Max(r.Hi, r.X)
	if len(ks) > 0 {
		r.ExponentLo, r.ExponentHi = Quantile(ks, a), Quantile(ks, 1-a)
	}
}

// kneeNoteFor writes the one-sentence explanation.
func kneeNoteFor(r KneeResult, dec kneeDecision, n int) string {
	boot := ""
	if r.Resamples > 0 {
		boot = fmt.Sprintf("; a knee in %.0f%% of %d round resamples", 100*r.Support, r.Resamples)
	}
	second := ""
	if r.KneedleFound {
		second = fmt.Sprintf("; Kneedle's maximum curvature, a second opinion only, is at x=%g", r.KneedleX)
	}
	exp := ""
	if dec.hasExponent {
		exp = fmt.Sprintf(", exponent k=%.2f", r.Exponent)
		if r.Resamples > 0 {
			exp += fmt.Sprintf(" [%.2f, %.2f]", r.ExponentLo, r.ExponentHi)
		}
	}
	switch {
	case dec.constant:
		return "no knee: the cost is constant along the axis"
	case dec.nohing:
		return "no knee: the points do not support a two-segment fit"
	case n < kneeMinCompare:
		return fmt.Sprintf("undecided: %d points are too few to weigh a hinge against smooth curves by AICc (need %d)", n, kneeMinCompare)
	case r.Verdict == KneeFound:
		iv := ""
		if r.Resamples > 0 {
			iv = fmt.Sprintf(" [%.3g, %.3g]", r.Lo, r.Hi)
		}
		return fmt.Sprintf("knee at x=%.3g%s: %s (%s hinge beats the best smooth model, %s, by ΔAICc=%.1f ≥ %g%s%s)",
			r.X, iv, kneeSlopeChange(r.SlopeBefore, r.SlopeAfter), r.Hinge, r.BestSmooth, r.DeltaAICc, r.Margin, boot, second)
	case r.Verdict == KneeSmooth && dec.delta >= r.Margin:
		return fmt.Sprintf("no knee: the best hinge (x=%.3g) changes the slope by less than %.0f%% (%s)", r.X, 100*kneeMaterial, kneeSlopeChange(r.SlopeBefore, r.SlopeAfter))
	case r.Verdict == KneeSmooth:
		return fmt.Sprintf("smooth growth%s (best: %s, R²=%.3f; the hinge at x=%.3g does not beat it: ΔAICc=%.1f < %g%s%s)",
			exp, r.BestSmooth, r.R2, r.X, r.DeltaAICc, r.Margin, boot, second)
	case dec.delta >= r.Margin:
		return fmt.Sprintf("undecided: a hinge at x=%.3g wins by ΔAICc=%.1f but not in enough round resamples%s", r.X, r.DeltaAICc, boot)
	}
	var why []string
	if dec.delta > 0 {
		why = append(why, fmt.Sprintf("the hinge at x=%.3g fits better than the best smooth model (%s), but not by the margin", r.X, r.BestSmooth))
	}
	if r.R2 < kneeSmoothR2 {
		why = append(why, fmt.Sprintf("no smooth model explains the points (best %s, R²=%.2f < %.1f): noise or too little growth", r.BestSmooth, r.R2, kneeSmoothR2))
	}
	if r.Resamples > 0 && r.Support > kneeSmoothSupport {
		why = append(why, fmt.Sprintf("yet a knee wins in %.0f%% of round resamples", 100*r.Support))
	}
	return fmt.Sprintf("undecided: no knee (ΔAICc=%.1f < %g) and no clear smooth growth: %s", r.DeltaAICc, r.Margin, strings.Join(why, "; "))
}

// kneeSlopeChange describes how the slope changes at the break.
func kneeSlopeChange(before, after float64) string {
	if before == 0 || math.Signbit(before) != math.Signbit(after) || after == 0 {
		return fmt.Sprintf("slope changes from %.3g to %.3g", before, after)
	}
	ratio := after / before
	f := "%.2g"
	if ratio >= 10 {
		f = "%.0f"
	}
	if ratio >= 1 {
		return fmt.Sprintf("slope steepens ×"+f, ratio)
	}
	return fmt.Sprintf("slope flattens ×"+f, ratio)
}

func finiteOr0(f float64) float64 {
	if kneeFinite(f) {
		return f
	}
	return 0
}

// kneeLine fits v = a + b·u by least squares and returns b.
func kneeLine(u, v []float64) float64 {
	n := float64(len(u))
	mu, mv := 0.0, 0.0
	for i := range u {
		mu += u[i] / n
		mv += v[i] / n
	}
	sxx, sxy := 0.0, 0.0
	for i := range u {
		sxx += (u[i] - mu) * (u[i] - mu)
		sxy += (u[i] - mu) * (v[i] - mv)
	}
	if sxx > 0 {
		return sxy / sxx
	}
	return 0
}

const kneeTiny = 1e-9

func kneeFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// kneeNormalise maps t and y onto [0, 1] by their minimum and maximum
// (t is sorted). It reports false when y is constant. Halves are taken
// before subtracting so that extreme values cannot overflow.
func kneeNormalise(t, y []float64) (u, v []float64, ok bool) {
	tlo, thr := t[0]/2, t[len(t)-1]/2-t[0]/2
	ylo, yhi := y[0], y[0]
	for _, yi := range y {
		ylo, yhi = math.Min(ylo, yi), math.Max(yhi, yi)
	}
	yhr := yhi/2 - ylo/2
	if yhr == 0 || thr == 0 {
		return nil, nil, false
	}
	u, v = make([]float64, len(t)), make([]float64, len(y))
	for i := range t {
		u[i] = (t[i]/2 - tlo) / thr
		v[i] = (y[i]/2 - ylo/2) / yhr
	}
	return u, v, true
}

// kneedle returns the index of the most significant knee of the
// normalised curve v(u) (u increasing from 0 to 1, v in [0, 1]), after
// Satopää, Albrecht, Irwin and Raghavan, "Finding a 'Kneedle' in a
// Haystack: Detecting Knee Points in System Behavior" (ICDCS workshops,
// 2011):
//
//  1. Detect the direction (increasing when the last y exceeds the
//     first, else by the sign of the least-squares slope) and the shape
//     (convex when the curve lies below its chord on average).
//  2. Flip the curve into the concave increasing case: a decreasing
//     curve is mirrored in x, a convex one is then rotated 180°.
//  3. Form the difference curve: the height of each point above the
//     chord between the end points (the paper's y - x when the end
//     points are the extremes).
//  4. At each local maximum m of the difference curve, set the
//     threshold T = d(m) - S·(mean x step). If the difference curve
//     drops below T before the next local maximum, m is a knee.
//  5. Of the knees, return the one with the largest difference value.
//
// No smoothing is applied; noisy data is the two-segment fit's job.
// Straight lines and constants have no local maximum above zero, so no
// knee.
func kneedle(u, v []float64, s float64) (int, bool) {
	n := len(u)
	xs, ys, idx := append([]float64(nil), u...), append([]float64(nil), v...), make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	switch kneeDirection(u, v) {
	case 0:
		return 0, false
	case -1:
		xs, ys, idx = kneeMirror(xs, ys, idx, false)
	}
	if kneeConvex(xs, ys) {
		xs, ys, idx = kneeMirror(xs, ys, idx, true)
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = ys[i] - (ys[0] + (ys[n-1]-ys[0])*xs[i])
	}
	step := 1 / float64(n-1)
	best, found := 0, false
	for m := 1; m < n-1; m++ {
		if !(d[m] > d[m-1] && d[m] >= d[m+1] && d[m] > kneeTiny) {
			continue
		}
		threshold := d[m] - s*step
		for j := m + 1; j < n; j++ {
			if j < n-1 && d[j] > d[j-1] && d[j] >= d[j+1] {
				break // next local maximum reached
			}
			if d[j] < threshold {
				if !found || d[m] > d[best] {
					best, found = m, true
				}
				break
			}
		}
	}
	return idx[best], found
}

// kneeDirection returns +1 for an increasing curve, -1 for a decreasing
// one and 0 when neither the end points nor the least-squares slope
// show a direction.
func kneeDirection(u, v []float64) int {
	n := len(v)
	switch {
	case v[n-1] > v[0]:
		return 1
	case v[n-1] < v[0]:
		return -1
	}
	b := kneeLine(u, v)
	switch {
	case b > kneeTiny:
		return 1
	case b < -kneeTiny:
		return -1
	}
	return 0
}

// kneeConvex reports whether the curve lies below the chord between
// its end points on average.
func kneeConvex(xs, ys []float64) bool {
	n := len(xs)
	sum := 0.0
	for i := range xs {
		sum += ys[i] - (ys[0] + (ys[n-1]-ys[0])*xs[i])
	}
	return sum < 0
}

// kneeMirror mirrors the curve in x (x → 1-x, reversing the order) and,
// with flipY, also in y (y → 1-y), carrying the original indices along.
func kneeMirror(xs, ys []float64, idx []int, flipY bool) ([]float64, []float64, []int) {
	n := len(xs)
	mx, my, mi := make([]float64, n), make([]float64, n), make([]int, n)
	for i := range xs {
		j := n - 1 - i
		mx[i], my[i], mi[i] = 1-xs[j], ys[j], idx[j]
		if flipY {
			my[i] = 1 - ys[j]
		}
	}
	return mx, my, mi
}
