package engine

import (
	"bytes"
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/store"
)

// TestFollowUpRounds runs the tiny experiment under a judge whose first
// look leaves two checks open: after the 6 planned rounds their four
// cells (and only they) run follow-up rounds, and the run is marked for
// two looks. A first look that decides everything runs none; with
// NoFollowUp, or a spec without counted checks (Rules.FirstLook false),
// the run stops at 6 rounds and is judged once.
func TestFollowUpRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	ctx := context.Background()
	db := openStore(t)
	s := tinySpec(t)
	cells := func(n string) []plan.Cell {
		return []plan.Cell{{Bench: "BenchmarkWork", Levels: []string{"variant=a", "n=" + n}, Config: "default"},
			{Bench: "BenchmarkWork", Levels: []string{"variant=b", "n=" + n}, Config: "default"}}
	}
	open := true
	j := &scriptJudge{db: db, firstLook: true, first: func(rounds int) Status {
		if rounds != 6 {
			t.Errorf("first look after %d rounds, want 6", rounds)
		}
		return Status{Items: []Item{
			{Label: "T1.1", Decided: true},
			{Label: "T3.1", Cells: cells("4"), Decided: !open, More: -1},
			{Label: "T3.2", Cells: cells("16"), Decided: !open, More: -1},
		}}
	}}
	run := func(noFollowUp bool) (*Result, store.Plan, string) {
		var progress bytes.Buffer
		res, err := Run(ctx, Options{
			Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
			Seed: 1, NoiseRuns: 3, Progress: &progress, NoProfile: true, NoFollowUp: noFollowUp, Judge: j,
		})
		if err != nil {
			t.Fatalf("Run: %v\n%s", err, progress.String())
		}
		r, err := db.GetRun(ctx, res.RunID)
		if err != nil {
			t.Fatal(err)
		}
		return res, r.Plan, progress.String()
	}

	res, p, out := run(false)
	// Each check gets its own number of rounds (its cells cost differently:
	// n=4 and n=16), so the line names both without fixing the numbers.
	line := regexp.MustCompile(`first look after 6 rounds: 2 of 3 testable counted checks undecided; follow-up rounds within [^:]+: [0-9]+ for [^\n]*`).FindString(out)
	if !strings.Contains(line, "T3.1") || !strings.Contains(line, "T3.2") {
		t.Fatalf("progress does not report the first look leaving T3.1 and T3.2 open:\n%s", out)
	}
	if res.Status != "complete" || res.RoundsDone <= 6 || res.RoundsDone > 6+followUpFactor*6 || res.RoundsTotal != res.RoundsDone {
		t.Fatalf("result = %+v, want a complete run of 7 to %d rounds\n%s", res, 6+followUpFactor*6, out)
	}
	if p.FirstLook != 6 {
		t.Fatalf("stored first look = %d, want 6 (plan %+v)", p.FirstLook, p)
	}
	results, err := db.Results(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		round := r.GetConfig("round")
		if len(round) == 1 && round[0] >= '1' && round[0] <= '6' {
			continue
		}
		if name := string(r.Name.Full()); r.GetConfig("config") != "default" || !strings.Contains(name+"-", "/n=4-") && !strings.Contains(name+"-", "/n=16-") {
			t.Errorf("follow-up round %s ran %s @%s, which no open check reads", round, name, r.GetConfig("config"))
		}
	}

	open = false
	res, p, out = run(false)
	if res.RoundsDone != 6 || p.FirstLook != 6 || !strings.Contains(out, "first look after 6 rounds: all 3 testable counted checks decided; no follow-up rounds") {
		t.Errorf("first look deciding all: %d rounds, first look %d; want 6 rounds and no follow-up rounds\n%s", res.RoundsDone, p.FirstLook, out)
	}

	open = true
	res, p, out = run(true)
	if res.RoundsDone != 6 || p.FirstLook != 0 || strings.Contains(out, "first look") {
		t.Errorf("NoFollowUp: %d rounds, first look %d; want exactly 6 rounds judged once\n%s", res.RoundsDone, p.FirstLook, out)
	}
	j.firstLook = false
	res, p, out = run(false)
	if res.RoundsDone != 6 || p.FirstLook != 0 || strings.Contains(out, "first look") {
		t.Errorf("no counted checks: %d rounds, first look %d; want exactly 6 rounds judged once\n%s", res.RoundsDone, p.FirstLook, out)
	}
}

