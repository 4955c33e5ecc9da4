package report

import (
	"fmt"
	"strings"

	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/spec"
)

// This file words claim's results: the predicate a check tested, what it
// measured, why it was not reproduced, and the same for a whole claim.
// Every output (terminal, Markdown, HTML, the verdicts stored with a run)
// says them in these words.

// ruleSummary is the rule by which every check is judged, in short, as
// every report quotes it; docs/claims.md states it in full.
const ruleSummary = "The rule, in short: a check is reproduced when its whole interval lies on the claimed side of its threshold (√F for a claimed effect F, tanh(atanh(r)/2) for a claimed correlation r, or a threshold the check states with its reason) or inside its equivalence band, contradicted when it lies wholly on the other side, inconclusive when it straddles, not testable when this run cannot measure it. A claim is reproduced when every counted check is, contradicted when one is after Holm's correction across its counted checks; context checks are never counted, and a precondition that fails makes the claim not testable here. The rule in full: docs/claims.md in perflab's source."

// CheckPredicate is what a check tested, printed beside every verdict:
// the cells, the operator, the threshold and its origin, e.g.
// "sec/op syncpool@25 / plain@25 > 1.34 (√1.79: log-midpoint of the
// claimed ×1.79)", after "precondition (…): " for a precondition; "" for
// a check that stated none.
func CheckPredicate(c claim.CheckResult) string {
	p := predicateBody(c)
	if c.Precondition != "" {
		p = "precondition (" + c.Precondition + "): " + p
	}
	return p
}

// CheckMeasured is what a check measured, with its note and the look
// that judged it; "" when it measured nothing.
func CheckMeasured(c claim.CheckResult) string {
	m := measuredBase(c)
	if m == "" {
		return ""
	}
	if c.Note != "" && !strings.Contains(m, c.Note) {
		m += " (" + c.Note + ")"
	}
	if look := checkLook(c); look != "" {
		m += " [" + look + "]"
	}
	return m
}

// CheckReason is why a check was not reproduced, with its note when it
// measured nothing, and Holm's correction when that left it
// inconclusive; "" when nothing needs saying.
func CheckReason(c claim.CheckResult) string {
	r := reasonBase(c)
	if c.Note != "" && measuredBase(c) == "" && c.Verdict == claim.NotTestable && !strings.Contains(r, c.Note) {
		r += " (" + c.Note + ")"
	}
	if c.Holm > 0 {
		r = strings.TrimPrefix(r+"; ", "; ") +
			fmt.Sprintf("contradicted at level %.3g alone, but not after Holm's correction across the claim's %d counted checks", c.HolmLevel, c.Holm)
	}
	return r
}

// ClaimMeasured is what a claim's checks measured, one after another,
// each marked when it is not counted.
func ClaimMeasured(r claim.Result) string {
	var parts []string
	for _, c := range r.Checks {
		if m := CheckMeasured(c); m != "" {
			parts = append(parts, checkTag(c)+m)
		}
	}
	return strings.Join(parts, "; ")
}

// ClaimReason is why a claim is not reproduced: the spec's reason for a
// claim declared not testable; a failed or unmeasured precondition
// alone; an undecided precondition, then its checks' reasons; or its
// checks' reasons, each marked when it is not counted.
func ClaimReason(r claim.Result) string {
	if len(r.Checks) == 0 {
		return r.Declared
	}
	var reasons []string
	for _, c := range r.Checks {
		if why := CheckReason(c); why != "" {
			reasons = append(reasons, checkTag(c)+why)
		}
	}
	joined := strings.Join(reasons, "; ")
	var failed, unmeasured, open []string
	for _, c := range r.Checks {
		if c.Precondition == "" {
			continue
		}
		what := strings.TrimSpace(CheckMeasured(c))
		if what == "" {
			what = CheckReason(c)
		}
		switch c.Verdict {
		case claim.Contradicted:
			failed = append(failed, fmt.Sprintf("the precondition “%s” did not hold: %s, where %s was required", c.Precondition, what, predicateBody(c)))
		case claim.NotTestable:
			unmeasured = append(unmeasured, fmt.Sprintf("the precondition “%s” could not be measured: %s", c.Precondition, what))
		case claim.Inconclusive:
			open = append(open, fmt.Sprintf("the precondition “%s” is undecided: %s", c.Precondition, CheckReason(c)))
		}
	}
	switch r.Preconditions {
	case claim.Absent:
		// The failed precondition alone: the checks' reasons are no
		// evidence either way.
		return "not testable here: " + strings.Join(append(failed, unmeasured...), "; ") + " — this run did not create the situation the claim is about, so its checks are no evidence either way"
	case claim.Open:
		return strings.Join(open, "; ") + ", so the counted checks' " + string(r.Counted) + " is not a verdict on the claim" + strings.TrimSuffix("; "+joined, "; ")
	}
	if r.Verdict == claim.NotTestable && allContext(r.Checks) {
		return strings.TrimPrefix(joined+"; ", "; ") + "every check of this claim is context (it holds by construction, describes the setting, or reads one profiling pass, which gives no run-to-run interval), so none is counted"
	}
	return joined
}

