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

// TestNestedComponents recovers planted components: the round's drift and
// each cell's level are taken out, the within share of the medians'
// variance is not counted as between.
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
			c, ok := NestedComponents(nestedDraw(rng, 2, 400, tc.k, tc.between, tc.within))
			if !ok {
				t.Fatal("not estimated")
			}
			if got, want := c.Within, tc.within*tc.within; math.Abs(got/want-1) > 0.1 {
				t.Errorf("within %.3g, planted %.3g", got, want)
			}
			// The between estimate's error is about the within share's
			// sampling error: allow 15% of the medians' variance.
			want := tc.between * tc.between
			total := want + MedianFactor(tc.k)*tc.within*tc.within/float64(tc.k)
			if math.Abs(c.Between-want) > 0.15*total {
				t.Errorf("between %.3g, planted %.3g (medians' variance %.3g)", c.Between, want, total)
			}
			if c.K != tc.k || c.Rounds != 400 {
				t.Errorf("K %d rounds %d", c.K, c.Rounds)
			}
		})
	}
}

// TestNestedComponentsCorpus plants a process effect on real noise: the
// recorded processes of v=a and its own copy v=c, each process's
// repetitions multiplied by one draw. Within stays what it was exactly;
// Between grows by the planted variance.
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
			base, ok := NestedComponents(reps[:])
			if !ok {
				t.Fatal("not estimated on the recording")
			}
			// A process effect well above what the medians vary by, so
			// that Between's floor at 0 (the quiet recording's medians
			// vary less than normal repetitions would make them) does
			// not hide part of it.
			sd := 3 * math.Sqrt(base.Between+MedianFactor(base.K)*base.Within/float64(base.K))
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
			got, ok := NestedComponents(planted[:])
			if !ok {
				t.Fatal("not estimated with the planted effect")
			}
			if math.Abs(got.Within-base.Within) > 1e-9*base.Within {
				t.Errorf("within %.4g, was %.4g: a factor per process changed it", got.Within, base.Within)
			}
			added := got.Between - base.Between
			if math.Abs(added/(sd*sd)-1) > 0.3 {
				t.Errorf("between grew by %.3g, planted %.3g (%d rounds; recorded within %.3g, between %.3g)",
					added, sd*sd, base.Rounds, base.Within, base.Between)
			}
			t.Logf("%s: within %.3g between %.3g over %d rounds; planted %.3g, added %.3g", cond, base.Within, base.Between, base.Rounds, sd*sd, added)
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
// model: with the median's factor set aside, k* = √(cells·a·σ²w / (r·σ²p)).
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
		// √(2·50·1e-3 / (20·1e-4)) ≈ 7.1; m(k) favours the even 6 or 8.
		{"in between", Components{Within: 1e-3, Between: 1e-4}, 50 * ms, 20 * ms, 8},
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
	if k, ok := ChooseRepeats(nestedDraw(rng, 2, 12, 5, 0, 0.05), 50*time.Millisecond, 10*time.Millisecond, 10); !ok || k < 8 {
		t.Errorf("within dominates: %d %v, want 8 or more", k, ok)
	}
	if _, ok := ChooseRepeats(nil, time.Millisecond, time.Millisecond, 10); ok {
		t.Error("an empty group was judged")
	}
}
