package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/noisetest"
)

// TestFDistribution checks Snedecor's F against tabulated critical values
// and against Student's t (F(1, ν) = t²(ν)).
func TestFDistribution(t *testing.T) {
	for _, tc := range []struct {
		f, d1, d2, p float64
	}{
		{3.7083, 3, 10, 0.05}, // F₀.₉₅(3, 10)
		{4.1027, 5, 20, 0.01}, // F₀.₉₉(5, 20)
		{3.8853, 2, 12, 0.05}, // F₀.₉₅(2, 12)
		{4.9646, 1, 10, 0.05}, // t₀.₉₇₅(10)² = 2.2281²
		{2.0, 2, 2, 1.0 / 3},  // F(2, 2): P(F > f) = 1/(1+f)
	} {
		if got := fSurvival(tc.f, tc.d1, tc.d2); math.Abs(got-tc.p) > 2e-4 {
			t.Errorf("P(F(%g, %g) > %g) = %.5f, want %.4f", tc.d1, tc.d2, tc.f, got, tc.p)
		}
		if q := fQuantile(1-tc.p, tc.d1, tc.d2); math.Abs(q-tc.f) > 2e-3*tc.f {
			t.Errorf("F(%g, %g) quantile %.4f = %.4f, want %.4f", tc.d1, tc.d2, 1-tc.p, q, tc.f)
		}
	}
	if fSurvival(0, 3, 4) != 1 || fSurvival(math.Inf(1), 3, 4) != 0 {
		t.Error("F survival at 0 or +Inf")
	}
	if !math.IsNaN(incBeta(0.5, 0, 1)) || !math.IsNaN(fQuantile(1, 2, 2)) {
		t.Error("invalid arguments did not give NaN")
	}
}

// oldLayoutSpreadLo is the lower bound LayoutSpread had before its
// F-test: the 5th percentile of the layout SD over 400 resamples of
// clusters (a percentile bootstrap of a variance component floored at
// 0), with the moment estimate b − w·mean(1/k).
func oldLayoutSpreadLo(groups [][]float64) float64 {
	sd := func(groups [][]float64) float64 {
		var means []float64
		within, df, size := 0.0, 0, 0.0
		for _, g := range groups {
			m := mean(g)
			for _, x := range g {
				within += (x - m) * (x - m)
			}
			df += len(g) - 1
			means = append(means, m)
			size += 1 / float64(len(g))
		}
		w := within / float64(df)
		m := mean(means)
		b := 0.0
		for _, x := range means {
			b += (x - m) * (x - m)
		}
		b /= float64(len(means) - 1)
		return math.Sqrt(math.Max(0, b-w*size/float64(len(means))))
	}
	rng := rand.New(rand.NewPCG(uint64(len(groups)), 1))
	var boot []float64
	pick := make([][]float64, len(groups))
	for range 400 {
		for i := range pick {
			pick[i] = groups[rng.IntN(len(groups))]
		}
		boot = append(boot, sd(pick))
	}
	slices.Sort(boot)
	return quantile(boot, 0.05)
}

// spreadWorld draws an A/A run of clusters whose log-ratios share a
// layout offset of sd (0: no layout effect) over the noise's rounds; the
// last cluster is short by one round when short is set.
func spreadWorld(rng *rand.Rand, n noisetest.Noise, clusters, per int, sd float64, short bool) (num, den map[int]float64, groups [][]float64) {
	num, den = map[int]float64{}, map[int]float64{}
	r := 0
	for c := range clusters {
		k := per
		if short && c == clusters-1 {
			k--
		}
		off := sd * rng.NormFloat64()
		var g []float64
		for range k {
			r++
			d := off + n.LogRatio(rng, 1)
			num[r], den[r] = math.Exp(d), 1
			g = append(g, d)
		}
		groups = append(groups, g)
	}
	return num, den, groups
}

