// Package claim gives each published claim of an experiment a verdict from
// the samples of one run: reproduced, contradicted, inconclusive or not
// testable. A claim is one or more checks, each a ratio or a crossover
// between cells measured side by side, so the verdict does not depend on how
// fast the machine is.
//
// A result is data: the verdict, the predicate a check tested (its cells,
// operator, threshold and where the threshold comes from), what it
// measured (figures and how they were measured) and why it was not
// reproduced (a [Why] with its figures). Package report words them.
//
// The rule below is how every verdict is reached. docs/claims.md states
// it in the same words for readers of reports, which quote a summary of
// it and point there.
//
// # The rule
//
// Each check tests a predicate on an interval measured in this run: for a
// claimed effect F (a ratio num/den) the threshold is √F, the
// log-midpoint between no effect and the claim, unless the check states
// another threshold with its reason; a claim of about no change uses an
// equivalence band [1/(1+b), 1+b] that the whole interval must lie
// inside; a claimed correlation r is tested against tanh(atanh(r)/2), the
// midpoint on Fisher's z scale. A check is reproduced when its whole
// interval lies on the claimed side of the threshold (inside the band),
// contradicted when it lies wholly on the other side (wholly outside the
// band), inconclusive when it straddles, not testable when this run
// cannot measure it (with the reason).
//
// Each verdict is thus a one-sided test at α = 1 − c (5% at 95%
// confidence): a check's interval is the two-sided one at 1 − 2α (90%),
// each of whose bounds is a one-sided 1 − α bound, and a band is two
// one-sided tests (TOST); crossovers and knees keep two-sided intervals
// at c. Ratios are paired by round: the estimate is the median of the
// per-round log-ratios (half of the rounds measured a larger ratio, half
// a smaller), and its interval holds the true median whatever the shape
// of the noise — a sign-test interval between two order statistics of
// the log-ratios for a run of fixed rounds, or, for a run that sampled
// until its checks were decided, a confidence sequence for the median
// that is valid at whatever round the run stopped.
//
// A claim is reproduced when every counted check is reproduced; it is
// contradicted when at least one counted check is contradicted after
// Holm's correction across the claim's counted checks (each check's test
// at α/k for the k checks not yet rejected); otherwise inconclusive, or
// not testable when no counted check could be measured. Context checks
// (marked "context": they hold by construction or only describe the
// setting) are shown and never counted. A precondition tests the
// situation a claim is about (that the load overloads the service, say),
// not the claim: when it holds it is shown as context; when it fails, or
// cannot be measured, the claim is not testable here, with the
// measurement as the reason, never contradicted; while it is undecided a
// claim its counted checks would decide is inconclusive.
//
// In a sequential run, sampled until its checks were decided, a ratio or
// contrast paired by round is judged on a confidence sequence, valid at
// every round at once, so its verdict holds whatever round sampling
// stopped at, and only such checks decide when sampling stops; every
// other check (a value, a correlation, a knee, a crossover, a ratio on a
// fallback interval) neither keeps sampling going nor ends it, and is
// judged at two looks, on the initial pass at α/3 and on all rounds at
// 2α/3.
package claim

