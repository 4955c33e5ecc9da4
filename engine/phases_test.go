package engine

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/store"
)

// layoutJudge is a scriptJudge that also chooses the rounds per layout
// (LayoutChooser), recording what it was asked.
type layoutJudge struct {
	*scriptJudge
	per   int // what it chose
	costs []LayoutCosts
}

// ChoosePerLayout chooses 3 rounds a layout, or 4 when the initial pass
// served 3: always a change, which starts a phase; asked again, the same.
func (j *layoutJudge) ChoosePerLayout(_ context.Context, _ int64, c LayoutCosts) (int, string, error) {
	j.costs = append(j.costs, c)
	if j.per != 0 {
		return j.per, "chosen by the test", nil
	}
	j.per = 3
	if c.Per == 3 {
		j.per = 4
	}
	return j.per, "chosen by the test", nil
}

// TestLayoutPhases: a sequential run that relinks layouts serves 2 rounds a
// layout in its initial pass, asks its judge once, after it, for the rounds
// per layout from then on (3, or 4), records that phase in its plan, and
// looks only where a cluster ends. Every stored round's layout seeds agree
// with the plan's clusters, read from the results alone: within a cluster
// each side keeps one seed, and no two clusters share one.
func TestLayoutPhases(t *testing.T) {
	if testing.Short() {
		t.Skip("builds, relinks and runs test binaries")
	}
	db := openStore(t)
	open := []plan.Cell{{Bench: "BenchmarkWork", Levels: []string{"variant=b", "n=16"}, Config: "default"},
		{Bench: "BenchmarkWork", Levels: []string{"variant=a", "n=16"}, Config: "default"}}
	j := &layoutJudge{scriptJudge: &scriptJudge{db: db, initial: 3, sequential: func(int) Status {
		return Status{Items: []Item{{Label: "T1 check 1", Cells: open, More: 40, Line: "open"}}}
	}}}
	var progress bytes.Buffer
	// The rounds a layout serves in the initial pass follow from what a
	// link costs against a round (2–8); the run is long enough for the
	// initial pass at 8 and three clusters of 3 after it.
	res, err := Run(context.Background(), Options{
		Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(), Seed: 3, NoiseRuns: 2, Cells: open,
		Progress: &progress, MaxRounds: 3*maxPerLayout + 12, NoProfile: true, Layout: LayoutRandom, Judge: j, Repeat: analysis.RepeatEstimate,
	})
	out := progress.String()
	if err != nil || res.Status != "complete" {
		t.Fatalf("Run: %v %+v\n%s", err, res, out)
	}
	run, err := db.GetRun(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	l := run.Plan.Layout
	if l == nil || l.PerLayout < minPerLayout {
		t.Fatalf("plan layout %+v, want %d or more rounds a layout in the initial pass", l, minPerLayout)
	}
	p0 := l.PerLayout
	initial := 3 * p0 // the judge's 3 observations, a layout each
	if len(l.Phases) != 2 || l.Phases[0] != (store.LayoutPhase{From: 1, Per: p0}) || l.Phases[1] != (store.LayoutPhase{From: initial + 1, Per: j.per}) {
		t.Fatalf("plan layout %+v, want %d a layout for the initial %d rounds, then %d", l, p0, initial, j.per)
	}
	// Asked after the initial pass, then each time the rounds double.
	if len(j.costs) != 2 || j.costs[0].Per != p0 || j.costs[0].Link <= 0 || j.costs[0].Round <= 0 || j.costs[1].Per != j.per {
		t.Errorf("the judge was asked %+v, want after the initial pass (at %d rounds a layout) and once more when the rounds doubled, with the costs it weighs", j.costs, p0)
	}
	if !strings.Contains(out, "a fresh one every "+strconv.Itoa(j.per)+" rounds from round "+strconv.Itoa(initial+1)+" on: chosen by the test") {
		t.Errorf("progress does not say the choice:\n%s", out)
	}
	// Looks: round 2 (the groups of compared cells), the end of the
	// initial pass, then the end of each cluster of j.per rounds, up to
	// the most rounds, where it stops.
	var want []int
	for r := initial; r <= 3*maxPerLayout+12; r += j.per {
		want = append(want, r)
	}
	if last := 3*maxPerLayout + 12; want[len(want)-1] != last {
		want = append(want, last) // a last, partial cluster: the run stops at its most rounds
	}
	if want = append([]int{2}, want...); !slices.Equal(j.asked, want) || res.RoundsDone != want[len(want)-1] {
		t.Errorf("%d rounds; the judge was asked after rounds %v, want %v (cluster ends only)\n%s", res.RoundsDone, j.asked, want, out)
	}
	results, err := db.Results(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	seeds := map[int]map[string]string{} // round → config → seed
	for _, r := range results {
		round, _ := strconv.Atoi(r.GetConfig("round"))
		cfg, seed := r.GetConfig("config"), r.GetConfig("layout")
		if seed == "" {
			t.Fatalf("round %d of %s carries no layout", round, cfg)
		}
		if seeds[round] == nil {
			seeds[round] = map[string]string{}
		}
		if prev, ok := seeds[round][cfg]; ok && prev != seed {
			t.Fatalf("round %d: %s ran two layouts (%s, %s)", round, cfg, prev, seed)
		}
		seeds[round][cfg] = seed
	}
	of := run.Plan.ClusterOf()
	seen := map[string]int{} // config+seed → cluster
	for round, bySide := range seeds {
		for cfg, seed := range bySide {
			k := cfg + "/" + seed
			if c, ok := seen[k]; ok && c != of(round) {
				t.Errorf("%s's layout %s serves clusters %d and %d", cfg, seed, c, of(round))
			}
			seen[k] = of(round)
		}
	}
	for r := 1; r < res.RoundsDone; r++ {
		same := of(r) == of(r+1)
		for cfg, seed := range seeds[r] {
			if next, ok := seeds[r+1][cfg]; ok && (next == seed) != same {
				t.Errorf("rounds %d and %d: %s's seeds %s, %s, but the plan's clusters %d, %d", r, r+1, cfg, seed, next, of(r), of(r+1))
			}
		}
	}
}
