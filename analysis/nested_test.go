package analysis

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/perflab/perflab/internal/noisetest"
)

// nestedDraw simulates rounds of cells on the log scale: a drift shared by
// the round, a process effect of SD between per process, and repetitions
// of SD within inside it.
func nestedDraw(rng *rand.Rand, cells, rounds, k int, between, within float64) [][][]float64 {
	reps := make([][][]float64, cells)
	for i := range reps {
		reps[i] = make([][]float64, rounds)
	}
	for j := range rounds {
		drift := 0.1 * rng.NormFloat64()
		for i := range cells {
			p := drift + between*rng.NormFloat64() + 0.2*float64(i)
			xs := make([]float64, k)
			for n := range xs {
				xs[n] = 1e-6 * math.Exp(p+within*rng.NormFloat64())
			}
			reps[i][j] = xs
		}
	}
	return reps
}

// normalMedianFactor is the variance of the median of k independent
// normal values relative to that of their mean (for even k, the mean of
// the middle two).
var normalMedianFactor = [...]float64{0, 1, 1, 1.35, 1.19, 1.43}

// TestNestedComponents: on planted normal components the curve is
// between + m(k)·within/k, and the fit recovers the between component.
func TestNestedComponents(t *testing.T) {
	for _, tc := range []struct {
		name            string
		k               int
		between, within float64
	}{
		{"between dominates", 5, 0.04, 0.01},
		{"within dominates", 5, 0.005, 0.05},
		{"both", 3, 0.02, 0.02},
		{"no process effect", 5, 0, 0.03},
		{"two repetitions", 2, 0.03, 0.03},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(tc.k)))
			reps := nestedDraw(rng, 2, 2000, tc.k, tc.between, tc.within)
			v, ok := RepeatCurve(reps)
			if !ok || len(v) != tc.k {
				t.Fatalf("curve %v %v", v, ok)
			}
			b2, w2 := tc.between*tc.between, tc.within*tc.within
			for k := 1; k <= tc.k; k++ {
				want := b2 + normalMedianFactor[k]*w2/float64(k)
				if math.Abs(v[k-1]/want-1) > 0.1 {
					t.Errorf("V(%d) = %.3g, want %.3g", k, v[k-1], want)
				}
			}
			c, ok := NestedComponents(reps)
			if !ok {
				t.Fatal("not estimated")
			}
			// The fit of B + W/k to a curve whose median factor varies
			// with k misses between by a fraction of the within share.
			if total := b2 + w2; math.Abs(c.Between-b2) > 0.15*total {
				t.Errorf("between %.3g, planted %.3g (within %.3g)", c.Between, b2, w2)
			}
			if c.K != tc.k || c.Rounds != 2000 {
				t.Errorf("K %d rounds %d", c.K, c.Rounds)
			}
		})
	}
}

// TestNestedComponentsCorpus plants a process effect on real noise: the
// recorded processes of v=a and its own copy v=c, each process's
// repetitions multiplied by one draw. The measured curve V(k) rises by
// the planted variance at every k.
func TestNestedComponentsCorpus(t *testing.T) {
	for _, cond := range []string{"quiet", "noisy", "bursts"} {
		t.Run(cond, func(t *testing.T) {
			c, err := noisetest.LoadCorpus(filepath.Join("testdata", "noise", cond+".csv.gz"))
			if err != nil {
				t.Fatal(err)
			}
			byRound := map[int]map[string][]float64{}
			for _, p := range c.Processes {
				if byRound[p.Round] == nil {
					byRound[p.Round] = map[string][]float64{}
				}
				byRound[p.Round][p.Variant] = p.Reps
			}
			var reps [2][][]float64
			for _, r := range c.Rounds("a", "c") {
				reps[0] = append(reps[0], byRound[r]["a"])
				reps[1] = append(reps[1], byRound[r]["c"])
			}
			base, ok := RepeatCurve(reps[:])
			if !ok {
				t.Fatal("no curve on the recording")
			}
			// A process effect the size of what the median of five varies by.
			sd := math.Sqrt(base[len(base)-1])
			rng := rand.New(rand.NewPCG(3, 5))
			var planted [2][][]float64
			for i := range reps {
				for _, xs := range reps[i] {
					f := math.Exp(sd * rng.NormFloat64())
					ys := make([]float64, len(xs))
					for n, x := range xs {
						ys[n] = x * f
					}
					planted[i] = append(planted[i], ys)
				}
			}
			got, ok := RepeatCurve(planted[:])
			if !ok {
				t.Fatal("no curve with the planted effect")
			}
			// Every point of the curve rises by the planted variance,
			// within the sampling error of 200 rounds.
			for k := range got {
				if added := got[k] - base[k]; math.Abs(added-sd*sd) > 0.3*(sd*sd+base[k]) {
					t.Errorf("V(%d) rose by %.3g, planted %.3g (was %.3g)", k+1, added, sd*sd, base[k])
				}
			}
			fit, _ := NestedComponents(reps[:])
			t.Logf("%s: V(k) %.3g; fit between %.3g within %.3g; k chosen with 5ms to start and 200ms a repetition: %d", cond, base, fit.Between, fit.Within,
				BestRepeats(fit, 2, 5*time.Millisecond, 400*time.Millisecond, 10))
		})
	}
}

