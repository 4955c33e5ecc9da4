package analysis

import (
	"math"
	"sort"
	"sync"
)

// Anytime-valid intervals for the median of per-round log-ratios.
//
// A run that decides after every round whether to go on looks at its data
// many times. A fixed-n interval examined that way covers the truth less
// often than it claims: with enough looks an A/A comparison is eventually
// "significant". A confidence sequence is a sequence of intervals C_1, C_2,
// … that holds the true value at every round simultaneously with
// probability ≥ 1−α, so it stays valid at whatever round the run stops.
//
// perflab's sequence is for the median m of the per-round log-ratios, the
// estimand of every paired comparison ([Ratio]), after Howard and Ramdas,
// "Sequential estimation of quantiles with applications to A/B-testing and
// best-arm identification" (Bernoulli 2022, arXiv:1906.09712). Whatever
// the shape of the noise, the indicators 1{d_i ≤ m} are independent
// Bernoulli(q) with q ≥ ½ (q = ½ without ties at m), so their count A_t
// after t rounds is at least a Binomial(t, ½) walk. The mixture of
// likelihood ratios
//
//	M_t(a) = ∫ (2q)^a (2(1−q))^(t−a) π(q) dq,   π = Beta(r, r) on [0, ½], renormalised,
//	       = 2^(t+1) · B(a+r, t−a+r) · I_½(a+r, t−a+r) / B(r, r)
//
// (the beta-binomial mixture of Howard, Ramdas, McAuliffe and Sekhon,
// "Time-uniform, nonparametric, nonasymptotic confidence sequences",
// Annals of Statistics 2021, arXiv:1810.08240, Proposition 7, restricted
// to alternatives q < ½) is a nonnegative supermartingale in A_t with
// M_0 = 1 whenever q ≥ ½, so by Ville's inequality the count ever reaches
// {a : M_t(a) ≥ 2/α} with probability at most α/2. With a_t the largest
// such count at round t, the a_t+1-th smallest log-ratio is below m at
// every round at once with probability ≥ 1 − α/2, and by symmetry the
// a_t+1-th largest above it: C_t = [d_(a_t+1), d_(t−a_t)]. Nothing is
// asymptotic and nothing is assumed of the distribution but independent
// rounds; ties at the median only make the sequence conservative.
//
// r tunes the round at which the sequence is narrowest: perflab takes the
// r that makes it narrowest at [Options.AnytimeTarget] among those that
// give an interval at [AnytimeMinRounds] (when one does). The sequence
// pays for being valid at every round: at 95% and 30 rounds it spans the
// 7th smallest to the 7th largest of the log-ratios, where the fixed-n
// sign test spans the 10th to the 10th; at 200 rounds the 78th against
// the 86th. sequential_test.go computes the exact probability that the
// boundary is ever crossed (0.020 within 3000 rounds for each side at
// 95%, against the 0.025 allowed), and calibration_test.go replays real
// rounds recorded on a loaded machine.

// AnytimeMinRounds is the fewest rounds for which an anytime-valid interval
// is given. At 95% it is the first round at which the tuned sequence can
// have one (the smallest and largest of 8 log-ratios).
const AnytimeMinRounds = 8

// DefaultAnytimeTarget is the round the confidence sequence is tuned to be
// narrowest at when [Options.AnytimeTarget] is 0.
const DefaultAnytimeTarget = 30

// AnytimeLogs summarises per-round log-ratios d, in round order, with the
// median's confidence sequence at the given confidence, tuned for round
// target (0 → [DefaultAnytimeTarget]). The estimate is exp of the median
// log-ratio, as for a fixed number of rounds. The interval is the
// sequence's C_t, none before [AnytimeMinRounds] rounds; Conf is the
// confidence asked for, which the sequence guarantees at every round at
// once. P is the anytime-valid p-value of "the median ratio is 1",
// 2/M_t(min(#{d ≤ 0}, #{d ≥ 0})) capped at 1, with the same tuning:
// valid at any stopping round, and ≤ 1 − confidence exactly when the
// interval excludes 1. NaN log-ratios are ignored.
func AnytimeLogs(d []float64, confidence float64, target int) Ratio {
	s := sortedFinite(d)
	r := Ratio{N: len(s), Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: 1}
	if len(s) == 0 {
		return r
	}
	r.Ratio = math.Exp(median(s))
	if len(s) < AnytimeMinRounds || !(confidence > 0 && confidence < 1) {
		return r
	}
	b := boundaryFor(confidence, target)
	if j := b.count(len(s)); j >= 0 {
		r.Lo, r.Hi, r.Conf = math.Exp(s[j]), math.Exp(s[len(s)-1-j]), confidence
	}
	r.P = math.Min(1, 2*math.Exp(-b.logMixture(float64(len(s)), float64(signCount(s)))))
	r.E = anytimeE(b, s)
	return r
}

