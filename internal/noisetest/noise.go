// Package noisetest is test support for paired statistics: rounds of two
// cells whose true ratio is known, drawn from simulated kinds of benchmark
// noise (Gaussian, heavy tails, skew, one-sided bursts, drift) or
// resampled from rounds recorded on a real, loaded machine (the noise
// corpus in analysis/testdata/noise).
//
// The truth of every kind of noise is the median of the per-round
// log-ratio log(num/den), the estimand of perflab's paired comparisons.
// Where the noise is the same in both cells (every kind here but Skewed
// and OneCell) the log-ratio is symmetric about the true ratio, so its mean
// and pseudo-median are the same number; Skewed and OneCell say how their
// other centres differ.
package noisetest

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// A Noise draws rounds of a pair of cells.
type Noise struct {
	Name string
	// Round returns one round's values of the numerator and the denominator
	// cell, whose true ratio is truth: the median of log(num/den) over
	// rounds is log(truth), except for OneCell (see there).
	Round func(rng *rand.Rand, truth float64) (num, den float64)
}

// LogRatio draws one round and returns log(num/den).
func (n Noise) LogRatio(rng *rand.Rand, truth float64) float64 {
	num, den := n.Round(rng, truth)
	return math.Log(num) - math.Log(den)
}

// base is a round's machine speed, shared by both cells of the round (so
// pairing removes it): a 100 ns/op cost with ±5% drift between rounds.
func base(rng *rand.Rand) float64 { return 100 * math.Exp(0.05*rng.NormFloat64()) }

// Gaussian is log-normal noise in each cell, sd/√2 each, so that the
// per-round log-ratio has standard deviation sd.
func Gaussian(sd float64) Noise {
	return Noise{Name: "gaussian", Round: func(rng *rand.Rand, truth float64) (float64, float64) {
		b, s := base(rng), sd/math.Sqrt2
		return b * truth * math.Exp(s*rng.NormFloat64()), b * math.Exp(s*rng.NormFloat64())
	}}
}

// StudentT3 is Student-t noise with 3 degrees of freedom on each cell's log
// value (heavy tails: the variance is finite, the fourth moment is not),
// scaled so that the per-round log-ratio has standard deviation sd.
func StudentT3(sd float64) Noise {
	return Noise{Name: "student-t3", Round: func(rng *rand.Rand, truth float64) (float64, float64) {
		b, s := base(rng), sd/math.Sqrt2/math.Sqrt(3)
		return b * truth * math.Exp(s*t3(rng)), b * math.Exp(s*t3(rng))
	}}
}

// t3 draws a Student t variate with 3 degrees of freedom (variance 3).
func t3(rng *rand.Rand) float64 {
	c := 0.0
	for range 3 {
		g := rng.NormFloat64()
		c += g * g
	}
	return rng.NormFloat64() / math.Sqrt(c/3)
}

// Skewed makes the per-round log-ratio itself skewed: log(truth) +
// sd·(E − ln 2) with E standard exponential, as when the two cells suffer
// differently from the machine (one cell's spells are longer). Its median
// is log(truth); its mean is higher by sd·(1 − ln 2) ≈ 0.31·sd, and its
// pseudo-median (the centre Hodges–Lehmann estimates: half the median of
// a Gamma(2, 1) variate, 0.839, less ln 2) by ≈ 0.15·sd.
func Skewed(sd float64) Noise {
	return Noise{Name: "skewed", Round: func(rng *rand.Rand, truth float64) (float64, float64) {
		b := base(rng)
		return b * truth * math.Exp(sd*(rng.ExpFloat64()-math.Ln2)), b
	}}
}

// Bursts is one-sided interference: each cell of a round is, independently
// with probability share, hit by a spell that adds 20–100% (uniform) to
// its time; otherwise it carries log-normal noise only (sd/√2 per cell,
// sd per log-ratio). Interference only ever slows a sample, so each
// cell's noise is skewed, and a log-ratio has a heavy tail on whichever
// side a spell hit.
func Bursts(share, sd float64) Noise {
	return Noise{Name: fmt.Sprintf("bursts %g%%", 100*share), Round: func(rng *rand.Rand, truth float64) (float64, float64) {
		b, s := base(rng), sd/math.Sqrt2
		cell := func() float64 {
			x := math.Exp(s * rng.NormFloat64())
			if rng.Float64() < share {
				x *= 1.2 + 0.8*rng.Float64()
			}
			return x
		}
		return b * truth * cell(), b * cell()
	}}
}

// OneCell is interference that hits only the numerator cell: with
// probability share a round's numerator is 20–100% slower, over
// log-normal noise of sd per log-ratio (as when only one variant is
// sensitive to a neighbour). Here the true ratio — the cells' cost ratio
// on a quiet machine — is not the log-ratio's median, which the spoiled
// share pushes up by sd·Φ⁻¹(1/(2(1−share))) (0.066·sd at 5%), while the
// mean moves by share·E[log(1+U(0.2, 1))] (2.4% at 5%): the case that
// separates a robust estimand from the mean.
func OneCell(share, sd float64) Noise {
	return Noise{Name: fmt.Sprintf("one cell %g%%", 100*share), Round: func(rng *rand.Rand, truth float64) (float64, float64) {
		b, s := base(rng), sd/math.Sqrt2
		num := b * truth * math.Exp(s*rng.NormFloat64())
		if rng.Float64() < share {
			num *= 1.2 + 0.8*rng.Float64()
		}
		return num, b * math.Exp(s*rng.NormFloat64())
	}}
}

// OneCellMedianShift is how far OneCell(share, sd) moves the median of the
// log-ratio above log(truth): sd·Φ⁻¹(1/(2(1−share))), exact while the
// spells lie above the median (they add at least log 1.2 ≈ 0.18).
func OneCellMedianShift(share, sd float64) float64 {
	return sd * math.Sqrt2 * math.Erfinv(2/(2*(1-share))-1)
}

// Drift is a machine whose speed wanders: an autoregressive walk across
// rounds (2% steps, 0.95 of the last position kept) and, inside a round, a trend of ±trend per cell position (a
// round's two cells run one after the other, in a shuffled order), over
// log-normal noise of sd per log-ratio. Pairing removes the walk; the
// trend adds ±trend to a log-ratio, equally often of either sign. A Drift
// keeps the walk's position: use one per goroutine.
func Drift(trend, sd float64) Noise {
	walk := 0.0
	return Noise{Name: "drift", Round: func(rng *rand.Rand, truth float64) (float64, float64) {
		walk = 0.95*walk + 0.02*rng.NormFloat64()
		b, s := 100*math.Exp(walk), sd/math.Sqrt2
		slope := trend
		if rng.IntN(2) == 0 {
			slope = -trend // the numerator ran second
		}
		return b * truth * math.Exp(slope+s*rng.NormFloat64()), b * math.Exp(s*rng.NormFloat64())
	}}
}
