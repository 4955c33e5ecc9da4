package claim

import (
	"math"

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

// threshold is what a check compares its interval with.
type threshold struct {
	op      string  // "<", "<=", ">", ">=" or "~" (inside the band)
	value   float64 // the threshold; NaN for "~"
	lo, hi  float64 // the equivalence band of "~"; NaN otherwise
	origin  Origin  // where the threshold comes from
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
		t.origin = Origin{From: Band, Band: ch.Band}
		if ch.Effect <= 0 {
			t.claimed = 1
		}
	case ch.Effect > 0:
		t.op = ">"
		if ch.Effect < 1 {
			t.op = "<"
		}
		if ch.Value > 0 {
			t.origin = Origin{From: StatedEffect, Effect: ch.Effect, Why: ch.Why}
		} else {
			t.value = math.Sqrt(ch.Effect)
			t.origin = Origin{From: Midpoint, Effect: ch.Effect}
		}
	default:
		t.origin = statedOrigin(ch)
	}
	return t
}

// statedOrigin is the origin of an explicit threshold without an effect:
// the check's why, or a direction when the claim gives no size.
func statedOrigin(ch spec.Check) Origin {
	if ch.Why == "" && ch.Kind == "ratio" && ch.Value == 1 {
		return Origin{From: Direction}
	}
	return Origin{From: Stated, Why: ch.Why}
}

// plainThreshold is the threshold of a check that states op and value
// (kinds "value" and "profile").
func plainThreshold(ch spec.Check) threshold {
	return threshold{op: ch.Op, value: ch.Value, lo: math.NaN(), hi: math.NaN(), claimed: math.NaN(), origin: statedOrigin(ch)}
}

// judge gives the verdict of the interval [lo, hi] against the threshold:
// reproduced when it lies wholly on the claimed side (inside the band),
// contradicted when wholly on the other side (outside the band),
// inconclusive when it straddles; and why, when not reproduced.
func (t threshold) judge(lo, hi float64) (Verdict, Reason) {
	if t.op == "~" {
		switch {
		case lo >= t.lo && hi <= t.hi:
			return Reproduced, Reason{}
		case hi < t.lo || lo > t.hi:
			return Contradicted, Reason{Why: OutsideBand}
		}
		return Inconclusive, Reason{Why: StraddlesBand}
	}
	l, h := compareOp(lo, t.op, t.value), compareOp(hi, t.op, t.value)
	switch {
	case l && h:
		return Reproduced, Reason{}
	case !l && !h:
		return Contradicted, Reason{Why: OtherSide}
	}
	return Inconclusive, Reason{Why: Straddles}
}

// check starts the result of a check judged against the threshold: its
// subject (cells of unit), its predicate and threshold, and no
// measurement yet (every figure NaN).
func (t threshold) check(ch spec.Check, unit string) CheckResult {
	nan := math.NaN()
	return CheckResult{Subject: subject(ch, unit), Predicate: Predicate{Op: t.op, Origin: t.origin}, Unit: unit,
		Estimate: nan, Lo: nan, Hi: nan, Threshold: t.value, BandLo: t.lo, BandHi: t.hi, Claimed: t.claimed}
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
			results[i].Holm, results[i].HolmLevel = len(counted), 1-opt.Confidence
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
