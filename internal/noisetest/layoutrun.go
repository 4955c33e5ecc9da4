package noisetest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// LayoutRun describes a paired run of configs old and new relinked with
// random link layouts, as go test -bench output with the labels the
// engine writes (config, round, layout).
type LayoutRun struct {
	Clusters, PerLayout int
	Benchmarks          []string // default: BenchmarkA
	Noise               Noise    // each round's noise; default Gaussian(0.05)
	// Layout is the standard deviation (log scale) of one side's layout
	// effect: each side draws its own for every cluster and benchmark.
	Layout float64
	// Change is the true log-ratio new/old of a benchmark in a cluster
	// (c counts from 0): the source change as that pair of layouts
	// shows it. Nil means none.
	Change func(rng *rand.Rand, bench string, c int) float64
	// NewFixedFrom, when > 0, is the round from which new ran one fixed
	// layout (its default binary: the same layout effect every round,
	// and no layout label).
	NewFixedFrom int
}

// Text draws the run's rounds and writes them; rounds count from 1 and
// both configs run every benchmark each round.
func (l LayoutRun) Text(rng *rand.Rand) string {
	benches := l.Benchmarks
	if len(benches) == 0 {
		benches = []string{"BenchmarkA"}
	}
	noise := l.Noise
	if noise.Round == nil {
		noise = Gaussian(0.05)
	}
	fixed := map[string]float64{}
	for _, b := range benches {
		fixed[b] = l.Layout * rng.NormFloat64()
	}
	var sb strings.Builder
	for c := range l.Clusters {
		oldLay, newLay, change := map[string]float64{}, map[string]float64{}, map[string]float64{}
		for _, b := range benches {
			oldLay[b], newLay[b] = l.Layout*rng.NormFloat64(), l.Layout*rng.NormFloat64()
			if l.Change != nil {
				change[b] = l.Change(rng, b, c)
			}
		}
		for j := range l.PerLayout {
			round := c*l.PerLayout + j + 1
			vals := map[string][2]float64{}
			for _, b := range benches {
				num, den := noise.Round(rng, 1)
				vals[b] = [2]float64{den * math.Exp(oldLay[b]), num * math.Exp(newLay[b]+change[b])}
				if l.NewFixedFrom > 0 && round >= l.NewFixedFrom {
					vals[b] = [2]float64{den * math.Exp(oldLay[b]), num * math.Exp(fixed[b]+change[b])}
				}
			}
			for side, cfg := range []string{"old", "new"} {
				fmt.Fprintf(&sb, "config: %s\nround: %d\n", cfg, round)
				if cfg == "old" || l.NewFixedFrom <= 0 || round < l.NewFixedFrom {
					fmt.Fprintf(&sb, "layout: %d\n", 1000*(c+1)+side)
				} else {
					sb.WriteString("layout: \n")
				}
				for _, b := range benches {
					fmt.Fprintf(&sb, "%s 1000 %.6g ns/op\n", b, 1000*vals[b][side])
				}
			}
		}
	}
	return sb.String()
}
