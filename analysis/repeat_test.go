package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRepeatEstimateUnderSpells simulates rounds of a pair of processes
// whose true costs differ by 2%, under a neighbour that takes the CPU in
// spells: each of a process's 5 repetitions is independently spoiled with
// probability p, taking 20–100% longer, and each process has its own 1%
// offset (code placement). It compares the paired interval of the
// per-process median of the repetitions (RepeatEstimate) with that of their
// mean (what one long timed run of the same iterations measures). The
// median's interval must cover the true ratio at the stated rate and be
// narrower.
func TestRepeatEstimateUnderSpells(t *testing.T) {
	const (
		runs, rounds, reps = 400, 40, 5
		truth              = 1.02
	)
	for _, p := range []float64{0.1, 0.3} {
		r := rand.New(rand.NewPCG(7, uint64(p*100)))
		process := func(cost float64) (median, mean float64) {
			xs := make([]float64, reps)
			sum := 0.0
			layout := 1 + 0.01*r.NormFloat64()
			for i := range xs {
				x := cost * layout * (1 + 0.003*r.NormFloat64())
				if r.Float64() < p {
					x *= 1.2 + 0.8*r.Float64()
				}
				xs[i] = x
				sum += x
			}
			return RepeatEstimate(xs), sum / reps
		}
		var covMed, covMean int
		var hwMed, hwMean float64
		for range runs {
			dMed := make([]float64, rounds)
			dMean := make([]float64, rounds)
			for i := range dMed {
				aMed, aMean := process(1)
				bMed, bMean := process(truth)
				dMed[i], dMean[i] = math.Log(bMed/aMed), math.Log(bMean/aMean)
			}
			m, n := PairedLogs(dMed, 0.95), PairedLogs(dMean, 0.95)
			if m.Lo <= truth && truth <= m.Hi {
				covMed++
			}
			if n.Lo <= truth && truth <= n.Hi {
				covMean++
			}
			hwMed += m.HalfWidth() / runs
			hwMean += n.HalfWidth() / runs
		}
		t.Logf("spoiled share %.0f%%: median of %d repetitions covers %.1f%%, mean half-width ±%.2f%%; mean of repetitions covers %.1f%%, ±%.2f%%",
			100*p, reps, 100*float64(covMed)/runs, 100*hwMed, 100*float64(covMean)/runs, 100*hwMean)
		if float64(covMed)/runs < 0.93 {
			t.Errorf("spoiled share %.0f%%: the median's interval covers the truth in %d of %d runs, want ≥ 93%%", 100*p, covMed, runs)
		}
		if hwMed >= hwMean {
			t.Errorf("spoiled share %.0f%%: the median's mean half-width %.4f is not narrower than the mean's %.4f", 100*p, hwMed, hwMean)
		}
	}
}
