// Package claim gives each published claim of an experiment a verdict from
// the samples of one run: reproduced, contradicted, inconclusive or not
// testable. A claim is one or more checks, each a ratio or a crossover
// between cells measured side by side, so the verdict does not depend on how
// fast the machine is.
package claim

import (
	"fmt"
	"math"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// Verdicts.
const (
	Reproduced   = "reproduced"
	Contradicted = "contradicted"
	Inconclusive = "inconclusive"
	NotTestable  = "not testable"
)

// Result is the verdict of one claim.
type Result struct {
	ID       string
	Text     string
	Claimed  string
	Measured string // what this run measured, one line per check joined by "; "
	Verdict  string
	Reason   string
	Checks   []CheckResult
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	Verdict  string
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
	var measured, reasons []string
	for _, ch := range c.Checks {
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
		default:
			cr = CheckResult{Verdict: NotTestable, Reason: fmt.Sprintf("unknown check kind %q", ch.Kind)}
		}
		if ch.Note != "" && cr.Measured != "" && !strings.Contains(cr.Measured, ch.Note) {
			cr.Measured += " (" + ch.Note + ")"
		}
		r.Checks = append(r.Checks, cr)
		if cr.Measured != "" {
			measured = append(measured, cr.Measured)
		}
		if cr.Reason != "" {
			reasons = append(reasons, cr.Reason)
		}
	}
	r.Measured = strings.Join(measured, "; ")
	r.Reason = strings.Join(reasons, "; ")
	r.Verdict = combine(r.Checks)
	return r
}

// combine: any contradicted check contradicts the claim; all reproduced
// reproduce it; all not testable make it not testable; else inconclusive.
func combine(checks []CheckResult) string {
	count := map[string]int{}
	for _, c := range checks {
		count[c.Verdict]++
	}
	switch {
	case len(checks) == 0:
		return NotTestable
	case count[Contradicted] > 0:
		return Contradicted
	case count[Reproduced] == len(checks):
		return Reproduced
	case count[NotTestable] == len(checks):
		return NotTestable
	}
	return Inconclusive
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

// ratio judges num/den Op Value. When both cells carry their rounds, the
// ratio is taken within each round and its median and confidence interval
// come from those per-round ratios; otherwise the interval is the
// conservative quotient of the two medians' intervals. The check is
// reproduced when the whole interval satisfies the relation, contradicted
// when the whole interval violates it, inconclusive otherwise.
func ratio(ch spec.Check, samples []*analysis.Sample, opt analysis.Options) CheckResult {
	unit := unitOf(ch)
	num, err := selectOne(samples, unit, ch.Where, ch.Num)
	if err != nil {
		return CheckResult{Verdict: NotTestable, Reason: err.Error()}
	}
	den, err := selectOne(samples, unit, ch.Where, ch.Den)
	if err != nil {
		return CheckResult{Verdict: NotTestable, Reason: err.Error()}
	}
	n, d := analysis.Summarize(num.Values, opt), analysis.Summarize(den.Values, opt)
	label := fmt.Sprintf("%s / %s", short(ch.Num), short(ch.Den))
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	if anyInf(n.Lo, n.Hi, d.Lo, d.Hi) {
		m := fmt.Sprintf("%s %s = %.3g (n=%d/%d)", unit, label, n.Center/d.Center, n.N, d.N)
		return CheckResult{Verdict: Inconclusive, Measured: m, Reason: "fewer than 6 samples per cell: no confidence interval"}
	}
	if d.Center == 0 || d.Lo <= 0 && d.Hi >= 0 {
		// A zero denominator (e.g. 0 allocs/op): compare the difference instead.
		return differenceCheck(ch, label, n, d, analysis.Compare(num.Values, den.Values, opt), opt)
	}
	mid, lo, hi := n.Center/d.Center, 0.0, 0.0
	p := analysis.Compare(num.Values, den.Values, opt)
	paired := pairedRatios(num, den)
	how := "unpaired"
	if len(paired) >= 6 {
		// Rounds interleave the cells, so the ratio within a round cancels
		// the drift both cells saw; its median CI is the tighter interval.
		r := analysis.Summarize(paired, opt)
		mid, lo, hi, how = r.Center, r.Lo, r.Hi, fmt.Sprintf("paired over %d rounds", len(paired))
	} else {
		lo, hi = quotientInterval(n, d)
	}
	m := fmt.Sprintf("%s %s = %.3g [%.3g, %.3g] (%s, U-test p=%.2g)", unit, label, mid, lo, hi, how, p)
	cr := CheckResult{Measured: m}
	holds := func(x float64) bool {
		if ch.Op == "<" {
			return x < ch.Value
		}
		return x > ch.Value
	}
	// A paired interval that excludes the threshold is significant by
	// itself (every round agreed, or all but the extremes did); an unpaired
	// one also needs the U test when the threshold is 1.
	significant := len(paired) >= 6 || p < opt.Alpha || ch.Value != 1
	switch {
	case holds(lo) && holds(hi) && significant:
		cr.Verdict = Reproduced
	case !holds(lo) && !holds(hi) && significant:
		cr.Verdict = Contradicted
		cr.Reason = fmt.Sprintf("expected %s %s %g", label, ch.Op, ch.Value)
	default:
		cr.Verdict = Inconclusive
		cr.Reason = fmt.Sprintf("interval of %s straddles %g", label, ch.Value)
	}
	return cr
}

func anyInf(xs ...float64) bool {
	for _, x := range xs {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return true
		}
	}
	return false
}

// differenceCheck handles ratios whose denominator may be zero: the relation
// becomes num Op den when Value is 1 (ratios > 1 mean num > den).
func differenceCheck(ch spec.Check, label string, n, d analysis.Summary, p float64, opt analysis.Options) CheckResult {
	m := fmt.Sprintf("%s: %.3g [%.3g, %.3g] vs %.3g [%.3g, %.3g] (p=%.2g)", label, n.Center, n.Lo, n.Hi, d.Center, d.Lo, d.Hi, p)
	if ch.Value != 1 {
		return CheckResult{Verdict: NotTestable, Measured: m, Reason: "denominator is zero: only a ratio threshold of 1 can be tested"}
	}
	greater := n.Lo > d.Hi && p < opt.Alpha
	less := n.Hi < d.Lo && p < opt.Alpha
	want := greater
	if ch.Op == "<" {
		want = less
	}
	switch {
	case want:
		return CheckResult{Verdict: Reproduced, Measured: m}
	case (ch.Op == "<" && greater) || (ch.Op == ">" && less):
		return CheckResult{Verdict: Contradicted, Measured: m, Reason: fmt.Sprintf("expected %s %s 1", label, ch.Op)}
	}
	return CheckResult{Verdict: Inconclusive, Measured: m, Reason: "intervals overlap"}
}

// pairedRatios divides num by den within each round both were measured in.
func pairedRatios(num, den *analysis.Sample) []float64 {
	a, b := num.ByRound(), den.ByRound()
	if a == nil || b == nil {
		return nil
	}
	var out []float64
	for r, x := range a {
		if y, ok := b[r]; ok && y != 0 {
			out = append(out, x/y)
		}
	}
	return out
}

// quotientInterval bounds n/d from the two medians' intervals.
func quotientInterval(n, d analysis.Summary) (lo, hi float64) {
	cands := []float64{n.Lo / d.Lo, n.Lo / d.Hi, n.Hi / d.Lo, n.Hi / d.Hi}
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, c := range cands {
		lo, hi = math.Min(lo, c), math.Max(hi, c)
	}
	return lo, hi
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