// anytimeE is the e-value for a zero median of sorted log-ratios s: the
// mean of the two one-sided mixtures, one in the count of log-ratios ≤ 0
// (large when the median is above 0), one in the count ≥ 0. Each is a
// nonnegative supermartingale with mean ≤ 1 under a zero median, so is
// their mean, and stopped at any round it is an e-value (for e-BH across
// rows, EBH). 1/E ≤ P.
func anytimeE(b *medianBoundary, s []float64) float64 {
	atMost := sort.Search(len(s), func(i int) bool { return s[i] > 0 })
	atLeast := len(s) - sort.Search(len(s), func(i int) bool { return s[i] >= 0 })
	t := float64(len(s))
	return logSumHalf(b.logMixture(t, float64(atMost)), b.logMixture(t, float64(atLeast)))
}

// logSumHalf is (e^a + e^b)/2, computed without overflow to +Inf before
// it must.
func logSumHalf(a, b float64) float64 {
	hi, lo := math.Max(a, b), math.Min(a, b)
	return math.Exp(hi + math.Log1p(math.Exp(lo-hi)) - math.Ln2)
}

// RoundsToHalfWidth estimates how many rounds in all the median's
// confidence sequence needs for its half-width (on the log scale) to reach
// h, given the current log-ratios d, searched up to limit (returned when
// not reached). The sequence at round t spans the log-ratios' quantiles
// ½ ± u_t, u_t = ½ − (a_t + ½)/t, which shrinks like √(log t / t); the
// estimate reads those quantiles off the current log-ratios (linearly
// interpolated), so rounds that spells spoiled keep an early interval wide
// as they will. Within ½ ± 0.15 the quantile function is taken as a line
// through the current quantiles ½ ± 0.15, since a few rounds cannot say
// more about its slope at the median. The estimate is the current number
// of rounds when the current interval is already within h, else the
// smallest later round (≥ [AnytimeMinRounds]) whose projected half-width is.
func RoundsToHalfWidth(d []float64, h float64, confidence float64, target, limit int) int {
	s := sortedFinite(d)
	if len(s) < 2 || !(h > 0) || !(confidence > 0 && confidence < 1) {
		return limit
	}
	b := boundaryFor(confidence, target)
	n := len(s)
	if n >= AnytimeMinRounds {
		if j := b.count(n); j >= 0 && (s[n-1-j]-s[j])/2 <= h {
			return n
		}
	}
	const w = 0.15
	slope := (quantile(s, 0.5+w) - quantile(s, 0.5-w)) / (2 * w)
	halfWidth := func(t int) float64 {
		u := b.radius(float64(t))
		if u > w {
			return (quantile(s, 0.5+u) - quantile(s, 0.5-u)) / 2
		}
		return u * slope
	}
	first := max(n+1, AnytimeMinRounds)
	fits := func(t int) bool { return halfWidth(t) <= h }
	if first >= limit || fits(first) {
		return min(first, limit)
	}
	if !fits(limit) {
		return limit
	}
	lo, hi := first, limit // fits(lo) is false, fits(hi) true
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// medianBoundary is the crossing boundary of the median's confidence
// sequence at one confidence level and tuning.
type medianBoundary struct {
	r        float64 // the mixture's Beta(r, r)
	logLevel float64 // log(2/α): each side is crossed with probability ≤ α/2

	mu     sync.Mutex
	counts []int // counts[t] = a_t, −1 when no count reaches the level; filled on demand
}

type boundaryKey struct {
	confidence float64
	target     int
}

var boundaries sync.Map // boundaryKey → *medianBoundary

// boundaryFor returns the boundary at the confidence, tuned for round
// target (0 → DefaultAnytimeTarget).
func boundaryFor(confidence float64, target int) *medianBoundary {
	if target <= 0 {
		target = DefaultAnytimeTarget
	}
	key := boundaryKey{confidence, target}
	if b, ok := boundaries.Load(key); ok {
		return b.(*medianBoundary)
	}
	b, _ := boundaries.LoadOrStore(key, newBoundary(confidence, target))
	return b.(*medianBoundary)
}

// newBoundary tunes r on a grid (log r from −3 to 5 in steps of 0.05): the
// r with the largest count a_target, among those that give an interval at
// AnytimeMinRounds when any does.
func newBoundary(confidence float64, target int) *medianBoundary {
	logLevel := math.Log(2 / (1 - confidence))
	best, bestR, bestAny, bestAnyR := math.Inf(-1), 0.0, math.Inf(-1), 0.0
	for i := 0; i <= 160; i++ {
		r := math.Exp(-3 + 0.05*float64(i))
		b := &medianBoundary{r: r, logLevel: logLevel}
		a := b.realCount(float64(target))
		if a > bestAny {
			bestAny, bestAnyR = a, r
		}
		if a > best && b.realCount(AnytimeMinRounds) >= 0 {
			best, bestR = a, r
		}
	}
	if math.IsInf(best, -1) {
		bestR = bestAnyR
	}
	return &medianBoundary{r: bestR, logLevel: logLevel}
}

// count is a_t: the largest count a of log-ratios ≤ a candidate median
// (or ≥ it) that the boundary rejects at round t, −1 when none.
func (b *medianBoundary) count(t int) int {
	return b.countsTo(t)[t]
}

// countsTo returns a_0 … a_t (at least), computing those not yet known;
// the caller must not modify them.
func (b *medianBoundary) countsTo(t int) []int {
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.counts) <= t {
		b.counts = append(b.counts, b.searchCount(len(b.counts)))
	}
	return b.counts
}