// checkTag marks a check that is not counted, before its measurement or
// reason in a claim's.
func checkTag(c claim.CheckResult) string {
	switch {
	case c.Precondition != "":
		return "precondition, not counted: "
	case c.Context:
		return "context, not counted: "
	}
	return ""
}

func allContext(checks []claim.CheckResult) bool {
	for _, c := range checks {
		if !c.Context {
			return false
		}
	}
	return true
}

// cellsLabel names the cells a check reads: "syncpool@25 / plain@25",
// "(a / b @x) / (… @y)", "pool along reuse", "pool vs plain along
// reuse", with the selector every cell matches in brackets.
func cellsLabel(s claim.Subject) string {
	var l string
	switch s.Kind {
	case "ratio":
		l = spec.ShortSelector(s.Num) + " / " + spec.ShortSelector(s.Den)
	case "contrast":
		l = fmt.Sprintf("(%s / %s @%s) / (… @%s)", spec.ShortSelector(s.Num), spec.ShortSelector(s.Den), spec.ShortSelector(s.A), spec.ShortSelector(s.B))
	case "profile":
		l = spec.ShortSelector(s.Num)
		if s.Den != "" {
			l += " − " + spec.ShortSelector(s.Den)
		}
	case "knee":
		l = spec.ShortSelector(s.A) + " along " + s.Axis
	case "crossover":
		l = spec.ShortSelector(s.A) + " vs " + spec.ShortSelector(s.B) + " along " + s.Axis
	default:
		l = spec.ShortSelector(s.Num)
	}
	if s.Where != "" {
		l += " [" + s.Where + "]"
	}
	return l
}

// lhs is the measured quantity a predicate compares: "sec/op a / b",
// "r(unit) a".
func lhs(s claim.Subject) string {
	if s.Kind == "correlation" {
		return "r(" + s.Unit + ") " + cellsLabel(s)
	}
	return s.Unit + " " + cellsLabel(s)
}

// judged names the interval a check's verdict judges, in its reasons.
func judged(s claim.Subject) string {
	switch s.Kind {
	case "correlation":
		return "r " + cellsLabel(s)
	case "value":
		return s.Unit + " " + cellsLabel(s)
	case "profile":
		return s.Unit + " " + strings.TrimSpace(cellsLabel(s))
	}
	return cellsLabel(s)
}

func opText(op string) string {
	switch op {
	case "<=":
		return "≤"
	case ">=":
		return "≥"
	}
	return op
}

// originWords says where a threshold comes from.
func originWords(o claim.Origin) string {
	switch o.From {
	case claim.Band:
		return fmt.Sprintf("±%.3g%% equivalence band: the claim is about no change", 100*o.Band)
	case claim.StatedEffect:
		return fmt.Sprintf("stated: %s; the claimed ×%.3g", o.Why, o.Effect)
	case claim.Midpoint:
		return fmt.Sprintf("√%.3g: log-midpoint of the claimed ×%.3g", o.Effect, o.Effect)
	case claim.StatedCoefficient:
		return fmt.Sprintf("stated: %s; the claimed r = %.3g", o.Why, o.Effect)
	case claim.Fisher:
		return fmt.Sprintf("tanh(atanh(%.3g)/2): midpoint on Fisher's z scale between no correlation and the claimed r = %.3g", o.Effect, o.Effect)
	case claim.Direction:
		return "direction only: the claim states no size"
	}
	if o.Why != "" {
		return "stated: " + o.Why
	}
	return "stated threshold"
}

