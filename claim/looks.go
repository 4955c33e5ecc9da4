package claim

import (
	"fmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// Two looks.
//
// A run of fixed rounds judges its counted checks after its planned rounds
// (the first look) and then runs follow-up rounds of only the cells that
// the undecided checks read (engine); those checks are judged again on
// every round (the second look). Each look is a test of its own, so α is
// split between them (Bonferroni): a check decided at the first look at
// level FirstLookShare·α keeps that verdict, and every other check is
// judged on all its rounds at the remaining (1 − FirstLookShare)·α. For any
// truth, the chance that a check gets a wrong verdict is at most the sum,
// α. Each look applies the rule of a single look (Rule): one-sided tests
// against thresholds, two-sided intervals for crossovers and knees, Holm
// across a claim's counted checks.
//
// The share is a third: at 6 rounds the sign-test interval's finest
// one-sided level is 1/64 ≈ 0.0156 ≤ α/3, so the first look can decide a
// check whose six per-round ratios all lie beyond its threshold, and the
// second look keeps 2α/3. A check near its threshold then gets the
// precision of the rounds of both looks instead of a coin toss at six:
// simulated with known truths (looks_test.go), two runs agree on such a
// check far more often, at the same error rate.

// FirstLookShare is the share of α spent at the first look.
const FirstLookShare = 1.0 / 3

// LookRule states the two-look rule for a report, given the run's α and the
// round of the first look.
func LookRule(alpha float64, firstLook int) string {
	a1, a2 := FirstLookShare*alpha, (1-FirstLookShare)*alpha
	return fmt.Sprintf("Two looks: every counted check was judged after the planned %d rounds at one-sided α=%.3g; the cells of those still undecided ran follow-up rounds, and each of those checks was judged again on all its rounds at α=%.3g (Bonferroni across the looks: α=%.3g in all, whatever the number of follow-up rounds). A check decided at the first look keeps that verdict. Every other finding of this run reads rounds 1–%d only.",
		firstLook, a1, a2, alpha, firstLook)
}

// LookOptions returns the options of the first and the second look: α and
// 1 − confidence scaled by each look's share.
func LookOptions(opt analysis.Options) (first, second analysis.Options) {
	opt.FirstLook = 0
	first, second = opt, opt
	first.Alpha, second.Alpha = FirstLookShare*opt.Alpha, (1-FirstLookShare)*opt.Alpha
	first.Confidence = 1 - FirstLookShare*(1-opt.Confidence)
	second.Confidence = 1 - (1-FirstLookShare)*(1-opt.Confidence)
	return first, second
}

// evaluateLooks judges claim c at two looks: on the samples of rounds
// 1..opt.FirstLook, then on all samples.
func evaluateLooks(c spec.Claim, samples []*analysis.Sample, opt analysis.Options, profiles []CellProfile) Result {
	first, second := LookOptions(opt)
	r1 := evaluate(c, analysis.UpToRound(samples, opt.FirstLook), first, profiles)
	r2 := evaluate(c, samples, second, profiles)
	if len(r2.Checks) == 0 || len(r1.Checks) != len(r2.Checks) {
		return r2 // a claim marked not testable has no checks at either look, and keeps its reason
	}
	for i, cr := range r1.Checks {
		if cr.Verdict == Reproduced || cr.Verdict == Contradicted {
			cr.Look = 1
			cr.Measured = withLook(cr.Measured, fmt.Sprintf("decided at the first look (rounds 1–%d, α=%.3g)", opt.FirstLook, first.Alpha))
			r2.Checks[i] = cr
			continue
		}
		r2.Checks[i].Look = 2
		if r2.Checks[i].Verdict != NotTestable {
			r2.Checks[i].Measured = withLook(r2.Checks[i].Measured, fmt.Sprintf("second look (all rounds, α=%.3g)", second.Alpha))
		}
	}
	summarize(&r2)
	return r2
}

func withLook(measured, look string) string {
	if measured == "" {
		return ""
	}
	return measured + " [" + look + "]"
}