// searchCount finds a_t by bisection: M_t(a) decreases in a.
func (b *medianBoundary) searchCount(t int) int {
	if t == 0 || b.logMixture(float64(t), 0) < b.logLevel {
		return -1
	}
	lo, hi := 0, t/2+1 // M_t(lo) reaches the level; M_t(hi) does not, or hi is past the median
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if b.logMixture(float64(t), float64(mid)) >= b.logLevel {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// realCount is a_t for a continuous count: the a ≥ 0 with
// M_t(a) = 2/α, or −1 when even M_t(0) is below it.
func (b *medianBoundary) realCount(t float64) float64 {
	if b.logMixture(t, 0) < b.logLevel {
		return -1
	}
	lo, hi := 0.0, t/2
	if b.logMixture(t, hi) >= b.logLevel {
		return hi
	}
	for range 60 {
		mid := (lo + hi) / 2
		if b.logMixture(t, mid) >= b.logLevel {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// radius is u_t = ½ − (a_t + ½)/t for the continuous count: the sequence
// at round t spans the order statistics a_t+1 and t−a_t, which sit at the
// quantiles ½ ± u_t of the log-ratios (½ when there is no interval yet).
func (b *medianBoundary) radius(t float64) float64 {
	a := b.realCount(t)
	if a < 0 {
		return 0.5
	}
	return 0.5 - (a+0.5)/t
}

// logMixture is log M_t(a), the log of the beta-binomial mixture of
// likelihood ratios against q = ½ over q ~ Beta(r, r) on [0, ½].
func (b *medianBoundary) logMixture(t, a float64) float64 {
	x, y := a+b.r, t-a+b.r
	return (t+1)*math.Ln2 + logBeta(x, y) + logIncBetaHalf(x, y) - logBeta(b.r, b.r)
}

// logBeta is log B(x, y).
func logBeta(x, y float64) float64 {
	lx, _ := math.Lgamma(x)
	ly, _ := math.Lgamma(y)
	lxy, _ := math.Lgamma(x + y)
	return lx + ly - lxy
}

// logIncBetaHalf is log I_½(x, y), the regularized incomplete beta
// function at ½, by its continued fraction (Lentz's method) on the side
// where it converges fast.
func logIncBetaHalf(x, y float64) float64 {
	front := -(x+y)*math.Ln2 - logBeta(x, y) // log(½^x ½^y / B(x, y))
	if 0.5 < (x+1)/(x+y+2) {
		return front + math.Log(betaFraction(x, y)/x)
	}
	return math.Log1p(-math.Exp(front) * betaFraction(y, x) / y)
}

// betaFraction evaluates the continued fraction of I_½(x, y).
func betaFraction(x, y float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	clamp := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	const z = 0.5
	c, d := 1.0, 1/clamp(1-(x+y)*z/(x+1))
	h := d
	for m := 1.0; m <= 100000; m++ {
		num := m * (y - m) * z / ((x + 2*m - 1) * (x + 2*m))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		h *= d * c
		num = -(x + m) * (x + y + m) * z / ((x + 2*m) * (x + 2*m + 1))
		d = 1 / clamp(1+num*d)
		c = clamp(1 + num/c)
		h *= d * c
		if math.Abs(d*c-1) < eps {
			break
		}
	}
	return h
}
