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
	Reason   string // why a claim is not testable, or why its checks failed
	Checks   []CheckResult
	// NotTested lists the parts of the claim no check tests, each
	// "<part>: <why>" (spec.Claim.NotTested): the verdict does not cover
	// them.
	NotTested []string
}

// CheckResult is the outcome of one check.
type CheckResult struct {
	Verdict  Verdict
	Measured string
	Reason   string

	// Context marks a check that is shown and never counted in the
	// claim's verdict: one that holds by construction or only describes
	// the setting (spec.Check.Context), every profile check (see
	// Counted), and every precondition.
	Context bool
	// Precondition is the situation a precondition check tests, in words
	// (spec.Check.Precondition); "" for any other check. A precondition
	// is never evidence for or against the claim: reproduced means the
	// situation held and the check is shown as context; contradicted
	// means it did not, and the claim is not testable here (see
	// summarize).
	Precondition string
	// Look is the look that gave the verdict in a run judged at two looks
	// (looks.go): 1 or 2; 0 in a run judged once, and for a check of a
	// sequential run judged on its confidence sequence.
	Look int
	// Sequence marks an interval that is a confidence sequence, valid at
	// every round at once: a ratio or contrast paired by round
	// (analysis.Options.Paired, Contrast) under Options.Anytime. Only
	// such a check may decide when a sequential run stops sampling; a
	// fixed-n interval (a value, a correlation, a knee, a crossover, a
	// ratio's fallbacks) may not (looks.go).
	Sequence bool
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

// Checks judged against a threshold (ratio, value, contrast, correlation,
// profile) are directional tests: a claim says on which side of its
// threshold the measure lies. Reproduced means the interval lies wholly on
// the claimed side, contradicted wholly on the other, so each verdict
// rejects one one-sided hypothesis, and at most one of the two can be
// wrong for a given truth. At confidence c each verdict is a one-sided
// test at level 1 − c: its interval is the two-sided one at 2c − 1 (90%
// for c = 95%), each of whose bounds is a one-sided c bound. An
// equivalence band ("~") is two one-sided tests at 1 − c (TOST, Schuirmann
// 1987) and uses the same interval. Crossovers and knees keep two-sided
// intervals at c: they locate a change, not a side of a threshold.
var thresholdKinds = map[string]bool{"ratio": true, "value": true, "contrast": true, "correlation": true, "profile": true}

// OneSided returns opt with the confidence of the two-sided interval
// whose bounds are one-sided bounds at opt.Confidence (2c − 1). A
// confidence of 1/2 or less is returned unchanged.
func OneSided(opt analysis.Options) analysis.Options {
	if opt.Confidence > 0.5 && opt.Confidence < 1 {
		opt.Confidence = 2*opt.Confidence - 1
	}
	return opt
}

// Evaluate judges every claim against the samples; checks of kind
// "profile" read the cells' CPU profiles. opt says how the run was
// sampled: a run with a first look (opt.FirstLook) judges its checks at
// the looks of looks.go.
func Evaluate(claims []spec.Claim, samples []*analysis.Sample, opt analysis.Options, profiles ...CellProfile) []Result {
	out := make([]Result, 0, len(claims))
	for _, c := range claims {
		out = append(out, evaluate(c, samples, opt, profiles))
	}
	return out
}

func evaluate(c spec.Claim, samples []*analysis.Sample, opt analysis.Options, profiles []CellProfile) Result {
	r := Result{ID: c.ID, Text: c.Text, Claimed: c.Claimed, NotTested: c.NotTested}
	if c.NotTestable != "" {
		r.Verdict, r.Reason = NotTestable, c.NotTestable
		return r
	}
	eval := func(i int, opt analysis.Options) CheckResult {
		return judgeCheck(c.Checks[i], samples, opt, profiles)
	}
	var counted []int
	for i, ch := range c.Checks {
		cr := eval(i, opt)
		cr.Context = !Counted(ch) || ch.Precondition != ""
		if ch.Precondition != "" {
			cr.Precondition = ch.Precondition
			cr.Predicate = "precondition (" + ch.Precondition + "): " + cr.Predicate
		}
		if !cr.Context && cr.Verdict != NotTestable {
			counted = append(counted, i)
		}
		r.Checks = append(r.Checks, cr)
	}
	holm(r.Checks, counted, opt, eval)
	summarize(&r)
	return r
}

// summarize fills a claim's Measured, Reason and Verdict from its checks.
// A claim without checks (declared not testable) keeps its verdict and
// reason.
func summarize(r *Result) {
	if len(r.Checks) == 0 {
		return
	}
	var measured, reasons []string
	for _, cr := range r.Checks {
		tag := ""
		switch {
		case cr.Precondition != "":
			tag = "precondition, not counted: "
		case cr.Context:
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
	if why, v, ok := preconditions(r.Checks, r.Verdict); ok {
		// A claim not testable for a failed precondition gives that
		// reason alone: its checks' reasons are no evidence either way.
		if r.Verdict, r.Reason = v, why; v != NotTestable {
			r.Reason += strings.TrimSuffix("; "+strings.Join(reasons, "; "), "; ")
		}
		return
	}
	if r.Verdict == NotTestable && len(r.Checks) > 0 && allContext(r.Checks) {
		r.Reason = strings.TrimPrefix(r.Reason+"; ", "; ") + "every check of this claim is context (it holds by construction, describes the setting, or reads one profiling pass, which gives no run-to-run interval), so none is counted"
	}
}

// preconditions applies a claim's preconditions to the verdict its
// counted checks give: a precondition that failed (its check
// contradicted) or could not be measured makes the claim not testable
// here, whatever the counted checks say, with the measurement as the
// reason; one still undecided (inconclusive) leaves a reproduced or
// contradicted claim inconclusive, since the situation it was measured in
// is not established. ok is false when every precondition held (or there
// is none): the verdict stands.
func preconditions(checks []CheckResult, verdict Verdict) (why string, v Verdict, ok bool) {
	var failed, unmeasured, open []string
	for _, c := range checks {
		if c.Precondition == "" {
			continue
		}
		what := strings.TrimSpace(c.Measured)
		if what == "" {
			what = c.Reason
		}
		switch c.Verdict {
		case Contradicted:
			failed = append(failed, fmt.Sprintf("the precondition “%s” did not hold: %s, where %s was required", c.Precondition, what, strings.TrimPrefix(c.Predicate, "precondition ("+c.Precondition+"): ")))
		case NotTestable:
			unmeasured = append(unmeasured, fmt.Sprintf("the precondition “%s” could not be measured: %s", c.Precondition, what))
		case Inconclusive:
			open = append(open, fmt.Sprintf("the precondition “%s” is undecided: %s", c.Precondition, c.Reason))
		}
	}
	switch {
	case len(failed)+len(unmeasured) > 0:
		return "not testable here: " + strings.Join(append(failed, unmeasured...), "; ") + " — this run did not create the situation the claim is about, so its checks are no evidence either way", NotTestable, true
	case len(open) > 0 && (verdict == Reproduced || verdict == Contradicted):
		return strings.Join(open, "; ") + ", so the counted checks' " + string(verdict) + " is not a verdict on the claim", Inconclusive, true
	}
	return "", verdict, false
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
	if thresholdKinds[ch.Kind] {
		opt = OneSided(opt)
	}
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