import (
	"fmt"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// Result is the verdict of one claim.
type Result struct {
	ID      string
	Text    string
	Claimed string
	Verdict Verdict
	Checks  []CheckResult
	// Declared is why the spec declares the claim not testable
	// (spec.Claim.NotTestable); the claim then has no checks.
	Declared string
	// Counted is the verdict the counted checks give (see combine);
	// Preconditions says how the claim's preconditions bore on it, and
	// Verdict is what is left.
	Counted       Verdict
	Preconditions Situation
	// NotTested lists the parts of the claim no check tests, each
	// "<part>: <why>" (spec.Claim.NotTested): the verdict does not cover
	// them.
	NotTested []string
}

// Situation is how a claim's preconditions bear on its verdict.
type Situation int

const (
	// Held: every precondition held, or the claim has none; the counted
	// checks' verdict is the claim's.
	Held Situation = iota
	// Absent: a precondition failed or could not be measured; this run
	// did not create the situation the claim is about, and the claim is
	// not testable here whatever its counted checks say.
	Absent
	// Open: a precondition is undecided, so the counted checks'
	// reproduced or contradicted is not a verdict on the claim: it is
	// inconclusive.
	Open
)

// CheckResult is the outcome of one check.
type CheckResult struct {
	Verdict Verdict

	// Subject is what the check reads: its kind and the selectors of its
	// cells.
	Subject Subject
	// Predicate is what the check tested, printed beside every verdict:
	// the cells, the operator, the threshold and its origin, e.g.
	// "sec/op syncpool@25 / plain@25 > 1.34 (√1.79: log-midpoint of the
	// claimed ×1.79)". It is data here; report words it.
	Predicate Predicate
	// Measure is what this run measured, as figures; zero when the check
	// measured nothing.
	Measure Measure
	// Why is why the check was not reproduced, as data; zero when
	// nothing needs saying.
	Why Reason
	// Note is the check's note (spec.Check.Note), shown beside what it
	// measured, or, when it measured nothing, beside why.
	Note string
	// Holm is, when Holm's correction across the claim's counted checks
	// turned the check's contradiction into inconclusive, the number of
	// counted checks; HolmLevel is the level the check alone was tested
	// at. 0 otherwise.
	Holm      int
	HolmLevel float64

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
	// LookAlpha is the one-sided α of the look that judged the check, in
	// a run with a first look (FirstLook its rounds): at the first look,
	// the second, or, for a check on a confidence sequence (Look 0), on
	// all rounds. 0 when there is no such look to name: a run judged
	// once, or a check not testable at the second look.
	LookAlpha float64
	FirstLook int
	// Sequence marks an interval that is a confidence sequence, valid at
	// every round at once: a ratio or contrast paired by round
	// (analysis.Options.Paired, Contrast) under Options.Anytime. Only
	// such a check may decide when a sequential run stops sampling; a
	// fixed-n interval (a value, a correlation, a knee, a crossover, a
	// ratio's fallbacks) may not (looks.go).
	Sequence bool
	// Unit is the unit of the estimate: the check's unit, a profile
	// check's share, or the axis of a knee or a crossover.
	Unit string
	// Estimate is the measured quantity (a ratio, a value, a crossing or
	// a knee location) with its interval [Lo, Hi]; Threshold is the
	// value the predicate compares it with, BandLo..BandHi an equivalence
	// band (a knee's or crossover's window), Claimed the article's
	// figure. Each is NaN when it does not apply (a zero CheckResult
	// predates these fields: treat Lo == Hi == 0 as no interval).
	Estimate, Lo, Hi float64
	Threshold        float64
	BandLo, BandHi   float64
	Claimed          float64
}

// Subject names what a check reads, as its spec writes it.
type Subject struct {
	Kind string // "ratio", "value", "contrast", "correlation", "profile", "knee", "crossover"
	// Unit is the unit of the cells the check reads (sec/op when the
	// check names none), or a profile check's share.
	Unit           string
	Num, Den, A, B string // the selectors of its cells
	Where          string // the selector every cell of the check matches
	Axis           string // a knee's or crossover's axis
}

// Predicate is what a check tests, beside its Subject and the threshold
// or band of its CheckResult.
type Predicate struct {
	// Op compares the check's interval with its threshold: "<", "<=",
	// ">", ">=", or "~" (inside the band); "" for a knee or a crossover.
	Op     string
	Origin Origin
	// Shape marks the predicate of a knee or a crossover, stated once its
	// cells are found: a knee whose hinge beats the smooth fits by
	// Margin (ΔAICc) with its breakpoint interval inside the window
	// (BandLo..BandHi: the claimed Min..Max widened by a grid step); a
	// crossover's sign change, tested per point (Paired, or unpaired;
	// Correction across the points at Alpha), with Better the series
	// better above it, whose crossing interval lies inside [Min, Max].
	Shape  bool
	Margin float64
	// Bend is the way a knee check claims the series bends: "up", "down",
	// or "" for either.
	Bend       string
	Min, Max   float64
	Paired     bool
	Correction string
	Alpha      float64
	Better     string
}

// Origin is where a check's threshold comes from.
type Origin struct {
	From   From
	Effect float64 // the claimed effect F, or the claimed coefficient r
	Band   float64 // b of an equivalence band [1/(1+b), 1+b]
	Why    string  // the check's reason for a stated threshold (spec.Check.Why)
}

// From names the origins of a threshold.
type From int

const (
	// Stated: the check states its threshold (Why says why, when it
	// does).
	Stated From = iota
	// Direction: a ratio against 1: the claim states no size.
	Direction
	// Band: an equivalence band of ±Band: the claim is about no change.
	Band
	// Midpoint: √Effect, the log-midpoint of no effect and the claimed
	// ×Effect.
	Midpoint
	// StatedEffect: the check states its threshold beside the claimed
	// ×Effect, with Why.
	StatedEffect
	// Fisher: tanh(atanh(r)/2), the midpoint on Fisher's z scale between
	// no correlation and the claimed r (Effect).
	Fisher
	// StatedCoefficient: the check states its threshold beside the
	// claimed r (Effect), with Why.
	StatedCoefficient
)

// Checks judged against a threshold// Checks judged against a threshold (ratio, value, contrast, correlation,
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
		r.Verdict, r.Counted, r.Declared = NotTestable, NotTestable, c.NotTestable
		return r
	}
	eval := func(i int, opt analysis.Options) CheckResult {
		return judgeCheck(c.Checks[i], samples, opt, profiles)
	}
	var counted []int
	for i, ch := range c.Checks {
		cr := eval(i, opt)
		cr.Context = !Counted(ch) || ch.Precondition != ""
		cr.Precondition = ch.Precondition
		if !cr.Context && cr.Verdict != NotTestable {
			counted = append(counted, i)
		}
		r.Checks = append(r.Checks, cr)
	}
	holm(r.Checks, counted, opt, eval)
	summarize(&r)
	return r
}