// TestFollowUpAllowance checks the allowance: a fifth of the planned
// rounds' time, at least followUpFloor, and never more than the planned
// rounds took themselves.
func TestFollowUpAllowance(t *testing.T) {
	for _, tt := range []struct{ planned, want time.Duration }{
		{10 * time.Minute, 2 * time.Minute},
		{100 * time.Second, 30 * time.Second},
		{44 * time.Second, 30 * time.Second},
		{200 * time.Second, 40 * time.Second},
		{5 * time.Second, 5 * time.Second},
		{0, 0},
	} {
		if got := followUpAllowance(tt.planned); got != tt.want {
			t.Errorf("followUpAllowance(%s) = %s, want %s", tt.planned, got, tt.want)
		}
	}
}

// TestAllot checks how follow-up rounds are shared among open checks:
// max-min fair within the allowance, a shared cell paid for once, a check
// whose cells have no measured cost left out, and never more than most.
func TestAllot(t *testing.T) {
	const ms = time.Millisecond
	tests := []struct {
		name      string
		checks    [][]int
		cost      map[int]time.Duration
		allowance time.Duration
		most      int
		rounds    []int
		cell      map[int]int
	}{
		{"one cheap check stops at most", [][]int{{0, 1}}, map[int]time.Duration{0: ms, 1: ms}, time.Second, 12,
			[]int{12}, map[int]int{0: 12, 1: 12}},
		// A crossover over 8 cells of 600 ms and a ratio inside one 1 s cell:
		// one shared count would give both a single round; the cheap check
		// takes what the expensive one cannot use.
		{"an expensive check does not hold a cheap one", [][]int{{0, 1, 2, 3, 4, 5, 6, 7}, {8}},
			map[int]time.Duration{0: 600 * ms, 1: 600 * ms, 2: 600 * ms, 3: 600 * ms, 4: 600 * ms, 5: 600 * ms, 6: 600 * ms, 7: 600 * ms, 8: time.Second},
			10 * time.Second, 12, []int{1, 5}, map[int]int{0: 1, 1: 1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 5}},
		{"equal costs share evenly", [][]int{{0}, {1}, {2}}, map[int]time.Duration{0: ms, 1: ms, 2: ms}, 7 * ms, 12,
			[]int{3, 2, 2}, map[int]int{0: 3, 1: 2, 2: 2}},
		{"a cell read by two checks is paid once", [][]int{{0}, {0, 1}}, map[int]time.Duration{0: time.Second, 1: time.Second}, 6 * time.Second, 12,
			[]int{3, 3}, map[int]int{0: 3, 1: 3}},
		{"a cell of unknown cost leaves its check out", [][]int{{0, 1}, {2}}, map[int]time.Duration{0: ms, 2: ms}, time.Second, 4,
			[]int{0, 4}, map[int]int{2: 4}},
		{"nothing fits the allowance", [][]int{{0}, {1}}, map[int]time.Duration{0: time.Second, 1: time.Second}, 500 * ms, 12,
			[]int{0, 0}, map[int]int{}},
		{"no rounds allowed", [][]int{{0}}, map[int]time.Duration{0: ms}, time.Second, 0, []int{0}, map[int]int{}},
		{"no checks", nil, nil, time.Second, 12, []int{}, map[int]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rounds, cell := allot(tt.checks, tt.cost, tt.allowance, tt.most)
			if !slices.Equal(rounds, tt.rounds) || !maps.Equal(cell, tt.cell) {
				t.Errorf("allot = %v, %v; want %v, %v", rounds, cell, tt.rounds, tt.cell)
			}
			var spent time.Duration
			for ci, k := range cell {
				spent += time.Duration(k) * tt.cost[ci]
			}
			if spent > tt.allowance {
				t.Errorf("the allotted rounds cost %s, over the allowance %s", spent, tt.allowance)
			}
		})
	}
}