// predicateBody is a check's predicate without the precondition it
// states.
func predicateBody(c claim.CheckResult) string {
	s, p := c.Subject, c.Predicate
	switch s.Kind {
	case "ratio", "value", "contrast", "correlation", "profile":
		l := strings.TrimSpace(lhs(s))
		if p.Op == "~" {
			return fmt.Sprintf("%s inside [%.3g, %.3g] (%s)", l, c.BandLo, c.BandHi, originWords(p.Origin))
		}
		return fmt.Sprintf("%s %s %.3g (%s)", l, opText(p.Op), c.Threshold, originWords(p.Origin))
	case "knee":
		if p.Shape {
			return fmt.Sprintf("%s %s: a knee (hinge beats line, quadratic, cubic, power law, two powers, exponential by ΔAICc ≥ %g) whose breakpoint interval lies inside [%g, %g] (claimed [%g, %g] ± one grid step)",
				s.Unit, cellsLabel(s), p.Margin, c.BandLo, c.BandHi, p.Min, p.Max)
		}
	case "crossover":
		if p.Shape {
			return fmt.Sprintf("%s %s: a sign change of %s/%s, significant on both sides (%s, %s across the points, α=%g), with %s better above it, whose crossing interval lies inside [%g, %g]",
				s.Unit, cellsLabel(s), spec.ShortSelector(s.A), spec.ShortSelector(s.B), testName(p.Paired), p.Correction, p.Alpha, spec.ShortSelector(p.Better), p.Min, p.Max)
		}
	}
	return ""
}

func testName(paired bool) string {
	if paired {
		return "paired per-round log-ratios, sign test"
	}
	return "unpaired, Mann-Whitney U"
}

// pairing says how a crossover's points were compared.
func pairing(m claim.Measure) string {
	if m.Paired {
		return fmt.Sprintf("paired over %d rounds, %s-corrected", m.N, m.Correction)
	}
	return fmt.Sprintf("unpaired (no rounds), %s-corrected", m.Correction)
}

// pointWords is the ratio A/B at one point of a crossover, with its
// interval.
func pointWords(p claim.Point) string {
	switch {
	case !p.Found:
		return "?"
	case p.Interval:
		return fmt.Sprintf("×%.3g [%.3g, %.3g]", p.Ratio, p.Lo, p.Hi)
	}
	return fmt.Sprintf("×%.3g", p.Ratio)
}

// kneeSpan is the series a knee was fitted on: "1–64, 7 points".
func kneeSpan(m claim.Measure) string { return fmt.Sprintf("%g–%g, %d points", m.From, m.To, m.N) }

// measuredBase is what a check measured, without its note and look.
func measuredBase(c claim.CheckResult) string {
	s, m := c.Subject, c.Measure
	u, label := s.Unit, cellsLabel(s)
	interval := func(how string) string {
		return fmt.Sprintf("%s %s = %.3g [%.3g, %.3g] (%s)", u, label, c.Estimate, c.Lo, c.Hi, how)
	}
	switch m.How {
	case claim.PairedTooFew:
		return fmt.Sprintf("%s %s = %.3g (paired over %d rounds)", u, label, c.Estimate, m.N)
	case claim.PairedRounds:
		if s.Kind == "contrast" {
			return interval(fmt.Sprintf("paired over %d rounds: median, %.1f%% %s", m.N, m.Conf*100, m.IntervalName))
		}
		return interval(fmt.Sprintf("paired over %d rounds: median, %.1f%% %s, p=%.2g", m.N, m.Conf*100, m.IntervalName, m.P))
	case claim.PerRoundRatios:
		return interval(fmt.Sprintf("fallback for zero values: median of %d per-round ratios", m.N))
	case claim.UnpairedQuotient:
		return interval("unpaired fallback: the cells carry no rounds; quotient of the medians' intervals")
	case claim.MediansOnly:
		return fmt.Sprintf("%s %s = %.3g (n=%d/%d)", u, label, m.Value, m.N, m.Of)
	case claim.ZeroDenominator:
		return fmt.Sprintf("%s %s: %.3g [%.3g, %.3g] vs %.3g [%.3g, %.3g] (fallback for a zero denominator: medians' intervals compared)",
			u, label, m.Num.Center, m.Num.Lo, m.Num.Hi, m.Den.Center, m.Den.Lo, m.Den.Hi)
	case claim.CellMedianOnly:
		return fmt.Sprintf("%s %s = %.3g (n=%d)", u, label, c.Estimate, m.N)
	case claim.CellMedian:
		return fmt.Sprintf("%s %s = %.3g [%.3g, %.3g] (n=%d)", u, label, c.Estimate, c.Lo, c.Hi, m.N)
	case claim.CoefficientsTooFew:
		return fmt.Sprintf("r(%s) %s = %.3g (%d rounds)", u, label, c.Estimate, m.N)
	case claim.Coefficients:
		return fmt.Sprintf("r(%s) %s = %.3g [%.3g, %.3g] (median over %d rounds, interval on Fisher's z scale)", u, label, c.Estimate, c.Lo, c.Hi, m.N)
	case claim.ProfileShare:
		return fmt.Sprintf("%s %s = %s, %.0f%% interval from the CPU profile", u, label, m.Share, m.Conf*100)
	case claim.ProfileDifference:
		return fmt.Sprintf("%s %s = %.3g [%.3g, %.3g] (%d/%d vs %d/%d samples), %.0f%% interval from the CPU profile",
			u, label, c.Estimate, c.Lo, c.Hi, m.Share.Hits, m.Share.Total, m.DenShare.Hits, m.DenShare.Total, m.Conf*100)
	case claim.KneeFit:
		return fmt.Sprintf("%s %s: %s (%s)", u, label, m.Note, kneeSpan(m))
	case claim.Crossings:
		var parts []string
		for _, x := range m.Crossings {
			parts = append(parts, fmt.Sprintf("%.3g (between %g and %g; interval [%.3g, %.3g]; %s/%s %s at %g, %s at %g; %s better above)", x.X, x.Lo, x.Hi, x.XLo, x.XHi,
				spec.ShortSelector(s.A), spec.ShortSelector(s.B), pointWords(x.Below), x.Below.X, pointWords(x.Above), x.Above.X, spec.ShortSelector(x.Better)))
		}
		return fmt.Sprintf("%s %s: crossover at %s; %s", u, label, strings.Join(parts, ", "), pairing(m))
	case claim.NoCrossing:
		return fmt.Sprintf("%s %s: no crossover in %g–%g; significant difference at %d of %d points; %s", u, label, m.From, m.To, m.Significant, m.Points, pairing(m))
	case claim.NoCrossingEither:
		who := "lower"
		if m.Higher {
			who = "higher"
		}
		return fmt.Sprintf("%s %s: no crossover in %g–%g (%s %s at %d of %d points, on both sides of [%g, %g]); %s", u, label, m.From, m.To,
			spec.ShortSelector(s.A), who, m.Significant, m.Points, c.Predicate.Min, c.Predicate.Max, pairing(m))
	}
	return ""
}

