package findings

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/internal/noisetest"
	"github.com/perflab/perflab/store"
)

// layoutResults draws a LayoutRun and parses it as the engine stores it.
func layoutResults(t *testing.T, l noisetest.LayoutRun, seed uint64) []*benchfmt.Result {
	t.Helper()
	rs, err := gotest.Parse(strings.NewReader(l.Text(rand.New(rand.NewPCG(seed, 9)))), "run")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// storeLayoutRun stores results as a run that sampled layouts, PerLayout
// rounds a layout, with env recorded, and returns its ID.
func storeLayoutRun(t *testing.T, db *store.DB, results []*benchfmt.Result, per int, env []store.KV) int64 {
	t.Helper()
	byRound := map[int][]*benchfmt.Result{}
	last := 0
	for _, r := range results {
		n := 0
		for _, c := range r.GetConfig("round") {
			n = 10*n + int(c-'0')
		}
		byRound[n] = append(byRound[n], r)
		last = max(last, n)
	}
	ctx := context.Background()
	p := store.Plan{Mode: "quick", Rounds: last, Layout: &store.Layout{PerLayout: per}}
	run := &store.Run{Experiment: "ab", Mode: "quick", RoundsPlanned: last, Plan: p}
	if _, err := db.CreateRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	for r := 1; r <= last; r++ {
		if err := db.AddRound(ctx, run.ID, r, byRound[r]); err != nil {
			t.Fatal(err)
		}
	}
	if len(env) > 0 {
		if err := db.SetEnv(ctx, run.ID, env); err != nil {
			t.Fatal(err)
		}
	}
	return run.ID
}

// TestPairedStoredLayouts: a stored run whose rounds shared layouts three
// at a time is compared over layout clusters — each row's estimate and
// interval are the sign test's over the clusters' median log-ratios, its
// layout column is filled — and the verdicts are said to hold for the
// source (no config kept a fixed layout).
func TestPairedStoredLayouts(t *testing.T) {
	const clusters, per = 12, 3
	results := layoutResults(t, noisetest.LayoutRun{Clusters: clusters, PerLayout: per, Layout: 0.03,
		Change: func(*rand.Rand, string, int) float64 { return math.Log(1.04) }}, 1)
	db := openDB(t)
	id := storeLayoutRun(t, db, results, per, []store.KV{{Key: "layout", Value: "link layouts: 12 random layouts per build"}})
	res, err := LoadPaired(context.Background(), db, id, "old", "new", analysis.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if res.Layout == nil || res.Layout.PerLayout != per || res.Layout.Layouts != clusters || len(res.Layout.Fixed) != 0 {
		t.Fatalf("Layout = %+v, want %d layouts of %d rounds, none fixed", res.Layout, clusters, per)
	}
	row := res.Rows[0]
	// The same estimate computed here from the stored values: each
	// cluster's median log-ratio, then the sign test over clusters.
	var lr []float64
	vals := map[string]map[int]float64{"old": {}, "new": {}}
	for _, r := range results {
		n := 0
		for _, c := range r.GetConfig("round") {
			n = 10*n + int(c-'0')
		}
		vals[r.GetConfig("config")][n] = r.Values[0].Value
	}
	for c := range clusters {
		var d []float64
		for r := c*per + 1; r <= (c+1)*per; r++ {
			d = append(d, math.Log(vals["new"][r])-math.Log(vals["old"][r]))
		}
		slices.Sort(d)
		lr = append(lr, d[len(d)/2])
	}
	want := analysis.PairedLogs(lr, res.Levels["sec/op"])
	if row.Ratio.N != clusters || math.Abs(row.Ratio.Ratio-want.Ratio) > 1e-9 || math.Abs(row.Ratio.Lo-want.Lo) > 1e-9 || math.Abs(row.Ratio.Hi-want.Hi) > 1e-9 {
		t.Errorf("row ratio %+v, want the clusters' %+v", row.Ratio, want)
	}
	if row.Layout == nil || row.Layout.Clusters != clusters {
		t.Errorf("layout column %+v, want a spread from %d clusters", row.Layout, clusters)
	}
}

// TestPairedFixedSide: a run that sampled layouts but whose new side kept
// one (a toolchain without -randlayout: the engine records
// layout-fixed-new) names that side, why, and from which round; a relink
// that failed mid-run names the round its default binary took over.
func TestPairedFixedSide(t *testing.T) {
	const why = "its toolchain's linker has no -randlayout (go1.22 and older)"
	for _, tc := range []struct {
		name string
		from int
	}{{"whole run", 1}, {"relink failed at round 10", 10}} {
		t.Run(tc.name, func(t *testing.T) {
			results := layoutResults(t, noisetest.LayoutRun{Clusters: 8, PerLayout: 3, Layout: 0.03, NewFixedFrom: tc.from}, 2)
			db := openDB(t)
			id := storeLayoutRun(t, db, results, 3, []store.KV{{Key: "layout-fixed-new", Value: why}, {Key: "layout-fixed-elsewhere", Value: "not compared"}})
			res, err := LoadPaired(context.Background(), db, id, "old", "new", analysis.DefaultOptions())
			if err != nil {
				t.Fatal(err)
			}
			if res.Layout == nil || len(res.Layout.Fixed) != 1 {
				t.Fatalf("Layout = %+v, want new named as fixed", res.Layout)
			}
			f := res.Layout.Fixed[0]
			if f.Config != "new" || f.Why != why || f.From != tc.from {
				t.Errorf("fixed = %+v, want new from round %d: %s", f, tc.from, why)
			}
			if got := res.Layout.OneBinary("new"); got != (tc.from == 1) {
				t.Errorf("OneBinary(new) = %v with a fixed layout from round %d", got, tc.from)
			}
			if res.Layout.OneBinary("old") {
				t.Error("old sampled layouts, but OneBinary(old)")
			}
		})
	}
	// A run without that record names no fixed side.
	results := layoutResults(t, noisetest.LayoutRun{Clusters: 8, PerLayout: 3}, 3)
	db := openDB(t)
	id := storeLayoutRun(t, db, results, 3, nil)
	res, err := LoadPaired(context.Background(), db, id, "old", "new", analysis.DefaultOptions())
	if err != nil || res.Layout == nil || len(res.Layout.Fixed) != 0 {
		t.Errorf("no layout-fixed record: Layout = %+v, %v", res.Layout, err)
	}
}

// TestPairedLayoutsAA: A/A comparisons of runs whose layouts serve
// several rounds (planted layout effect 5% a side, noise of several
// kinds) read the sampling from the stored plan and decide at most α of
// rows; taking the same rounds as independent decides more.
func TestPairedLayoutsAA(t *testing.T) {
	runs := 400
	if testing.Short() {
		runs = 100
	}
	for _, per := range []int{2, 4, 6} {
		for _, n := range []noisetest.Noise{noisetest.Gaussian(0.05), noisetest.Bursts(0.2, 0.02)} {
			plan := store.Plan{Mode: "quick", Rounds: 10 * per, Layout: &store.Layout{PerLayout: per}}
			opt := SamplingOf(&store.Run{Plan: plan}).Options(analysis.DefaultOptions())
			rng := rand.New(rand.NewPCG(uint64(per), 4))
			clustered, naive := 0, 0
			for range runs {
				text := noisetest.LayoutRun{Clusters: 10, PerLayout: per, Layout: 0.05, Noise: n}.Text(rng)
				rs, err := gotest.Parse(strings.NewReader(text), "run")
				if err != nil {
					t.Fatal(err)
				}
				if r := Paired(rs, "old", "new", opt, nil).Rows[0]; r.Signif {
					clustered++
				}
				if r := Paired(rs, "old", "new", analysis.DefaultOptions(), nil).Rows[0]; r.Signif {
					naive++
				}
			}
			rate, rateNaive := float64(clustered)/float64(runs), float64(naive)/float64(runs)
			t.Logf("%d a layout, %s: A/A decided %.1f%% over clusters, %.1f%% over rounds as if independent", per, n.Name, 100*rate, 100*rateNaive)
			if se := math.Sqrt(0.05 * 0.95 / float64(runs)); rate > 0.05+3*se {
				t.Errorf("%d a layout, %s: A/A decided %.1f%% of %d runs", per, n.Name, 100*rate, runs)
			}
		}
	}
}

// TestMedianWithinBandMinorityOfLayouts: a change that makes 20% of
// layouts 30% slower and leaves the rest alone has a median change of a
// fraction of a per cent (0.3 standard deviations of a cluster's
// log-ratio: here 1% noise a round, two rounds a layout) and a mean of
// +5%. With enough clusters its interval lies within ±1%, so the row is
// NoDifference — the median change within the band, which is what its
// words say (report's pairedVerdict), never that nothing changed.
func TestMedianWithinBandMinorityOfLayouts(t *testing.T) {
	row, lr := minorityOfLayouts(t)
	if m := math.Expm1(mean(lr)); m < 0.04 {
		t.Fatalf("the clusters' mean change is %+.1f%%, want about +5%%: the case is not planted", 100*m)
	}
	if row.Verdict != NoDifference || row.Ratio.Lo < 1/1.01 || row.Ratio.Hi > 1.01 {
		t.Fatalf("row = %+v (verdict %q), want the median's interval within ±1%%", row.Ratio, row.Verdict)
	}
	if strings.Contains(string(row.Verdict), "no difference") {
		t.Errorf("verdict %q says no difference", row.Verdict)
	}
	t.Logf("20%% of layouts 30%% slower: median %+.2f%% [%+.2f%%, %+.2f%%] over %d clusters, mean %+.1f%%: %q",
		100*(row.Ratio.Ratio-1), 100*(row.Ratio.Lo-1), 100*(row.Ratio.Hi-1), row.Ratio.N, 100*math.Expm1(mean(lr)), row.Verdict)
}

// minorityOfLayouts is the row of a run whose change makes 20% of
// layouts 30% slower, and its clusters' log-ratios.
func minorityOfLayouts(t *testing.T) (PairedRow, []float64) {
	const clusters, per = 40, 2
	results := layoutResults(t, noisetest.LayoutRun{Clusters: clusters, PerLayout: per, Noise: noisetest.Gaussian(0.01),
		Change: func(rng *rand.Rand, _ string, _ int) float64 {
			if rng.Float64() < 0.2 {
				return math.Log(1.3)
			}
			return 0
		}}, 5)
	opt := SamplingOf(&store.Run{Plan: store.Plan{Layout: &store.Layout{PerLayout: per}}}).Options(analysis.DefaultOptions())
	res := Paired(results, "old", "new", opt, nil)
	return res.Rows[0], opt.LogRatios(sampleMaps(results, "new"), sampleMaps(results, "old"))
}

// sampleMaps is config's first sample by round.
func sampleMaps(results []*benchfmt.Result, config string) map[int]float64 {
	for _, s := range analysis.Collect(results) {
		if s.Config == config {
			return s.ByRound()
		}
	}
	return nil
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}
