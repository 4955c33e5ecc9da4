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
// α. Each look applies the rule of a single look (the package
// documentation): one-sided tests against thresholds, two-sided
// intervals for crossovers and knees. The two looks together are one
// test of the check at α (judgeCheck), and
// Holm's correction across a claim's counted checks applies to that test,
// at α/k for k checks.
//
// The share is a third: at 6 rounds the sign-test interval's finest
// one-sided level is 1/64 ≈ 0.0156 ≤ α/3, so the first look can decide a
// check whose six per-round ratios all lie beyond its threshold, and the
// second look keeps 2α/3. A check near its threshold then gets the
// precision of the rounds of both looks instead of a coin toss at six:
// simulated with known truths (looks_test.go), two runs agree on such a
// check far more often, at the same error rate.
//
// A sequential run (opt.Anytime) samples until its checks are decided, and
// only a check whose interval is a confidence sequence (CheckResult.Sequence:
// a ratio or contrast paired by round) may decide when that is: such an
// interval is valid at every round at once, so it is judged once, on all
// rounds at α, whatever round sampling stopped at. Every other check (a
// value, a correlation, a knee, a crossover, a ratio's fallbacks) has a
// fixed-n interval, which looked at after every round would be wrong far
// more often than α; it neither keeps sampling going nor ends it, and is
// judged at the same two looks: the first on the initial pass
// (opt.FirstLook, its rounds run before anything is judged, so that look
// is a test at FirstLookShare·α exactly), the second on all rounds. The
// second look reads the rounds the confidence sequences asked for: its
// cells ran more rounds only while a check reading them was open, so how
// many depends on the data of those checks. Its level is exact when they
// read other cells, and otherwise held by simulation (looks_test.go: a
// value check at its threshold on the cell a deciding ratio also reads,
// with one-sided bursts).

// FirstLookShare is the share of α spent at the first look.
const FirstLookShare = 1.0 / 3

// LookRule states how a run's checks were judged at looks, for a report,
// from the options it was analysed with; empty for a run judged once.
func LookRule(opt analysis.Options) string {
	n := opt.FirstLook
	if n <= 0 {
		return ""
	}
	a1, a2 := FirstLookShare*opt.Alpha, (1-FirstLookShare)*opt.Alpha
	if opt.Anytime {
		return fmt.Sprintf("Sequential run: after an initial pass of %d rounds of every cell, the run sampled the cells of the checks and compared ratios still undecided on a confidence sequence, and stopped when none was. Ratio and contrast checks paired by round are judged on confidence sequences, valid at every round at once: once, on all rounds, at one-sided α=%.3g, whatever round sampling stopped at; only they decided when it stopped. Every other counted check (values, correlations, knees, crossovers, ratios on a fallback interval) has a fixed-n interval: it neither kept sampling going nor ended it, and was judged at two looks, on the initial pass (rounds 1–%d) at one-sided α=%.3g and, when that left it undecided, on all its rounds at α=%.3g (Bonferroni across the looks: α=%.3g in all). A check decided at the first look keeps that verdict.",
			n, opt.Alpha, n, a1, a2, opt.Alpha)
	}
	return fmt.Sprintf("Two looks: every counted check was judged after the planned %d rounds at one-sided α=%.3g; the cells of those still undecided ran follow-up rounds, and each of those checks was judged again on all its rounds at α=%.3g (Bonferroni across the looks: α=%.3g in all, whatever the number of follow-up rounds). A check decided at the first look keeps that verdict. Every other finding of this run reads rounds 1–%d only.",
		n, a1, a2, opt.Alpha, n)
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

// judgeCheck is one check's test at opt's level under the rule of the
// run's sampling: one look on all samples when opt has no first look; a
// confidence sequence on all samples for a check of a sequential run that
// has one; otherwise two looks, on the samples of rounds 1..opt.FirstLook
// and, when that leaves the check undecided, on all samples.
func judgeCheck(ch spec.Check, samples []*analysis.Sample, opt analysis.Options, profiles []CellProfile) CheckResult {
	if opt.FirstLook <= 0 {
		return checkOne(ch, samples, opt, profiles)
	}
	if opt.Anytime {
		once := opt
		once.FirstLook = 0
		if cr := checkOne(ch, samples, once, profiles); cr.Sequence {
			cr.LookAlpha, cr.FirstLook = opt.Alpha, opt.FirstLook
			return cr
		}
	}
	first, second := LookOptions(opt)
	cr := checkOne(ch, analysis.UpToRound(samples, opt.FirstLook), first, profiles)
	cr.FirstLook = opt.FirstLook
	if cr.Verdict == Reproduced || cr.Verdict == Contradicted {
		cr.Look, cr.LookAlpha = 1, first.Alpha
		return cr
	}
	cr = checkOne(ch, samples, second, profiles)
	cr.Look, cr.FirstLook = 2, opt.FirstLook
	if cr.Verdict != NotTestable {
		cr.LookAlpha = second.Alpha
	}
	return cr
}