// checkLook names the look that judged a check, in a run with a first
// look.
func checkLook(c claim.CheckResult) string {
	switch {
	case c.LookAlpha == 0:
		return ""
	case c.Look == 1:
		return fmt.Sprintf("decided at the first look (rounds 1–%d, α=%.3g)", c.FirstLook, c.LookAlpha)
	case c.Look == 2:
		return fmt.Sprintf("second look (all rounds, α=%.3g)", c.LookAlpha)
	}
	return fmt.Sprintf("confidence sequence over all rounds, α=%.3g", c.LookAlpha)
}

// reasonBase is why a check was not reproduced, without its note and
// Holm's correction.
func reasonBase(c claim.CheckResult) string {
	s, p, w := c.Subject, c.Predicate, c.Why
	label := cellsLabel(s)
	switch w.Why {
	case claim.Failed:
		return w.Err
	case claim.UnknownKind:
		return fmt.Sprintf("unknown check kind %q", s.Kind)
	case claim.NoSharedRound:
		return label + ": the two cells share no round"
	case claim.TooFewRounds:
		if s.Kind == "contrast" {
			return fmt.Sprintf("%d rounds are too few for a %.4g%% %s", w.N, w.Conf*100, w.IntervalName)
		}
		return fmt.Sprintf("%d paired rounds are too few for a %.4g%% %s", w.N, w.Conf*100, w.IntervalName)
	case claim.FewSamplesPerCell:
		return "fewer than 6 samples per cell: no confidence interval"
	case claim.FewRounds:
		return "fewer than 6 rounds: no confidence interval"
	case claim.BandAtZero:
		return "the denominator reaches zero: an equivalence band cannot be tested"
	case claim.AgainstAtZero:
		return fmt.Sprintf("expected %s %s %.3g", label, p.Op, c.Threshold)
	case claim.UnsureAtZero:
		return fmt.Sprintf("the denominator reaches zero: the direction is clear, but not whether %s %s %.3g", label, p.Op, c.Threshold)
	case claim.Overlap:
		return "the two intervals overlap"
	case claim.OutsideBand:
		return fmt.Sprintf("the interval of %s [%.3g, %.3g] lies outside the band [%.3g, %.3g]", judged(s), c.Lo, c.Hi, c.BandLo, c.BandHi)
	case claim.StraddlesBand:
		return fmt.Sprintf("the interval of %s [%.3g, %.3g] is not wholly inside the band [%.3g, %.3g]", judged(s), c.Lo, c.Hi, c.BandLo, c.BandHi)
	case claim.OtherSide:
		return fmt.Sprintf("expected %s %s %.3g; the whole interval [%.3g, %.3g] is on the other side", judged(s), opText(p.Op), c.Threshold, c.Lo, c.Hi)
	case claim.Straddles:
		return fmt.Sprintf("the interval of %s [%.3g, %.3g] straddles %.3g", judged(s), c.Lo, c.Hi, c.Threshold)
	case claim.NoRounds:
		return w.Cell + " carries no rounds: a contrast needs all four cells paired by round"
	case claim.NoCommonRound:
		return "the four cells share no round with positive values"
	case claim.NoCoefficientCell:
		return w.Err + " (the benchmark reports a coefficient only when both series varied in a round)"
	case claim.NoCoefficient:
		return s.Unit + " " + label + " has no coefficient in (−1, 1) in this run"
	case claim.TooFewCoefficients:
		return fmt.Sprintf("%d rounds with a coefficient are too few for an interval (need 6)", w.N)
	case claim.NoValues:
		return s.Unit + " " + label + " has no values in this run"
	case claim.FewSamples:
		return "fewer than 6 samples: no confidence interval"
	case claim.NoProfiles:
		return `this run has no per-cell CPU profiles (the mode needs profile = "cell" and the profiling pass must have run)`
	case claim.ProfileFailed:
		if c.Note != "" {
			return w.Err + " (" + c.Note + ")"
		}
		return w.Err
	case claim.NotASeries:
		return s.Unit + " " + joinSelectors(s.Where, s.A) + ": " + w.Err
	case claim.FewPoints:
		return fmt.Sprintf("%s has %d points; a knee needs at least 4", label, w.N)
	case claim.FewSamplesAtPoints:
		return fmt.Sprintf("%d of %d points have fewer than 6 samples", w.N, w.Of)
	case claim.NoInterior:
		return fmt.Sprintf("no interior point of the sweep (%s) lies in [%g, %g], where a knee could be seen; sweep more axis values", kneeSpan(c.Measure), c.BandLo, c.BandHi)
	case claim.KneeElsewhere:
		return fmt.Sprintf("the knee of %s lies elsewhere: [%.3g, %.3g], outside [%g, %g]", label, c.Lo, c.Hi, c.BandLo, c.BandHi)
	case claim.KneeBeyond:
		return fmt.Sprintf("the knee's interval [%.3g, %.3g] reaches beyond [%g, %g]: the knee is not placed inside the claimed window", c.Lo, c.Hi, c.BandLo, c.BandHi)
	case claim.Smooth:
		return fmt.Sprintf("expected a knee of %s in [%g, %g], but it grows smoothly (no regime change)", label, c.BandLo, c.BandHi)
	case claim.NoShape:
		return "neither a knee nor smooth growth is shown: " + c.Measure.Note
	case claim.NoSeries:
		return fmt.Sprintf("%s and %s do not form two series along %q with common points", s.A, s.B, s.Axis)
	case claim.CrossesOtherWay:
		return fmt.Sprintf("expected %s better above a crossing in [%g, %g]; the series cross the other way there (interval [%.3g, %.3g]): %s is better above it",
			spec.ShortSelector(p.Better), p.Min, p.Max, c.Lo, c.Hi, spec.ShortSelector(w.Better))
	case claim.OnlyOtherWay:
		return fmt.Sprintf("expected %s better above a crossing in [%g, %g]; the only crossings go the other way (%s better above), the nearest at [%.3g, %.3g]",
			spec.ShortSelector(p.Better), p.Min, p.Max, spec.ShortSelector(w.Better), c.Lo, c.Hi)
	case claim.CrossingOutside:
		return fmt.Sprintf("expected a crossover in [%g, %g]; the crossing's interval [%.3g, %.3g] lies outside", p.Min, p.Max, c.Lo, c.Hi)
	case claim.CrossingOverlaps:
		return fmt.Sprintf("the crossing's interval [%.3g, %.3g] overlaps [%g, %g] but does not lie inside it", c.Lo, c.Hi, p.Min, p.Max)
	case claim.FewSignificant:
		return fmt.Sprintf("too few points differ significantly to rule a crossover in [%g, %g] out: need one sign on both sides of it", p.Min, p.Max)
	case claim.NotFetched:
		return fmt.Sprintf("not testable here: config %s's %s could not be downloaded (%s)", w.Config, w.Fetch, w.Err)
	case claim.NoCrossover:
		return fmt.Sprintf("expected a crossover in [%g, %g]", p.Min, p.Max)
	}
	return ""
}

// joinSelectors joins the selectors that are not empty with commas.
func joinSelectors(sels ...string) string {
	var parts []string
	for _, s := range sels {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ",")
}
