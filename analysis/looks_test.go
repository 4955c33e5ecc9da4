package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/noisetest"
)

// TestLookSchedule is the A/A calibration of where a sequential run looks,
// on the engine's own schedule: an initial pass of 8 clusters of per
// rounds (a layout each), then a look after every further cluster up to
// 200 rounds, deciding when the median's confidence sequence over cluster
// medians excludes no change. Each cluster carries a planted offset of SD
// 5% (a layout pair), each round noise with one-sided bursts. Looking only
// where a cluster ends (what the engine does) keeps A/A false decisions
// ≤ α; looking after every round, a partial cluster judged as one
// observation and later revised, is measured beside it. `go test
// -run TestLookSchedule -v -calibrate` runs 2000 sequences per row.
func TestLookSchedule(t *testing.T) {
	runs := 400
	if *calibrate {
		runs = 2000
	}
	const alpha, maxRounds, initial = 0.05, 200, 8
	noise := noisetest.Bursts(0.1, 0.04)
	rng := rand.New(rand.NewPCG(21, 22))
	var b strings.Builder
	fmt.Fprintf(&b, "%-10s %12s %12s\n", "per", "cluster ends", "every round")
	for _, per := range []int{2, 4, 6} {
		opt := Options{Confidence: 1 - alpha, Anytime: true, PerLayout: per}
		var ends, every int
		for range runs {
			num, den := map[int]float64{}, map[int]float64{}
			off := 0.0
			hitEnds, hitEvery := false, false
			for r := 1; r <= maxRounds && !(hitEnds && hitEvery); r++ {
				if (r-1)%per == 0 {
					off = 0.05 * rng.NormFloat64()
				}
				x, y := noise.Round(rng, 1)
				num[r], den[r] = x*math.Exp(off), y
				if r < initial*per {
					continue
				}
				excl := opt.Paired(num, den).Excludes(1)
				if r%per == 0 && excl {
					hitEnds = true
				}
				if excl {
					hitEvery = true
				}
			}
			if hitEnds {
				ends++
			}
			if hitEvery {
				every++
			}
		}
		re, rv := float64(ends)/float64(runs), float64(every)/float64(runs)
		fmt.Fprintf(&b, "%-10d %12.4f %12.4f\n", per, re, rv)
		if se := 3 * math.Sqrt(alpha*(1-alpha)/float64(runs)); re > alpha+se {
			t.Errorf("%d rounds a layout: A/A false decisions %.4f looking at cluster ends, want ≤ α = %.2f", per, re, alpha)
		}
	}
	t.Logf("A/A false decisions over %d sequences of up to %d rounds (clusters with a 5%% offset, bursts):\n%s", runs, maxRounds, b.String())
}
