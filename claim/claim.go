// Package claim gives each published claim of an experiment a verdict from
// the samples of one run: reproduced, contradicted, inconclusive or not
// testable. A claim is one or more checks, each a ratio or a crossover
// between cells measured side by side, so the verdict does not depend on how
// fast the machine is.
package claim

import (
	"fmt"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// Result is the verdict of one claim.
type Result struct {
	ID       string
	Text     string
	Claimed  string
	Measured string // what this run measured, one line per check joined by "; "
	Verdict  Verdict
	Reason   string
	Checks   []CheckResult
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	Verdict  Verdict
	Measured string
	Reason   string

	// Context marks a check that holds by construction: shown, never
	// counted in the claim's verdict.
	Context bool
	// Predicate is what the check tested, printed beside every verdict:
	// the cells, the operator, the threshold and its origin, e.g.
	// "sec/op syncpool@25 / plain@25 > 1.34 (√1.79: log-midpoint of the claimed ×1.79)".
	Predicate string
	Unit      string
	// Estimate is the measured quantity (a ratio, a value, a crossing or
	// a knee location) with its interval [Lo, Hi]; Threshold is the
	// value the predicate compares it with, BandLo..BandHi an equivalence
	// band, Claimed the article's figure. Each is NaN when it does not
	// apply (a zero CheckResult predates these fields: treat Lo == Hi == 0
	// as no interval).
	Estimate, Lo, Hi float64
	Threshold        float64
	BandLo, BandHi   float64
	Claimed          float64
}

// Evaluate judges every claim against the samples; checks of kind
// "profile" read the cells' CPU profiles.
func Evaluate(claims []spec.Claim, samples []*analysis.Sample, opt analysis.Options, profiles ...CellProfile) []Result {
	out := make([]Result, 0, len(claims))
	for _, c := range claims {
		out = append(out, evaluate(c, samples, opt, profiles))
	}
	return out
}

func evaluate(c spec.Claim, samples []*analysis.Sample, opt analysis.Options, profiles []CellProfile) Result {
	r := Result{ID: c.ID, Text: c.Text, Claimed: c.Claimed}
	if c.NotTestable != "" {
		r.Verdict, r.Reason = NotTestable, c.NotTestable
		return r
	}
	eval := func(i int, opt analysis.Options) CheckResult {
		return checkOne(c.Checks[i], samples, opt, profiles)
	}
	var counted []int
	for i, ch := range c.Checks {
		cr := eval(i, opt)
		cr.Context = ch.Context
		if !ch.Context && cr.Verdict != NotTestable {
			counted = append(counted, i)
		}
		r.Checks = append(r.Checks, cr)
	}
	holm(r.Checks, counted, opt, eval)
	var measured, reasons []string
	for _, cr := range r.Checks {
		tag := ""
		if cr.Context {
			tag = "context, not counted: "
		}
		if cr.Measured != "" {
			measured = append(measured, tag+cr.Measured)
		}
		if cr.Reason != "" {
			reasons = append(reasons, tag+cr.Reason)
		}
	}
	r.Measured = strings.Join(measured, "; ")
	r.Reason = strings.Join(reasons, "; ")
	r.Verdict = combine(r.Checks)
	if r.Verdict == NotTestable && len(counted) == 0 && len(r.Checks) > 0 && allContext(r.Checks) {
		r.Reason = strings.TrimPrefix(r.Reason+"; ", "; ") + "every check of this claim is context: none can fail, so none is counted"
	}
	return r
}

func allContext(checks []CheckResult) bool {
	for _, c := range checks {
		if !c.Context {
			return false
		}
	}
	return true
}

// checkOne evaluates one check under opt.
func checkOne(ch spec.Check, samples []*analysis.Sample, opt analysis.Options, profiles []CellProfile) CheckResult {
	var cr CheckResult
	switch ch.Kind {
	case "ratio":
		cr = ratio(ch, samples, opt)
	case "crossover":
		cr = crossover(ch, samples, opt)
	case "value":
		cr = value(ch, samples, opt)
	case "knee":
		cr = knee(ch, samples, opt)
	case "profile":
		cr = profile(ch, profiles, opt)
	case "correlation":
		cr = correlation(ch, samples, opt)
	case "contrast":
		cr = contrast(ch, samples, opt)
	default:
		cr = CheckResult{Verdict: NotTestable, Reason: fmt.Sprintf("unknown check kind %q", ch.Kind)}
	}
	switch {
	case ch.Note == "":
	case cr.Measured != "" && !strings.Contains(cr.Measured, ch.Note):
		cr.Measured += " (" + ch.Note + ")"
	case cr.Measured == "" && cr.Verdict == NotTestable && !strings.Contains(cr.Reason, ch.Note):
		cr.Reason += " (" + ch.Note + ")"
	}
	return cr
}

// selectOne finds the single sample of unit matching all the selectors.
func selectOne(samples []*analysis.Sample, unit string, sels ...string) (*analysis.Sample, error) {
	found, err := selectAll(samples, unit, sels...)
	if err != nil {
		return nil, err
	}
	if len(found) > 1 {
		return nil, fmt.Errorf("%d %s cells match %s (first %s, %s); narrow the selector", len(found), unit, joinSel(sels), found[0].Name.Full, found[1].Name.Full)
	}
	return found[0], nil
}

// selectAll finds the samples of unit matching all the selectors; none is an error.
func selectAll(samples []*analysis.Sample, unit string, sels ...string) ([]*analysis.Sample, error) {
	var all [][2]string
	for _, s := range sels {
		kv, err := spec.ParseSelector(s)
		if err != nil {
			return nil, err
		}
		all = append(all, kv...)
	}
	var found []*analysis.Sample
	for _, s := range samples {
		if s.Unit == unit && s.Matches(all) {
			found = append(found, s)
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no %s cell matches %s in this run", unit, joinSel(sels))
	}
	return found, nil
}

func joinSel(sels []string) string {
	var parts []string
	for _, s := range sels {
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, ",")
}

func unitOf(ch spec.Check) string {
	if ch.Unit == "" {
		return "sec/op"
	}
	return ch.Unit
}

// short drops the key names of a selector for display: "variant=syncpool,reuse=25" → "syncpool@25".
func short(sel string) string {
	kv, err := spec.ParseSelector(sel)
	if err != nil || len(kv) == 0 {
		return sel
	}
	var vals []string
	for _, p := range kv {
		vals = append(vals, p[1])
	}
	return strings.Join(vals, "@")
}

// crossover judges whether series A and B cross along Axis inside [Min, Max].
func crossover(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	a, err := selectAll(samples, unit, ch.Where, ch.A)
	if err != nil {
		return CheckResult{Verdict: NotTestable, Reason: err.Error()}
	}
	b, err := selectAll(samples, unit, ch.Where, ch.B)
	if err != nil {
		return CheckResult{Verdict: NotTestable, Reason: err.Error()}
	}
	pts := analysis.Along(a, b, ch.Axis)
	if len(pts) < 2 {
		return CheckResult{Verdict: NotTestable, Reason: fmt.Sprintf("%s and %s do not form two series along %q with common points", ch.A, ch.B, ch.Axis)}
	}
	label := fmt.Sprintf("%s vs %s along %s", short(ch.A), short(ch.B), ch.Axis)
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	xs := analysis.FindCrossovers(pts, opt.Alpha)
	span := fmt.Sprintf("%g–%g", pts[0].X, pts[len(pts)-1].X)
	if len(xs) == 0 {
		sign, sig := overallSign(pts, opt)
		if 2*sig < len(pts) {
			m := fmt.Sprintf("%s: no crossover; significant difference at only %d of %d points", label, sig, len(pts))
			return CheckResult{Verdict: Inconclusive, Measured: m, Reason: "too few points differ significantly to rule a crossover out"}
		}
		who := "lower"
		if sign > 0 {
			who = "higher"
		}
		m := fmt.Sprintf("%s: no crossover in %s (%s %s at %d of %d points)", label, span, short(ch.A), who, sig, len(pts))
		return CheckResult{Verdict: Contradicted, Measured: m, Reason: fmt.Sprintf("expected a crossover in [%g, %g]", ch.Min, ch.Max)}
	}
	var parts []string
	best := xs[0]
	for _, c := range xs {
		parts = append(parts, fmt.Sprintf("%.3g (between %g and %g)", c.X, c.Lo, c.Hi))
		if dist(c.X, ch.Min, ch.Max) < dist(best.X, ch.Min, ch.Max) {
			best = c
		}
	}
	m := fmt.Sprintf("%s: crossover at %s", label, strings.Join(parts, ", "))
	switch {
	case best.X >= ch.Min && best.X <= ch.Max:
		return CheckResult{Verdict: Reproduced, Measured: m}
	case best.Hi < ch.Min || best.Lo > ch.Max:
		return CheckResult{Verdict: Contradicted, Measured: m, Reason: fmt.Sprintf("expected a crossover in [%g, %g]", ch.Min, ch.Max)}
	}
	return CheckResult{Verdict: Inconclusive, Measured: m, Reason: fmt.Sprintf("the crossover's bracket overlaps [%g, %g] but its estimate lies outside", ch.Min, ch.Max)}
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

// overallSign counts the points where A and B differ significantly and
// returns the sign of A−B there (+1 when A is higher at most of them).
func overallSign(pts []analysis.AxisPoint, opt analysis.Options) (sign, significant int) {
	var pos, neg int
	for _, p := range pts {
		if analysis.Compare(p.A, p.B, opt) >= opt.Alpha {
			continue
		}
		if analysis.Summarize(p.A, opt).Center > analysis.Summarize(p.B, opt).Center {
			pos++
		} else {
			neg++
		}
	}
	if pos >= neg {
		return 1, pos + neg
	}
	return -1, pos + neg
}
