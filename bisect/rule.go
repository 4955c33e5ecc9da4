package bisect

import "math"

// The rule.
//
// Each step judges one interval: for the endpoints, the ratio BAD/GOOD of
// the decided-on unit (or the geomean of several benchmarks' ratios); for
// a midpoint M between the current ends L (like GOOD) and H (like BAD),
// the contrast C = (M/L)/(H/M) = M²/(L·H). Its log is 2·log(M/√(L·H)):
// twice the midpoint's distance on the log scale from the geometric
// middle of its ends. With p = log(M/L)/log(H/L), M's position between L
// (0) and H (1) on the log scale, log C = (2p − 1)·log(H/L): C lies above
// 1 exactly when the midpoint is past halfway towards H (when H is above
// L), so "the confidence sequence of C lies wholly above 1" is "M's
// position lies wholly beyond ½". The contrast needs no estimate of H/L:
// L and H are measured in the same rounds as M, and their own noise is
// part of C's. (The caller measures M twice a round, so the per-round
// log-contrast log M₁ + log M₂ − log L − log H is symmetric about log C
// under any noise that hits every cell alike.)
//
// Every interval is an anytime-valid confidence sequence (a step samples
// rounds until it decides), two-sided at 1 − 2α_k, so each bound is a
// one-sided bound at 1 − α_k, and a step decides wrongly (a verdict on the
// wrong side of the truth, or "same"/"differ" when the truth is the
// other) with probability at most α_k ([StepAlpha]). A search runs at most
// [Planned] steps when no commit is skipped; skips can add steps, which
// the split covers too, so the probability that any step of a search
// decides wrongly is at most α (Bonferroni). The culprit is then the right
// one whenever the measurement changes at one commit.

// Planned is the number of measuring steps a search over n commits needs
// at most when none is skipped: the endpoints, then ⌈log₂ n⌉ midpoints
// (each halves the candidates, rounding up).
func Planned(n int) int {
	steps := 1
	for c := n; c > 1; c = (c + 1) / 2 {
		steps++
	}
	return steps
}

// StepAlpha is step k's share of the error rate α of a search planned for
// p steps: α/(p+1) for each of steps 1…p, and α/(p+1)·2^−(k−p) for each
// step k > p that skips make necessary, so the shares of any number of
// steps add up to less than α.
func StepAlpha(alpha float64, planned, k int) float64 {
	share := alpha / float64(planned+1)
	if k <= planned {
		return share
	}
	return share * math.Pow(2, -float64(k-planned))
}

// Confidence is the level of the two-sided interval a step with share α_k
// is judged on: 1 − 2α_k, each bound one-sided at 1 − α_k.
func Confidence(alphaK float64) float64 { return 1 - 2*alphaK }

// DecideEnds judges GOOD against BAD from the interval [lo, hi] of the
// ratio BAD/GOOD: Differ when it lies wholly outside the band
// [1/(1+minEffect), 1+minEffect], Same when it lies wholly inside (each
// bound one-sided at 1 − α_k: an equivalence test), else Undecided (also
// without an interval).
func DecideEnds(lo, hi, minEffect float64) Verdict {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return Undecided
	}
	top, bottom := 1+minEffect, 1/(1+minEffect)
	switch {
	case lo > top || hi < bottom:
		return Differ
	case lo >= bottom && hi <= top:
		return Same
	}
	return Undecided
}

// DecideMid judges a midpoint from the interval [lo, hi] of its contrast
// C = M²/(L·H), where up says whether BAD lies above GOOD: LikeBad when
// the interval lies wholly on BAD's side of 1, LikeGood when wholly on
// GOOD's side, else Undecided (also without an interval).
func DecideMid(lo, hi float64, up bool) Verdict {
	if math.IsNaN(lo) || math.IsNaN(hi) {
		return Undecided
	}
	switch {
	case lo > 1:
		if up {
			return LikeBad
		}
		return LikeGood
	case hi < 1:
		if up {
			return LikeGood
		}
		return LikeBad
	}
	return Undecided
}
