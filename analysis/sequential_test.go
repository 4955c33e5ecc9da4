package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// seqOutcome runs the stopping rule a sequential run uses on one stream of
// per-round log-ratios: from AnytimeMinRounds on, after every round, stop
// when the confidence sequence excludes a ratio of 1 ("different") or its
// half-width is ≤ precision ("same within precision"), or at maxRounds.
func seqOutcome(next func() float64, precision float64, maxRounds int) (r Ratio, rounds int) {
	d := make([]float64, 0, maxRounds)
	opt := Options{Alpha: 0.05, Confidence: 0.95, Anytime: true}
	for len(d) < maxRounds {
		d = append(d, next())
		if len(d) < AnytimeMinRounds {
			continue
		}
		r = opt.PairedLogs(d)
		if r.Excludes(1) || r.HalfWidth() <= precision {
			return r, len(d)
		}
	}
	return r, len(d)
}

// TestAnytimeStoppingRule simulates 1000 sequences per case under the
// stopping rule: A/A sequences must end in a false "different" in at most
// α = 5% of them, and sequences with a true 2% effect must be decided
// "different" in the right direction in at least 90%.
func TestAnytimeStoppingRule(t *testing.T) {
	const seqs, alpha = 1000, 0.05
	gauss := func(rng *rand.Rand, sd float64) func() float64 {
		return func() float64 { return sd * rng.NormFloat64() }
	}
	// Student t with 3 degrees of freedom, scaled to standard deviation sd:
	// heavy tails like preemption spikes.
	t3 := func(rng *rand.Rand, sd float64) func() float64 {
		return func() float64 {
			z := rng.NormFloat64()
			c := 0.0
			for range 3 {
				g := rng.NormFloat64()
				c += g * g
			}
			return sd * z / math.Sqrt(c/3) / math.Sqrt(3)
		}
	}
	// A mixture: most rounds quiet, 10% hit by a burst that slows one side.
	bursts := func(rng *rand.Rand, sd float64) func() float64 {
		return func() float64 {
			x := sd * 0.5 * rng.NormFloat64()
			if rng.Float64() < 0.1 {
				x += sd * 2.5 * rng.NormFloat64()
			}
			return x
		}
	}
	noises := []struct {
		name string
		gen  func(*rand.Rand, float64) func() float64
	}{{"gaussian", gauss}, {"student-t3", t3}, {"bursts", bursts}}
	for _, nz := range noises {
		for _, sd := range []float64{0.005, 0.02} {
			t.Run(fmt.Sprintf("%s/sd=%g", nz.name, sd), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(sd*1e4)))
				falseDecisions := 0
				for range seqs {
					gen := nz.gen(rng, sd)
					r, _ := seqOutcome(gen, 0.01, 300)
					if r.Excludes(1) {
						falseDecisions++
					}
				}
				rate := float64(falseDecisions) / seqs
				t.Logf("A/A σ=%.1f%%: false decisions %.1f%%", 100*sd, 100*rate)
				if rate > alpha {
					t.Errorf("A/A σ=%.1f%%: %d of %d sequences decided a difference (%.1f%% > α = %.0f%%)", 100*sd, falseDecisions, seqs, 100*rate, 100*alpha)
				}
				// The worst case: no precision target, so an A/A sequence
				// is looked at after each of 300 rounds.
				falseDecisions = 0
				for range seqs {
					r, _ := seqOutcome(nz.gen(rng, sd), 0, 300)
					if r.Excludes(1) {
						falseDecisions++
					}
				}
				rate = float64(falseDecisions) / seqs
				t.Logf("A/A σ=%.1f%%, 300 looks: false decisions %.1f%%", 100*sd, 100*rate)
				if rate > alpha {
					t.Errorf("A/A σ=%.1f%%, looking after each of 300 rounds: %d of %d sequences decided a difference (%.1f%% > α = %.0f%%)", 100*sd, falseDecisions, seqs, 100*rate, 100*alpha)
				}

				effect := math.Log(1.02)
				correct, totalRounds := 0, 0
				for range seqs {
					gen := nz.gen(rng, sd)
					r, n := seqOutcome(func() float64 { return effect + gen() }, 0.01, 300)
					totalRounds += n
					if r.Lo > 1 {
						correct++
					}
				}
				share := float64(correct) / seqs
				t.Logf("2%% effect σ=%.1f%%: decided correctly %.1f%%, mean rounds %.1f", 100*sd, 100*share, float64(totalRounds)/seqs)
				if share < 0.9 {
					t.Errorf("2%% effect σ=%.1f%%: only %d of %d sequences decided correctly (%.1f%% < 90%%)", 100*sd, correct, seqs, 100*share)
				}
			})
		}
	}
}

func TestAnytimeLogs(t *testing.T) {
	d := []float64{0.01, 0.02, 0.015, 0.012, 0.018, 0.011, 0.019, 0.016, 0.014, 0.013}
	r := AnytimeLogs(d, 0.95, 0)
	if !r.HasInterval() || !(r.Lo < r.Ratio && r.Ratio < r.Hi) {
		t.Fatalf("AnytimeLogs = %+v, want an interval around the estimate", r)
	}
	if r.Lo <= 1 || r.P >= 0.05 {
		t.Errorf("ten rounds of +1–2%%: interval [%g, %g] p=%g, want it above 1 with p < 0.05", r.Lo, r.Hi, r.P)
	}
	fixed := PairedLogs(d, 0.95)
	if r.HalfWidth() <= fixed.HalfWidth() {
		t.Errorf("anytime half-width %g ≤ fixed-n %g: a confidence sequence must pay for looking at every round", r.HalfWidth(), fixed.HalfWidth())
	}
	if short := AnytimeLogs(d[:AnytimeMinRounds-1], 0.95, 0); short.HasInterval() {
		t.Errorf("%d rounds gave an interval %+v; want none below AnytimeMinRounds", AnytimeMinRounds-1, short)
	}
	opt := Options{Alpha: 0.05, Confidence: 0.95, Anytime: true}
	if got := opt.PairedLogs(d); got != r {
		t.Errorf("Options{Anytime}.PairedLogs = %+v, want AnytimeLogs %+v", got, r)
	}
	num := map[int]float64{}
	den := map[int]float64{}
	for i, x := range d {
		num[i+1], den[i+1] = math.Exp(x), 1
	}
	if got := opt.Geomean([][2]map[int]float64{{num, den}}); math.Abs(got.Ratio-r.Ratio) > 1e-12 || math.Abs(got.Lo-r.Lo) > 1e-12 {
		t.Errorf("Options{Anytime}.Geomean of one pair = %+v, want %+v", got, r)
	}
	if n := RoundsToHalfWidth(d, r.HalfWidth()/2, 0.95, 0, 10000); n <= len(d) || n >= 10000 {
		t.Errorf("RoundsToHalfWidth(half the current width) = %d, want more than %d rounds and a finite estimate", n, len(d))
	}
}

func TestStudentQuantile(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
		z    float64
	}{{5, 2.571, 1.96}, {7, 2.365, 1.96}, {29, 2.045, 1.96}, {1000, 1.962, 1.96}, {7, 4.785, 3.0902}, {20, 3.552, 3.0902}} {
		if got := studentQuantile(c.z, c.df); math.Abs(got-c.want)/c.want > 0.01 {
			t.Errorf("t quantile df=%d = %.4f, want %.3f", c.df, got, c.want)
		}
	}
}
