package claim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/internal/noisetest"
	"github.com/perflab/perflab/spec"
)

// TestRatioFallbacksCountClusters: a ratio check whose cells hold a zero
// (no log-ratio) falls back to per-round ratios, or to the two cells'
// medians; on an A/A pair whose rounds share a planted offset within
// clusters of 2, 4 and 6 rounds (standard deviation 5%, over Gaussian
// or one-sided-burst noise), the fallbacks' intervals exclude 1 in at
// most α of runs once they summarise each cluster first, and far more
// often when they take the rounds as independent (before). `go test
// ./claim -run TestRatioFallbacksCountClusters -v` prints the table.
func TestRatioFallbacksCountClusters(t *testing.T) {
	runs := 1000
	if testing.Short() {
		runs = 300
	}
	const clusters, alpha = 10, 0.05
	ch := spec.Check{Kind: "ratio", Num: "v=a", Den: "v=b", Op: ">", Value: 1}
	se := math.Sqrt(alpha * (1 - alpha) / float64(runs))
	var b strings.Builder
	fmt.Fprintf(&b, "\n| fallback | noise | rounds a cluster | runs | before | after |\n|---|---|--:|--:|--:|--:|\n")
	for _, fb := range []struct {
		name string
		how  How
		zero string // the cell that holds a zero in one round
	}{{"per-round ratios (a zero in num)", PerRoundRatios, "a"}, {"unpaired medians (a zero in den)", UnpairedQuotient, "b"}} {
		for ni, n := range []noisetest.Noise{noisetest.Gaussian(0.05), noisetest.Bursts(0.2, 0.02)} {
			for _, per := range []int{2, 4, 6} {
				rng := rand.New(rand.NewPCG(uint64(ni), uint64(per)))
				before, after := 0, 0
				for range runs {
					num, den := fallbackCells(rng, n, clusters, per, fb.zero)
					samples := []*analysis.Sample{num, den}
					opt := analysis.DefaultOptions()
					old := ratio(ch, samples, opt)
					opt.PerLayout = per
					now := ratio(ch, samples, opt)
					if old.Measure.How != fb.how || now.Measure.How != fb.how {
						t.Fatalf("%s: measured by %v and %v, want %v", fb.name, old.Measure.How, now.Measure.How, fb.how)
					}
					before += btoi(excludesOne(old))
					after += btoi(excludesOne(now))
				}
				rb, ra := float64(before)/float64(runs), float64(after)/float64(runs)
				fmt.Fprintf(&b, "| %s | %s | %d | %d | %.1f%% | %.1f%% |\n", fb.name, n.Name, per, runs, 100*rb, 100*ra)
				if ra > alpha+3*se {
					t.Errorf("%s, %s, %d a cluster: A/A interval excluded 1 in %.1f%% of runs", fb.name, n.Name, per, 100*ra)
				}
			}
		}
	}
	t.Log(b.String())
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func excludesOne(cr CheckResult) bool {
	return !anyInf(cr.Lo, cr.Hi) && (cr.Lo > 1 || cr.Hi < 1)
}

// fallbackCells draws an A/A pair of cells (v=a over v=b) with rounds:
// every cluster of per rounds shares one offset of each cell (standard
// deviation 5%/√2 each, 5% for their ratio), each round adds the noise,
// and cell zero measures 0 in round 1.
func fallbackCells(rng *rand.Rand, n noisetest.Noise, clusters, per int, zero string) (num, den *analysis.Sample) {
	num = &analysis.Sample{Name: benchname.Parse("BenchmarkX/v=a"), Unit: "sec/op"}
	den = &analysis.Sample{Name: benchname.Parse("BenchmarkX/v=b"), Unit: "sec/op"}
	r := 0
	for range clusters {
		oa, ob := 0.05/math.Sqrt2*rng.NormFloat64(), 0.05/math.Sqrt2*rng.NormFloat64()
		for range per {
			r++
			x, y := n.Round(rng, 1)
			x, y = x*math.Exp(oa), y*math.Exp(ob)
			if r == 1 && zero == "a" {
				x = 0
			}
			if r == 1 && zero == "b" {
				y = 0
			}
			num.Values, num.Rounds = append(num.Values, x), append(num.Rounds, r)
			den.Values, den.Rounds = append(den.Values, y), append(den.Rounds, r)
		}
	}
	return num, den
}
