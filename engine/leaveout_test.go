package engine

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/store"
)

// TestCutRepetitions: when the initial pass does not fit, a group whose
// set-up outweighs its timed loops runs one repetition a process before
// anything is left out.
func TestCutRepetitions(t *testing.T) {
	ms := time.Millisecond
	cells := []plan.Cell{
		{Bench: "BenchmarkHeavy", Config: "old"}, {Bench: "BenchmarkHeavy", Config: "new"},
		{Bench: "BenchmarkLight", Config: "old"}, {Bench: "BenchmarkLight", Config: "new"},
	}
	// 13 rounds × (2 × 10.05s + 2 × 55ms) = 263s at five repetitions;
	// at one, 13 × (2 × 2.015s + 110ms) = 54s.
	r, progress := passAfterRound2(t, cells, []Item{{Cells: cells[:2]}, {Cells: cells[2:]}}, 100*time.Second)
	r.opt.Repeat = func(xs []float64) float64 { return xs[0] }
	s := r.seq
	secs := []float64{10e-6, 10e-6, 10e-6, 10e-6, 10e-6}
	iters := []int64{1000, 1000, 1000, 1000, 1000}
	walls := []time.Duration{10055 * ms, 10055 * ms, 55 * ms, 55 * ms}
	for ci, c := range cells {
		s.alloc.record(c.String(), 2, walls[ci], secs, iters)
	}
	if err := r.leaveOut(context.Background(), 2); err != nil {
		t.Fatal(err)
	}
	if len(r.left) != 0 {
		t.Errorf("left out %v", r.left)
	}
	if s.alloc.repeatsOf("BenchmarkHeavy @old") != 1 || s.alloc.repeatsOf("BenchmarkLight @old") != repeats {
		t.Errorf("repetitions heavy %d light %d", s.alloc.repeatsOf("BenchmarkHeavy @old"), s.alloc.repeatsOf("BenchmarkLight @old"))
	}
	if !strings.Contains(progress.String(), "2 cells whose set-up costs more than their timed loop (BenchmarkHeavy) run one repetition a process from round 3") {
		t.Errorf("progress: %s", progress.String())
	}
}

// TestLeaveOut: after round 2 of a 15-round initial pass, the remaining
// 13 rounds of every cell cost more than the budget left; the comparisons
// whose rounds cost most are left out, as few as make the rest fit, and
// recorded as skipped with the reason. When the rest fits, or even the
// cheapest comparison alone does not, nothing is left out.
func TestLeaveOut(t *testing.T) {
	ms := time.Millisecond
	cells := []plan.Cell{
		{Bench: "BenchmarkHeavy", Config: "old"}, {Bench: "BenchmarkHeavy", Config: "new"},
		{Bench: "BenchmarkMid", Config: "old"}, {Bench: "BenchmarkMid", Config: "new"},
		{Bench: "BenchmarkLight", Config: "old"}, {Bench: "BenchmarkLight", Config: "new"},
	}
	cost := []time.Duration{1000 * ms, 1000 * ms, 100 * ms, 100 * ms, 10 * ms, 10 * ms}
	var items []Item
	for i := 0; i < len(cells); i += 2 {
		items = append(items, Item{Cells: cells[i : i+2]})
	}
	for _, tc := range []struct {
		name      string
		remaining time.Duration
		left      []string
	}{
		// 13 rounds × 2.22s = 28.9s of the whole round.
		{"everything fits", 30 * time.Second, nil},
		// Without Heavy: 13 × 220ms = 2.9s.
		{"the dearest goes", 5 * time.Second, []string{"BenchmarkHeavy @old", "BenchmarkHeavy @new"}},
		// Without Heavy and Mid: 13 × 20ms = 0.26s.
		{"two go", time.Second, []string{"BenchmarkHeavy @old", "BenchmarkHeavy @new", "BenchmarkMid @old", "BenchmarkMid @new"}},
		{"not even the cheapest fits", 100 * ms, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, progress := passAfterRound2(t, cells, items, tc.remaining)
			db := r.opt.DB
			for ci, c := range cost {
				r.timeCell(ci, c)
			}
			if err := r.leaveOut(context.Background(), 2); err != nil {
				t.Fatal(err)
			}
			var left []string
			for ci := range cells {
				if r.left[ci] {
					left = append(left, cells[ci].String())
				}
			}
			if strings.Join(left, ",") != strings.Join(tc.left, ",") {
				t.Errorf("left out %v, want %v\n%s", left, tc.left, progress.String())
			}
			fails, err := db.Failures(context.Background(), r.runID)
			if err != nil {
				t.Fatal(err)
			}
			if len(fails) != len(tc.left) {
				t.Fatalf("%d rows recorded, want %d", len(fails), len(tc.left))
			}
			for _, f := range fails {
				if !f.Skip || f.Round != 3 || !f.LeftOut() || !strings.Contains(f.Reason, store.LeftOutPrefix+"2:") || !strings.Contains(f.Reason, "a budget of about") {
					t.Errorf("row %+v", f)
				}
			}
			if len(tc.left) > 0 && !strings.Contains(progress.String(), "no more, so that the other") {
				t.Errorf("progress: %s", progress.String())
			}
			open := r.withoutLeft([]int{0, 1, 2, 3, 4, 5})
			if len(open) != 6-len(tc.left) {
				t.Errorf("open cells %v", open)
			}
		})
	}
}

// passAfterRound2 is a sequential run of cells with a 15-round initial
// pass and an hour's budget of which remaining is left, after its round
// 2, its groups set from items.
func passAfterRound2(t *testing.T, cells []plan.Cell, items []Item, remaining time.Duration) (*rounds, *bytes.Buffer) {
	t.Helper()
	db := openStore(t)
	run := &store.Run{Experiment: "x", Mode: "quick"}
	if _, err := db.CreateRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	s := &sequential{budget: time.Hour, alloc: newAllocation(), start: time.Now().Add(-(time.Hour - remaining))}
	s.alloc.setGroups(items)
	bins := map[string]string{slot(cells[0]): "old.test", slot(cells[1]): "new.test"}
	var progress bytes.Buffer
	return &rounds{opt: Options{DB: db, NoProfile: true}, plan: &plan.Plan{Cells: cells, Rounds: 15}, bins: bins,
		runID: run.ID, progress: &progress, seq: s}, &progress
}
