package claim

import (
	"fmt"
	"math"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// Verdict is the outcome of a claim or of one of its checks.
type Verdict string

// Verdicts.
const (
	Reproduced   Verdict = "reproduced"
	Contradicted Verdict = "contradicted"
	Inconclusive Verdict = "inconclusive"
	NotTestable  Verdict = "not testable"
)

// Rule is how every verdict is reached, in words a report prints beside
// its claims table. It is the one statement of the rule; spec's package
// documentation says the same for spec authors.
const Rule = `Each check tests a predicate on an interval measured in this run: for a claimed effect F (a ratio num/den) the threshold is √F, the log-midpoint between no effect and the claim, unless the check states another threshold with its reason; a claim of about no change uses an equivalence band [1/(1+b), 1+b] that the whole interval must lie inside; a claimed correlation r is tested against tanh(atanh(r)/2), the midpoint on Fisher's z scale. A check is reproduced when its whole interval lies on the claimed side of the threshold (inside the band), contradicted when it lies wholly on the other side (wholly outside the band), inconclusive when it straddles, not testable when this run cannot measure it (with the reason). Each verdict is thus a one-sided test at α = 1 − c (5% at 95% confidence): a check's interval is the two-sided one at 1 − 2α (90%), each of whose bounds is a one-sided 1 − α bound, and a band is two one-sided tests (TOST); crossovers and knees keep two-sided intervals at c. Ratios are paired by round: the estimate is the median of the per-round log-ratios (half of the rounds measured a larger ratio, half a smaller), and its interval holds the true median whatever the shape of the noise — a sign-test interval between two order statistics of the log-ratios for a run of fixed rounds, or, for a run that sampled until its checks were decided, a confidence sequence for the median that is valid at whatever round the run stopped. A claim is reproduced when every counted check is reproduced; it is contradicted when at least one counted check is contradicted after Holm's correction across the claim's counted checks (each check's test at α/k for the k checks not yet rejected); otherwise inconclusive, or not testable when no counted check could be measured. Context checks (marked "context": they hold by construction or only describe the setting) are shown and never counted. A precondition tests the situation a claim is about (that the load overloads the service, say), not the claim: when it holds it is shown as context; when it fails, or cannot be measured, the claim is not testable here, with the measurement as the reason, never contradicted; while it is undecided a claim its counted checks would decide is inconclusive. In a sequential run, sampled until its checks were decided, a ratio or contrast paired by round is judged on a confidence sequence, valid at every round at once, so its verdict holds whatever round sampling stopped at, and only such checks decide when sampling stops; every other check (a value, a correlation, a knee, a crossover, a ratio on a fallback interval) neither keeps sampling going nor ends it, and is judged at two looks, on the initial pass at α/3 and on all rounds at 2α/3.`

// threshold is what a check compares its interval with.
type threshold struct {
	op      string  // "<", "<=", ">", ">=" or "~" (inside the band)
	value   float64 // the threshold; NaN for "~"
	lo, hi  float64 // the equivalence band of "~"; NaN otherwise
	origin  string  // where the threshold comes from, in words
	claimed float64 // the article's figure on the check's scale; NaN when none
}

// ratioThreshold resolves a ratio check's threshold: an equivalence band
// (op "~"), √effect, an explicit value beside effect (with why), or an
// explicit op and value.
func ratioThreshold(ch spec.Check) threshold {
	t := threshold{op: ch.Op, value: ch.Value, lo: math.NaN(), hi: math.NaN(), claimed: math.NaN()}
	if ch.Effect > 0 {
		t.claimed = ch.Effect
	}
	switch {
	case ch.Op == "~":
		t.value, t.lo, t.hi = math.NaN(), 1/(1+ch.Band), 1+ch.Band
		t.origin = fmt.Sprintf("±%s equivalence band: the claim is about no change", pct(ch.Band))
		if ch.Effect <= 0 {
			t.claimed = 1
		}
	case ch.Effect > 0:
		t.op = ">"
		if ch.Effect < 1 {
			t.op = "<"
		}
		if ch.Value > 0 {
			t.origin = fmt.Sprintf("stated: %s; the claimed ×%.3g", ch.Why, ch.Effect)
		} else {
			t.value = math.Sqrt(ch.Effect)
			t.origin = fmt.Sprintf("√%.3g: log-midpoint of the claimed ×%.3g", ch.Effect, ch.Effect)
		}
	default:
		t.origin = statedOrigin(ch)
	}
	return t
}

// statedOrigin is the origin of an explicit threshold without an effect:
// the check's why, or a direction when the claim gives no size.
func statedOrigin(ch spec.Check) string {
	switch {
	case ch.Why != "":
		return "stated: " + ch.Why
	case ch.Kind == "ratio" && ch.Value == 1:
		return "direction only: the claim states no size"
	}
	return "stated threshold"
}

// plainThreshold is the threshold of a check that states op and value
// (kinds "value" and "profile").
func plainThreshold(ch spec.Check) threshold {
	return threshold{op: ch.Op, value: ch.Value, lo: math.NaN(), hi: math.NaN(), claimed: math.NaN(), origin: statedOrigin(ch)}
}

func pct(f float64) string { return fmt.Sprintf("%.3g%%", 100*f) }

// predicate writes the tested predicate: "<unit> <label> <op> <threshold>
// (<origin>)".
func (t threshold) predicate(unit, label string) string {
	lhs := strings.TrimSpace(unit + " " + label)
	if t.op == "~" {
		return fmt.Sprintf("%s inside [%.3g, %.3g] (%s)", lhs, t.lo, t.hi, t.origin)
	}
	return fmt.Sprintf("%s %s %.3g (%s)", lhs, opText(t.op), t.value, t.origin)
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

// judge gives the verdict of the interval [lo, hi] against the threshold:
// reproduced when it lies wholly on the claimed side (inside the band),
// contradicted when wholly on the other side (outside the band),
// inconclusive when it straddles. what names the interval in the reason.
func (t threshold) judge(lo, hi float64, what string) (Verdict, string) {
	if t.op == "~" {
		switch {
		case lo >= t.lo && hi <= t.hi:
			return Reproduced, ""
		case hi < t.lo || lo > t.hi:
			return Contradicted, fmt.Sprintf("the interval of %s [%.3g, %.3g] lies outside the band [%.3g, %.3g]", what, lo, hi, t.lo, t.hi)
		}
		return Inconclusive, fmt.Sprintf("the interval of %s [%.3g, %.3g] is not wholly inside the band [%.3g, %.3g]", what, lo, hi, t.lo, t.hi)
	}
	l, h := compareOp(lo, t.op, t.value), compareOp(hi, t.op, t.value)
	switch {
	case l && h:
		return Reproduced, ""
	case !l && !h:
		return Contradicted, fmt.Sprintf("expected %s %s %.3g; the whole interval [%.3g, %.3g] is on the other side", what, opText(t.op), t.value, lo, hi)
	}
	return Inconclusive, fmt.Sprintf("the interval of %s [%.3g, %.3g] straddles %.3g", what, lo, hi, t.value)
}

// fill copies the threshold into a check result.
func (t threshold) fill(cr *CheckResult) {
	cr.Threshold, cr.BandLo, cr.BandHi, cr.Claimed = t.value, t.lo, t.hi, t.claimed
}

// noInterval returns a CheckResult whose numbers are all NaN, for a check
// that measured nothing yet.
func noInterval(pred, unit string) CheckResult {
	nan := math.NaN()
	return CheckResult{Predicate: pred, Unit: unit, Estimate: nan, Lo: nan, Hi: nan,
		Threshold: nan, BandLo: nan, BandHi: nan, Claimed: nan}
}

// holm applies Holm's step-down correction to the contradictions among
// the counted checks: with k counted checks not yet rejected, a check
// stays contradicted only when it still is at confidence 1 − (1 − c)/k,
// a test at level (1 − c)/k (for a directional check, its interval at
// 1 − 2(1 − c)/k: see OneSided).
// A contradiction that does not survive becomes inconclusive, with why.
// eval recomputes check i under other options. A check judged at two looks
// (looks.go) whose corrected test contradicts it only at a later look than
// its own is shown as that look gave it.
func holm(results []CheckResult, counted []int, opt analysis.Options, eval func(i int, opt analysis.Options) CheckResult) {
	if len(counted) < 2 {
		return
	}
	remaining := append([]int(nil), counted...)
	rejected := map[int]bool{}
	for len(remaining) > 0 {
		k := len(remaining)
		adj := opt
		adj.Confidence = 1 - (1-opt.Confidence)/float64(k)
		adj.Alpha = opt.Alpha / float64(k)
		var next []int
		found := false
		for _, i := range remaining {
			if results[i].Verdict != Contradicted {
				next = append(next, i)
				continue
			}
			if a := eval(i, adj); a.Verdict == Contradicted {
				rejected[i], found = true, true
				if a.Look != results[i].Look {
					// At its corrected level only a later look
					// contradicts it (looks.go): that look decided it.
					results[i] = a
				}
				continue
			}
			next = append(next, i)
		}
		if !found {
			break
		}
		remaining = next
	}
	for _, i := range counted {
		if results[i].Verdict == Contradicted && !rejected[i] {
			results[i].Verdict = Inconclusive
			results[i].Reason = strings.TrimPrefix(results[i].Reason+"; ", "; ") +
				fmt.Sprintf("contradicted at level %.3g alone, but not after Holm's correction across the claim's %d counted checks", 1-opt.Confidence, len(counted))
		}
	}
}

// combine gives the claim's verdict from its checks (after holm): any
// counted check contradicted contradicts the claim; every counted check
// reproduced reproduces it; every counted check not testable makes it not
// testable; otherwise inconclusive. Context checks never count, and a claim
// of context checks alone is not testable.
func combine(checks []CheckResult) Verdict {
	count := map[Verdict]int{}
	n := 0
	for _, c := range checks {
		if c.Context {
			continue
		}
		n++
		count[c.Verdict]++
	}
	switch {
	case n == 0:
		return NotTestable
	case count[Contradicted] > 0:
		return Contradicted
	case count[Reproduced] == n:
		return Reproduced
	case count[NotTestable] == n:
		return NotTestable
	}
	return Inconclusive
}
