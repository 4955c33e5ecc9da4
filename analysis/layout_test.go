package analysis

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// roundsOf turns per-round log-ratios into the num/den maps the paired
// functions read (den = 1 each round).
func roundsOf(d []float64) (num, den map[int]float64) {
	num, den = map[int]float64{}, map[int]float64{}
	for i, x := range d {
		num[i+1], den[i+1] = math.Exp(x), 1
	}
	return num, den
}

func TestClusters(t *testing.T) {
	tests := []struct {
		name   string
		per    int
		rounds []int
		d      []float64
		want   []float64
	}{
		{"one round a layout", 0, []int{1, 2, 3}, []float64{3, 1, 2}, []float64{3, 1, 2}},
		{"pairs", 2, []int{1, 2, 3, 4}, []float64{1, 3, 10, 20}, []float64{2, 15}},
		{"threes, last short", 3, []int{1, 2, 3, 4, 5}, []float64{5, 1, 3, 7, 9}, []float64{3, 8}},
		{"missing rounds", 2, []int{2, 3, 6, 7}, []float64{1, 4, 6, 8}, []float64{1, 4, 6, 8}},
		{"median, not mean", 3, []int{1, 2, 3}, []float64{0, 1, 100}, []float64{1}},
	}
	for _, tt := range tests {
		got := Options{PerLayout: tt.per}.clusters(tt.rounds, tt.d)
		if len(got) != len(tt.want) {
			t.Errorf("%s: clusters = %v, want %v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: clusters = %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
}

// layoutWorld simulates an A/A comparison of two builds of one source whose
// layouts move it: each cluster of per rounds draws a fresh layout for
// either side (a log-scale effect with standard deviation sdLayout), and
// every round adds noise (sdNoise, Gaussian, or one-sided bursts that
// slow one side by 5–40% in a fifth of the rounds).
func layoutWorld(rng *rand.Rand, rounds, per int, sdLayout, sdNoise float64, bursts bool) []float64 {
	d := make([]float64, rounds)
	var lay float64
	for r := range d {
		if r%per == 0 {
			lay = sdLayout*rng.NormFloat64() - sdLayout*rng.NormFloat64()
		}
		e := sdNoise * rng.NormFloat64()
		if bursts && rng.Float64() < 0.2 {
			slow := math.Log1p(0.05 + 0.35*rng.Float64())
			if rng.IntN(2) == 0 {
				slow = -slow
			}
			e += slow
		}
		d[r] = lay + e
	}
	return d
}

// TestLayoutCalibration: when rounds share layouts, intervals computed
// over clusters keep an A/A comparison's false decisions at α (fixed
// rounds and sequential looks), while treating the rounds as independent
// decides far more often: layouts are the unit the interval must count.
func TestLayoutCalibration(t *testing.T) {
	const trials = 1000
	const alpha = 0.05
	se := math.Sqrt(alpha * (1 - alpha) / trials)
	for _, w := range []struct {
		name              string
		per               int
		sdLayout, sdNoise float64
		bursts            bool
	}{
		{"layout 5%, noise 1%, 3 a layout", 3, 0.05, 0.01, false},
		{"layout 5%, noise 1%, 2 a layout", 2, 0.05, 0.01, false},
		{"layout 1%, noise 1%, bursts, 4 a layout", 4, 0.01, 0.01, true},
		{"no layout effect, noise 2%, 3 a layout", 3, 0, 0.02, false},
	} {
		rng := rand.New(rand.NewPCG(7, uint64(w.per)))
		var fixedC, fixedNaive, seqC int
		for range trials {
			d := layoutWorld(rng, 48, w.per, w.sdLayout, w.sdNoise, w.bursts)
			num, den := roundsOf(d)
			if (Options{Confidence: 0.95, PerLayout: w.per}).Paired(num, den).Excludes(1) {
				fixedC++
			}
			if (Options{Confidence: 0.95}).Paired(num, den).Excludes(1) {
				fixedNaive++
			}
			// Sequential: look after every cluster from the 8th to the
			// 40th; a decision at any look counts.
			long := layoutWorld(rng, 40*w.per, w.per, w.sdLayout, w.sdNoise, w.bursts)
			o := Options{Confidence: 0.95, Anytime: true, PerLayout: w.per}
			for c := AnytimeMinRounds; c <= 40; c++ {
				n, dd := roundsOf(long[:c*w.per])
				if o.Paired(n, dd).Excludes(1) {
					seqC++
					break
				}
			}
		}
		rate := func(k int) float64 { return float64(k) / trials }
		t.Logf("%s: false decisions, clustered fixed %.1f%%, clustered sequential %.1f%%, rounds as if independent %.1f%%",
			w.name, 100*rate(fixedC), 100*rate(seqC), 100*rate(fixedNaive))
		if rate(fixedC) > alpha+3*se {
			t.Errorf("%s: clustered fixed-round A/A decided %.1f%% of trials, more than α = 5%%", w.name, 100*rate(fixedC))
		}
		if rate(seqC) > alpha+3*se {
			t.Errorf("%s: clustered sequential A/A decided %.1f%% of trials, more than α = 5%%", w.name, 100*rate(seqC))
		}
		if w.sdLayout >= 0.05 && rate(fixedNaive) < 1.5*alpha {
			t.Errorf("%s: rounds taken as independent decided only %.1f%%; the simulation does not show why clusters matter", w.name, 100*rate(fixedNaive))
		}
	}
}

// TestLayoutSpread recovers a known layout standard deviation, and finds
// none where only noise varies.
func TestLayoutSpread(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tt := range []struct {
		sdLayout, sdNoise float64
		per               int
	}{{0.05, 0.01, 3}, {0.02, 0.02, 2}, {0.1, 0.005, 5}, {0, 0.02, 3}} {
		var got, noises []float64
		hiMiss := 0
		for range 50 {
			d := layoutWorld(rng, 120*tt.per, tt.per, tt.sdLayout, tt.sdNoise, false)
			num, den := roundsOf(d)
			ls, ok := Options{PerLayout: tt.per}.LayoutSpread(num, den)
			if !ok {
				t.Fatalf("LayoutSpread found too few clusters in %d rounds", len(d))
			}
			if !(ls.Lo <= ls.SD+1e-12 && ls.SD <= ls.Hi+1e-12) {
				t.Errorf("bounds [%g, %g] do not hold the estimate %g", ls.Lo, ls.Hi, ls.SD)
			}
			if tt.sdLayout >= 0.05 && ls.Lo <= 0 {
				t.Errorf("layout sd %.2f against noise %.3f: the lower bound is %g, want > 0", tt.sdLayout, tt.sdNoise, ls.Lo)
			}
			if tt.sdLayout > 0 && ls.Hi < tt.sdLayout*math.Sqrt2*0.9 {
				hiMiss++
			}
			noises = append(noises, ls.Noise)
			got = append(got, ls.SD/math.Sqrt2) // per side
		}
		if n := mean(noises); math.Abs(n-tt.sdNoise) > 0.05*tt.sdNoise {
			t.Errorf("layout %.3f, %d a layout: noise sd %.4f on average, want %.4f", tt.sdLayout, tt.per, n, tt.sdNoise)
		}
		if hiMiss > 10 {
			t.Errorf("layout sd %.3f: the upper bound fell below it in %d of 50 runs", tt.sdLayout, hiMiss)
		}
		m := mean(got)
		if tt.sdLayout == 0 {
			if m > 0.3*tt.sdNoise {
				t.Errorf("no layout effect: estimated %.4f, want ≈ 0 (noise %.3f)", m, tt.sdNoise)
			}
			continue
		}
		if math.Abs(m-tt.sdLayout) > 0.1*tt.sdLayout {
			t.Errorf("layout sd %.3f (noise %.3f, %d a layout): estimated %.4f on average", tt.sdLayout, tt.sdNoise, tt.per, m)
		}
	}
	if _, ok := (Options{}).LayoutSpread(map[int]float64{1: 1}, map[int]float64{1: 1}); ok {
		t.Error("LayoutSpread of a run without shared layouts reported a spread")
	}
}

func TestClustersGroupAnyNumbering(t *testing.T) {
	// Two shards' clusters interleave in round order: shard 1 has rounds
	// 1, 3, 5, 7 in clusters of two, shard 2 rounds 2, 4, 6, 8.
	shard := func(r int) int { return ((r-1)/2/2)*2 + (r-1)%2 + 1 }
	o := Options{ClusterOf: shard}
	rounds := []int{8, 1, 2, 3, 4, 5, 6, 7}
	got := o.Clusters(rounds)
	want := [][]int{{1, 3}, {2, 4}, {5, 7}, {6, 0}} // indexes into rounds
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Clusters = %v, want %v", got, want)
	}
	// Log-ratios summarised by cluster: one median each, in the order of
	// the clusters' first rounds.
	num := map[int]float64{1: 2, 3: 4, 2: 1, 4: 1, 5: 1, 7: 1, 6: 8, 8: 8}
	den := map[int]float64{1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1}
	lr := o.LogRatios(num, den)
	wantLR := []float64{(math.Log(2) + math.Log(4)) / 2, 0, 0, math.Log(8)}
	if len(lr) != len(wantLR) {
		t.Fatalf("LogRatios = %v, want %v", lr, wantLR)
	}
	for i := range lr {
		if math.Abs(lr[i]-wantLR[i]) > 1e-12 {
			t.Errorf("cluster %d: log-ratio %v, want %v", i, lr[i], wantLR[i])
		}
	}
	// Without clustering each round is its own group, in round order.
	if got := (Options{}).Clusters([]int{3, 1, 2}); !reflect.DeepEqual(got, [][]int{{1}, {2}, {0}}) {
		t.Errorf("unclustered: %v", got)
	}
}