func TestNestedComponentsRefuses(t *testing.T) {
	ok3 := [][]float64{{1, 2}, {1, 2}, {1, 2}}
	for _, tc := range []struct {
		name string
		reps [][][]float64
	}{
		{"one cell", [][][]float64{ok3}},
		{"two rounds", [][][]float64{ok3[:2], ok3[:2]}},
		{"one repetition", [][][]float64{{{1}, {1}, {1}}, {{1}, {1}, {1}}}},
		{"uneven rounds", [][][]float64{ok3, ok3[:2]}},
		{"uneven repetitions", [][][]float64{ok3, {{1, 2}, {1, 2, 3}, {1, 2}}}},
		{"zero value", [][][]float64{ok3, {{1, 0}, {1, 2}, {1, 2}}}},
		{"NaN", [][][]float64{ok3, {{1, math.NaN()}, {1, 2}, {1, 2}}}},
		{"empty", nil},
	} {
		if _, ok := NestedComponents(tc.reps); ok {
			t.Errorf("%s: estimated", tc.name)
		}
	}
}

// TestBestRepeats checks the choice against the optimum of the cost
// model, k* = √(cells·a·Within / (r·Between)).
func TestBestRepeats(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name          string
		c             Components
		start, perRep time.Duration
		want          int
	}{
		{"variance between processes: one repetition", Components{Within: 1e-4, Between: 1e-3}, 5 * ms, 40 * ms, 1},
		{"variance within, costly start: many", Components{Within: 1e-2, Between: 1e-5}, 200 * ms, 20 * ms, 10},
		{"set-up makes repetitions dear: one", Components{Within: 1e-3, Between: 1e-4}, 5 * ms, 2800 * ms, 1},
		{"no process effect: as many as allowed", Components{Within: 1e-3}, 10 * ms, 10 * ms, 10},
		{"nothing varies: one", Components{}, 10 * ms, 10 * ms, 1},
		// √(2·50·1e-3 / (20·1e-4)) ≈ 7.1.
		{"in between", Components{Within: 1e-3, Between: 1e-4}, 50 * ms, 20 * ms, 7},
	} {
		if got := BestRepeats(tc.c, 2, tc.start, tc.perRep, 10); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := BestRepeats(Components{Within: 1}, 2, time.Second, time.Millisecond, 0); got != 1 {
		t.Errorf("maxK 0: %d, want 1", got)
	}
}

// TestChooseRepeats runs the whole choice on simulated groups: a process
// effect that dominates gives one repetition, repetitions that vary and
// cost little give many.
func TestChooseRepeats(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 13))
	if k, ok := ChooseRepeats(nestedDraw(rng, 2, 12, 5, 0.05, 0.005), 5*time.Millisecond, 40*time.Millisecond, 10); !ok || k != 1 {
		t.Errorf("process effect dominates: %d %v, want 1", k, ok)
	}
	if k, ok := ChooseRepeats(nestedDraw(rng, 2, 40, 5, 0, 0.05), 50*time.Millisecond, 10*time.Millisecond, 10); !ok || k < 3 {
		t.Errorf("within dominates: %d %v, want 3 or more", k, ok)
	}
	if _, ok := ChooseRepeats(nil, time.Millisecond, time.Millisecond, 10); ok {
		t.Error("an empty group was judged")
	}
}

// TestChooseRepeatsOneSided: interference only slows a sample down. When
// it spoils single repetitions (a tenth of them, by up to +50%), the median
// of several leaves them out and the curve falls faster than 1/k, so
// several repetitions are chosen; when it slows whole processes (a tenth
// of them), repetitions cannot help and one is chosen.
func TestChooseRepeatsOneSided(t *testing.T) {
	draw := func(rng *rand.Rand, perRep bool) [][][]float64 {
		reps := make([][][]float64, 2)
		for i := range reps {
			for range 60 {
				slow := 0.0
				if !perRep && rng.Float64() < 0.1 {
					slow = 0.5 * rng.ExpFloat64()
				}
				xs := make([]float64, 5)
				for n := range xs {
					x := 1e-6 * (1 + slow) * math.Exp(0.002*rng.NormFloat64())
					if perRep && rng.Float64() < 0.1 {
						x *= 1 + 0.5*rng.Float64()
					}
					xs[n] = x
				}
				reps[i] = append(reps[i], xs)
			}
		}
		return reps
	}
	rng := rand.New(rand.NewPCG(5, 8))
	if k, ok := ChooseRepeats(draw(rng, true), 50*time.Millisecond, 40*time.Millisecond, 10); !ok || k < 3 {
		t.Errorf("spoiled repetitions: %d %v, want 3 or more", k, ok)
	}
	if k, ok := ChooseRepeats(draw(rng, false), 5*time.Millisecond, 40*time.Millisecond, 10); !ok || k != 1 {
		t.Errorf("slowed processes: %d %v, want 1", k, ok)
	}
}

func TestPerLayout(t *testing.T) {
	for _, tc := range []struct {
		layout, noise float64
		link, round   time.Duration
		want          int
	}{
		{0.02 * 0.02, 0.10 * 0.10, time.Second, time.Second, 5},      // noise dominates: √25
		{0.05 * 0.05, 0.05 * 0.05, time.Second, time.Second, 1},      // alike, links as dear as rounds
		{0.05 * 0.05, 0.05 * 0.05, 16 * time.Second, time.Second, 4}, // dear links
		{0.10 * 0.10, 0.02 * 0.02, time.Second, time.Second, 1},      // layout dominates
		{0, 0.01, time.Second, time.Second, 8},                       // layout not told from noise
		{0.02 * 0.02, 0.50 * 0.50, 10 * time.Second, time.Second, 8}, // capped
		{0.02 * 0.02, 0.10 * 0.10, time.Second, 0, 1},                // no round cost known
		{math.NaN(), 0.01, time.Second, time.Second, 8},              // no layout estimate
	} {
		if got := PerLayout(tc.layout, tc.noise, tc.link, tc.round, 8); got != tc.want {
			t.Errorf("PerLayout(%g, %g, %s, %s) = %d, want %d", tc.layout, tc.noise, tc.link, tc.round, got, tc.want)
		}
	}
}