// TestLayoutSpreadNullRate: with no layout effect, LayoutSpread says
// "layout moves it" (Lo > 0, the F-test at 5%) in at most 5% of runs,
// under Gaussian, heavy-tailed, skewed and one-sided-burst noise, with
// clusters of 2 to 6 rounds and a short last cluster; the percentile
// bootstrap it replaced is shown beside it. With a layout effect the
// 90% interval holds its standard deviation in at least 90% of runs
// (Gaussian noise) and the F-test finds it.
func TestLayoutSpreadNullRate(t *testing.T) {
	runs := 1000
	switch {
	case *calibrate:
		runs = 10000
	case testing.Short():
		runs = 300
	}
	se := math.Sqrt(LayoutMoves * (1 - LayoutMoves) / float64(runs))
	var b strings.Builder
	fmt.Fprintf(&b, "\nNo layout effect: \"layout moves it\" in %d runs each\n\n| noise | clusters × rounds | F-test (now) | percentile bootstrap (before) |\n|---|---|--:|--:|\n", runs)
	noises := []noisetest.Noise{noisetest.Gaussian(0.05), noisetest.StudentT3(0.05), noisetest.Skewed(0.05), noisetest.Bursts(0.2, 0.02)}
	for ni, n := range noises {
		for _, shape := range []struct {
			clusters, per int
			short         bool
		}{{10, 2, false}, {10, 4, true}, {20, 3, false}, {8, 6, true}} {
			rng := rand.New(rand.NewPCG(uint64(ni), uint64(shape.clusters*10+shape.per)))
			o := Options{PerLayout: shape.per}
			moves, old := 0, 0
			for range runs {
				num, den, groups := spreadWorld(rng, n, shape.clusters, shape.per, 0, shape.short)
				ls, ok := o.LayoutSpread(num, den)
				if !ok {
					t.Fatalf("%d clusters of %d: no LayoutSpread", shape.clusters, shape.per)
				}
				if (ls.Lo > 0) != (ls.P < LayoutMoves) {
					t.Fatalf("Lo = %g but P = %g: the interval and the test disagree", ls.Lo, ls.P)
				}
				moves += btoi(ls.Lo > 0)
				if !*calibrate && !testing.Verbose() {
					continue
				}
				old += btoi(oldLayoutSpreadLo(groups) > 0)
			}
			rate := float64(moves) / float64(runs)
			fmt.Fprintf(&b, "| %s | %d × %d%s | %.1f%% | %.1f%% |\n", n.Name, shape.clusters, shape.per, map[bool]string{true: " (last short)"}[shape.short], 100*rate, 100*float64(old)/float64(runs))
			if rate > LayoutMoves+3*se {
				t.Errorf("%s, %d clusters of %d: no layout effect, yet layout moves it in %.1f%% of runs", n.Name, shape.clusters, shape.per, 100*rate)
			}
		}
	}
	// A layout effect of 3% against 2% noise: the interval's coverage
	// and the test's power.
	rng := rand.New(rand.NewPCG(9, 9))
	const sd = 0.03
	covered, found := 0, 0
	for range runs {
		num, den, _ := spreadWorld(rng, noisetest.Gaussian(0.02), 20, 3, sd, false)
		ls, _ := Options{PerLayout: 3}.LayoutSpread(num, den)
		covered += btoi(ls.Lo <= sd && sd <= ls.Hi)
		found += btoi(ls.Lo > 0)
	}
	cov, power := float64(covered)/float64(runs), float64(found)/float64(runs)
	fmt.Fprintf(&b, "\nLayout SD 3%%, noise 2%%, 20 clusters × 3: the 90%% interval held the SD in %.1f%% of runs; layout found in %.1f%%\n", 100*cov, 100*power)
	if cse := math.Sqrt(0.9 * 0.1 / float64(runs)); cov < 0.9-3*cse {
		t.Errorf("the 90%% interval held the layout SD in %.1f%% of runs", 100*cov)
	}
	if power < 0.9 {
		t.Errorf("a layout SD of 3%% against 2%% noise found in %.1f%% of runs, want ≥ 90%%", 100*power)
	}
	t.Log(b.String())
}
