package ab

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/noisetest"
	"github.com/perflab/perflab/store"
)

// storedResult stores a run drawn from l as the engine stores a run with
// random layouts (PerLayout rounds a layout) and returns the ab result
// that compares it, under rules.
func storedResult(t *testing.T, db *store.DB, l noisetest.LayoutRun, rng *rand.Rand, env []store.KV, rules string) *Result {
	t.Helper()
	rs, err := gotest.Parse(strings.NewReader(l.Text(rng)), "run")
	if err != nil {
		t.Fatal(err)
	}
	rounds := l.Clusters * l.PerLayout
	byRound := make([][]*benchfmt.Result, rounds+1)
	for _, r := range rs {
		n, _ := strconv.Atoi(r.GetConfig("round"))
		byRound[n] = append(byRound[n], r)
	}
	ctx := context.Background()
	run := &store.Run{Experiment: "ab", Mode: "quick", RoundsPlanned: rounds,
		Plan: store.Plan{Mode: "quick", Rounds: rounds, Layout: &store.Layout{PerLayout: l.PerLayout}}}
	if _, err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= rounds; r++ {
		if err := db.AddRound(ctx, run.ID, r, byRound[r]); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SetEnv(ctx, run.ID, env); err != nil {
		t.Fatal(err)
	}
	ths, err := compare.ParseThresholds(rules)
	if err != nil {
		t.Fatal(err)
	}
	return &Result{Pair: &Pair{opt: Options{Alpha: 0.05, Rules: ths, Layout: engine.LayoutRandom}},
		Run: &engine.Result{RunID: run.ID, Status: "complete", RoundsDone: rounds}, db: db}
}

// TestCompareLayoutClusters: ab's comparison of a run with random layouts
// that served several rounds each (the default, --layout random) reads
// the clusters from the stored plan: every row's interval counts layouts,
// the result says how the sides were linked, and over A/A runs whose
// layouts move each side by 5% the gate fails no more often than α —
// taking the rounds as independent it would fail far more often.
func TestCompareLayoutClusters(t *testing.T) {
	runs := 200
	if testing.Short() {
		runs = 40
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "ab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const clusters, per = 8, 4
	rng := rand.New(rand.NewPCG(4, 4))
	fails, naive := 0, 0
	for range runs {
		l := noisetest.LayoutRun{Clusters: clusters, PerLayout: per, Layout: 0.05, Noise: noisetest.Bursts(0.2, 0.02),
			Benchmarks: []string{"BenchmarkA", "BenchmarkB"}}
		r := storedResult(t, db, l, rng, nil, "sec/op>+0%")
		if err := r.Compare(context.Background()); err != nil {
			t.Fatal(err)
		}
		p := r.Paired
		if p.Layout == nil || p.Layout.PerLayout != per || p.Layout.Layouts != clusters || len(p.Layout.Fixed) != 0 {
			t.Fatalf("Layout = %+v, want %d layouts of %d rounds, none fixed", p.Layout, clusters, per)
		}
		for _, row := range p.Rows {
			if row.Ratio.N != clusters {
				t.Fatalf("%s: %d observations, want one per layout (%d)", row.Name, row.Ratio.N, clusters)
			}
		}
		if len(r.Gate.Fails()) > 0 {
			fails++
		}
		// The same rounds taken as independent.
		results, err := db.Results(context.Background(), r.Run.RunID)
		if err != nil {
			t.Fatal(err)
		}
		flat := findings.Paired(results, Old, New, analysis.DefaultOptions(), nil)
		if len(compare.Check(flat.Gate(), flat.Alpha, r.Gate.Rules).Fails()) > 0 {
			naive++
		}
	}
	t.Logf("A/A over %d stored runs, %d layouts of %d rounds, two benchmarks: the gate sec/op>+0%% failed %d (over layouts), %d (rounds as if independent)", runs, clusters, per, fails, naive)
	// Each run has two rows at α/2 each and a one-sided rule: at most α.
	if limit := float64(runs)*0.05 + 3*math.Sqrt(float64(runs)*0.05*0.95); float64(fails) > limit {
		t.Errorf("the A/A gate failed %d of %d runs, more than α allows (%.1f)", fails, runs, limit)
	}
}

// TestCompareFixedLayoutSide: ab's result names a side that kept one
// fixed layout (layout-fixed-new in the run's environment) and why.
func TestCompareFixedLayoutSide(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "ab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const why = "its toolchain's linker has no -randlayout (go1.22 and older)"
	r := storedResult(t, db, noisetest.LayoutRun{Clusters: 8, PerLayout: 2, Layout: 0.03, NewFixedFrom: 1}, rand.New(rand.NewPCG(5, 5)),
		[]store.KV{{Key: "layout-fixed-new", Value: why}}, "sec/op>+5%")
	if err := r.Compare(context.Background()); err != nil {
		t.Fatal(err)
	}
	l := r.Paired.Layout
	if l == nil || len(l.Fixed) != 1 || l.Fixed[0] != (findings.FixedLayout{Config: New, Why: why, From: 1}) {
		t.Fatalf("Layout = %+v, want new fixed from round 1: %s", l, why)
	}
}