// summarize gives a claim its verdict from its checks: the counted
// checks' (combine), unless a precondition bears on it (preconditions). A
// claim without checks (declared not testable) keeps its verdict.
func summarize(r *Result) {
	if len(r.Checks) == 0 {
		return
	}
	r.Counted = combine(r.Checks)
	r.Verdict = r.Counted
	r.Preconditions = preconditions(r.Checks, r.Counted)
	switch r.Preconditions {
	case Absent:
		r.Verdict = NotTestable
	case Open:
		r.Verdict = Inconclusive
	}
}

// preconditions applies a claim's preconditions to the verdict its
// counted checks give: a precondition that failed (its check
// contradicted) or could not be measured makes the claim not testable
// here, whatever the counted checks say (Absent); one still undecided
// (inconclusive) leaves a reproduced or contradicted claim inconclusive,
// since the situation it was measured in is not established (Open).
// Otherwise every precondition held, or there is none: the verdict
// stands (Held).
func preconditions(checks []CheckResult, verdict Verdict) Situation {
	open := false
	for _, c := range checks {
		if c.Precondition == "" {
			continue
		}
		switch c.Verdict {
		case Contradicted, NotTestable:
			return Absent
		case Inconclusive:
			open = true
		}
	}
	if open && (verdict == Reproduced || verdict == Contradicted) {
		return Open
	}
	return Held
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
		cr = CheckResult{Verdict: NotTestable, Subject: subject(ch, ch.Unit), Why: Reason{Why: UnknownKind}}
	}
	cr.Note = ch.Note
	return cr
}

// subject is what the check reads; unit is the unit of its cells.
func subject(ch spec.Check, unit string) Subject {
	return Subject{Kind: ch.Kind, Unit: unit, Num: ch.Num, Den: ch.Den, A: ch.A, B: ch.B, Where: ch.Where, Axis: ch.Axis}
}

// failed is the reason of a check stopped by err.
func failed(err error) Reason { return Reason{Why: Failed, Err: err.Error()} }

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
