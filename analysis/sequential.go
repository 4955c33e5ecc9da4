package analysis

import "math"

// Anytime-valid intervals for per-round log-ratios.
//
// A run that decides after every round whether to go on looks at its data
// many times. A fixed-n interval examined that way covers the truth less
// often than it claims: with enough looks an A/A comparison is eventually
// "significant". A confidence sequence is a sequence of intervals C_1, C_2,
// … that holds the true value at every round simultaneously with
// probability ≥ 1−α, so it stays valid at whatever round the run stops.
//
// perflab uses the asymptotic confidence sequence of Waudby-Smith, Arbour,
// Sinha, Kennedy and Ramdas, "Time-uniform central limit theory and
// asymptotic confidence sequences" (Annals of Statistics 2024,
// arXiv:2103.06476), Theorem 2.2 (the Robbins normal-mixture boundary with
// the empirical variance in place of a known one):
//
//	μ̂_t ± σ̂_t · sqrt( 2(tρ²+1)/(t²ρ²) · log( sqrt(tρ²+1)/α ) )
//
// where μ̂_t is the mean of the first t log-ratios, σ̂_t their standard
// deviation and ρ > 0 tunes the round t* at which the sequence is
// narrowest: ρ² = (−2 log α + log(−2 log α + 1))/t* (the paper's
// Appendix B.2). Like a CLT interval it assumes only a finite variance and
// rounds that are independent with a common mean; unlike one it is valid
// at a data-dependent stopping round. Its approximation is asymptotic, so
// perflab gives no interval before [AnytimeMinRounds] rounds and inflates
// σ̂ by the small-sample factor below; the simulations in
// sequential_test.go check the error rate under Gaussian and heavy-tailed
// noise at the rounds a run actually stops.

// AnytimeMinRounds is the fewest rounds for which an anytime-valid interval
// is given: below it the empirical variance is too unreliable.
const AnytimeMinRounds = 8

// DefaultAnytimeTarget is the round the confidence sequence is tuned to be
// narrowest at when [Options.AnytimeTarget] is 0.
const DefaultAnytimeTarget = 30

// AnytimeLogs summarises per-round log-ratios d with the asymptotic
// confidence sequence at the given confidence, tuned for round target (0 →
// [DefaultAnytimeTarget]). The estimate is exp of the mean log-ratio; P is
// the anytime-valid p-value of "the ratio is 1" (the smallest α at which
// the sequence, with the same tuning, excludes 1), valid at any stopping
// round like the interval.
func AnytimeLogs(d []float64, confidence float64, target int) Ratio {
	r := Ratio{N: len(d), Ratio: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), P: 1}
	if len(d) == 0 {
		return r
	}
	mean, sd := meanSD(d)
	r.Ratio = math.Exp(mean)
	if len(d) < AnytimeMinRounds || !(confidence > 0 && confidence < 1) {
		return r
	}
	alpha := 1 - confidence
	rho2 := anytimeRho2(alpha, target)
	t := float64(len(d))
	sd *= smallSampleInflation(len(d), rho2, alpha)
	if sd == 0 {
		// Every round gave the same log-ratio: no spread to bound.
		r.Lo, r.Hi, r.Conf, r.P = r.Ratio, r.Ratio, confidence, 0
		if mean == 0 {
			r.P = 1
		}
		return r
	}
	w := sd * anytimeRadius(t, rho2, alpha)
	r.Lo, r.Hi, r.Conf = math.Exp(mean-w), math.Exp(mean+w), confidence
	// P: solve sd·radius(t, ρ, p) = |mean| for p, with ρ fixed.
	a := t*rho2 + 1
	z := mean * mean * t * t * rho2 / (2 * sd * sd * a)
	r.P = math.Min(1, math.Sqrt(a)*math.Exp(-z))
	return r
}

// anytimeRadius is the boundary of the normal-mixture confidence sequence
// for unit variance at round t.
func anytimeRadius(t, rho2, alpha float64) float64 {
	a := t*rho2 + 1
	return math.Sqrt(2 * a / (t * t * rho2) * math.Log(math.Sqrt(a)/alpha))
}

// anytimeRho2 is ρ² tuned to make the boundary tightest at round target.
func anytimeRho2(alpha float64, target int) float64 {
	if target <= 0 {
		target = DefaultAnytimeTarget
	}
	l := -2 * math.Log(alpha)
	return (l + math.Log(l+1)) / float64(target)
}

// smallSampleInflation widens σ̂ at few rounds, where the empirical
// standard deviation underestimates σ more often than not. The boundary
// at round n is z·σ/√n for an effective normal quantile z =
// √n·radius(n); with σ estimated from n−1 degrees of freedom the same
// tail needs Student's t quantile instead, so σ̂ is scaled by t(z, n−1)/z
// (e.g. ≈1.5 at 8 rounds, ≈1.1 at 30, → 1): the plug-in correction a
// fixed-n t interval makes, applied at the sequence's own level.
func smallSampleInflation(n int, rho2, alpha float64) float64 {
	if n < 2 {
		return math.Inf(1)
	}
	z := math.Sqrt(float64(n)) * anytimeRadius(float64(n), rho2, alpha)
	return studentQuantile(z, n-1) / z
}

// studentQuantile maps a standard normal quantile z to the Student t
// quantile of the same tail probability with df degrees of freedom
// (Cornish–Fisher expansion; within 1% for df ≥ 5 and z ≤ 3.5).
func studentQuantile(z float64, df int) float64 {
	v := float64(df)
	z3, z5, z7 := z*z*z, math.Pow(z, 5), math.Pow(z, 7)
	return z + (z3+z)/(4*v) + (5*z5+16*z3+3*z)/(96*v*v) + (3*z7+19*z5+17*z3-15*z)/(384*v*v*v)
}

// meanSD is the mean and the (n−1) standard deviation of d.
func meanSD(d []float64) (mean, sd float64) {
	for _, x := range d {
		mean += x
	}
	mean /= float64(len(d))
	if len(d) < 2 {
		return mean, math.NaN()
	}
	var ss float64
	for _, x := range d {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(d)-1))
}

// RoundsToHalfWidth estimates how many rounds in all the confidence
// sequence needs for its half-width (on the log scale) to reach h, given
// the current log-ratios d: the current spread held fixed, the smallest t
// with σ̂·radius(t) ≤ h, searched up to limit (returned when not reached).
func RoundsToHalfWidth(d []float64, h float64, confidence float64, target, limit int) int {
	if len(d) < 2 || !(h > 0) {
		return limit
	}
	_, sd := meanSD(d)
	if sd == 0 {
		return max(len(d), AnytimeMinRounds)
	}
	alpha := 1 - confidence
	rho2 := anytimeRho2(alpha, target)
	for t := max(len(d), AnytimeMinRounds); t <= limit; t++ {
		if sd*smallSampleInflation(t, rho2, alpha)*anytimeRadius(float64(t), rho2, alpha) <= h {
			return t
		}
	}
	return limit
}
