package findings

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/store"
)

// TestJudgeAtRunAlpha: a sequential run decides at the α it was asked for
// (store.Decide.Alpha): at α = 0.01 a ratio is decided only where the 99%
// sequence decides it, its first interval comes later than at 0.05, and
// what the judge decided is what the table printed at that α says —
// never a row the run stopped as decided and the table calls undecided.
func TestJudgeAtRunAlpha(t *testing.T) {
	if InitialRoundsAt(3, 0.01) <= InitialRoundsAt(3, 0.05) {
		t.Errorf("initial pass at α 0.01 (%d rounds) not longer than at 0.05 (%d)", InitialRoundsAt(3, 0.01), InitialRoundsAt(3, 0.05))
	}
	if InitialRoundsAt(3, 0) != InitialRoundsFor(3) {
		t.Errorf("α 0 is not the default 0.05")
	}
	for _, tc := range []struct{ alpha, conf float64 }{{0, 0.95}, {0.05, 0.95}, {0.01, 0.99}, {2, 0.95}} {
		o := sequentialOptions(store.Plan{Decide: &store.Decide{Alpha: tc.alpha}})
		if math.Abs(o.Confidence-tc.conf) > 1e-12 || !o.Anytime {
			t.Errorf("α %g: options %+v, want anytime at %g", tc.alpha, o, tc.conf)
		}
	}
	// The planted run's b/a (+10% over noisy rounds) after n rounds: the
	// judge at each α decides it exactly when the anytime interval at
	// 1 − α/2 (two ratios) computed here from the rounds excludes 1.
	ctx := context.Background()
	db := openDB(t)
	width := map[float64]map[int]float64{0.05: {}, 0.01: {}}
	for _, alpha := range []float64{0.05, 0.01} {
		decide := store.Decide{Unit: "sec/op", MaxRounds: 500, Repeats: 5, Alpha: alpha}
		for _, n := range []int{10, 12, 14, 16, 20, 30} {
			rounds := planted(n, map[int]bool{3: true, 7: true, 9: true}, 3)
			id := storePlanted(t, db, plantedSpec(""), store.Plan{Mode: "quick", Rounds: 8, Sequential: true, Decide: &decide}, rounds)
			items, err := JudgeSequential(ctx, db, id)
			if err != nil {
				t.Fatal(err)
			}
			ba := byLabel(items)["BenchmarkW v=b/a (sec/op)"]
			var num, den []float64
			for _, r := range rounds {
				num, den = append(num, r[1].Values[0].Value), append(den, r[0].Values[0].Value)
			}
			d := make([]float64, n)
			for i := range d {
				d[i] = math.Log(num[i] / den[i])
			}
			want := analysis.AnytimeLogs(d, 1-alpha/2, 0).Excludes(1)
			if got := ba.Decision == RatioDiffers; got != want {
				t.Errorf("α %g, %d rounds: judge decided %v (%g [%g, %g]), the %g%% sequence says %v", alpha, n, got, ba.Ratio, ba.Lo, ba.Hi, 100*(1-alpha/2), want)
			}
			width[alpha][n] = math.Inf(1) // no interval yet
			if ba.HasInterval {
				width[alpha][n] = math.Log(ba.Hi / ba.Lo)
			}
		}
	}
	wider := false
	for n, w := range width[0.05] {
		if w01 := width[0.01][n]; w01 < w {
			t.Errorf("%d rounds: the interval at α 0.01 is narrower than at 0.05", n)
		} else if w01 > w {
			wider = true
		}
	}
	if !wider {
		t.Errorf("no interval at α 0.01 wider than at 0.05: the run's α did not reach the judge")
	}
}

// TestWholeClusters: a shard's look sees only whole clusters of the other
// shards: with two shards at 2 rounds a layout, rounds 1,3 (shard 1) and
// 2,4 (shard 2) are whole, 5,7 (shard 1) whole, and round 6 alone (shard
// 2's unfinished cluster) is left out until round 8 is stored.
func TestWholeClusters(t *testing.T) {
	p := store.Plan{Shards: 2, Layout: &store.Layout{PerLayout: 2}}
	var results []*benchfmt.Result
	for _, r := range []int{1, 2, 3, 4, 5, 6, 7} {
		results = append(results, &benchfmt.Result{Name: benchfmt.Name("X"), Iters: 1,
			Config: []benchfmt.Config{{Key: "round", Value: []byte(strconv.Itoa(r))}}, Values: []benchfmt.Value{{Value: 1, Unit: "sec/op"}}})
	}
	rounds := func(rs []*benchfmt.Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.GetConfig("round"))
		}
		return out
	}
	if got := rounds(wholeClusters(p, results)); strings.Join(got, ",") != "1,2,3,4,5,7" {
		t.Errorf("kept rounds %v, want 1–5 and 7", got)
	}
	if got := rounds(wholeClusters(store.Plan{Layout: &store.Layout{PerLayout: 2}}, results)); len(got) != 7 {
		t.Errorf("a run on one machine kept %v, want every round", got)
	}
}
