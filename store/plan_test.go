package store

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"
)

// TestOldNotes reads plans stored as notes by earlier versions, written
// into the note column by hand: each reads as the Plan it described, and
// a note that is no plan reads as none.
func TestOldNotes(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	tests := []struct {
		name, note string
		want       Plan
	}{
		{"fixed run of a spec", `{"mode":"quick","rounds":6,"benchtime":"20ms","cpu":[2]}`,
			Plan{Mode: "quick", Rounds: 6, Benchtime: "20ms", CPU: []int{2}}},
		{"bench with explicit cells", `{"mode":"quick","rounds":6,"benchtime":"100ms","no_profile":true,"cells":[{"Bench":"BenchmarkWork","Levels":["v=a"],"Config":"default"}],"measure":"instructions"}`,
			Plan{Mode: "quick", Rounds: 6, Benchtime: "100ms", NoProfile: true, Cells: []Cell{{Bench: "BenchmarkWork", Levels: []string{"v=a"}, Config: "default"}}, Measure: "instructions"}},
		{"ab with sources, sequential", `{"mode":"quick","rounds":8,"benchtime":"100ms","sources":{"new":"/b","old":"/a"},"sequential":true}`,
			Plan{Mode: "quick", Rounds: 8, Benchtime: "100ms", Sources: map[string]string{"old": "/a", "new": "/b"}, Sequential: true}},
		{"two looks", `{"mode":"quick","rounds":6,"benchtime":"20ms","first_look":6}`,
			Plan{Mode: "quick", Rounds: 6, Benchtime: "20ms", FirstLook: 6}},
		{"no plan", ``, Plan{}},
		{"free text", `planted regression`, Plan{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := newRun(t, db, tc.name)
			if _, err := db.sql.ExecContext(ctx, `UPDATE runs SET note = ? WHERE id = ?`, tc.note, id); err != nil {
				t.Fatal(err)
			}
			r, err := db.GetRun(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(r.Plan, tc.want) {
				t.Errorf("Plan of note %s = %+v, want %+v", tc.note, r.Plan, tc.want)
			}
		})
	}
}

// TestSetStop records how a sequential run stopped; the rest of its plan
// is unchanged, and a run that does not exist is an error.
func TestSetStop(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	r := &Run{Experiment: "seq", Mode: "quick", Plan: Plan{Mode: "quick", Rounds: 8, Sequential: true, Decide: &Decide{Unit: "sec/op", MaxRounds: 40}}}
	if _, err := db.CreateRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	stop := Stop{Round: 23, Reason: StopBudget, Elapsed: 61*time.Second + time.Millisecond, CellCost: 120 * time.Millisecond}
	if err := db.SetStop(ctx, r.ID, stop); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetRun(ctx, r.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := r.Plan
	want.Stop = stop
	if !reflect.DeepEqual(got.Plan, want) {
		t.Errorf("Plan after SetStop = %+v, want %+v", got.Plan, want)
	}
	if err := db.SetStop(ctx, r.ID+100, stop); !errors.Is(err, ErrNotFound) {
		t.Errorf("SetStop of a missing run: %v, want ErrNotFound", err)
	}
}

// TestRoundNoise stores rounds with and without the noise measured before
// them; an unreadable load average reads back as NaN.
func TestRoundNoise(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	id := newRun(t, db, "noise")
	one := []*benchfmt.Result{{Name: benchfmt.Name("X"), Iters: 1, Values: []benchfmt.Value{{Value: 1, Unit: "sec/op"}}}}
	infos := []RoundInfo{
		{Round: 1},
		{Round: 2, Noise: &Noise{CV: 0.031, Load: 1.25}},
		{Round: 3, Machine: Machine{Shard: 1, HostID: "h", CPUModel: "c", Cores: 2}, Noise: &Noise{CV: 0.2, Load: math.NaN()}},
	}
	for _, ri := range infos {
		if err := db.AddRoundInfo(ctx, id, ri, one); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.Rounds(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(infos) {
		t.Fatalf("Rounds = %+v, want %d rounds", got, len(infos))
	}
	for i, g := range got {
		w := infos[i]
		if g.Round != w.Round || g.Machine != w.Machine || (g.Noise == nil) != (w.Noise == nil) {
			t.Errorf("round %d = %+v, want %+v", w.Round, g, w)
			continue
		}
		if w.Noise == nil {
			continue
		}
		if g.Noise.CV != w.Noise.CV || !(g.Noise.Load == w.Noise.Load || math.IsNaN(g.Noise.Load) && math.IsNaN(w.Noise.Load)) {
			t.Errorf("round %d noise = %+v, want %+v", w.Round, *g.Noise, *w.Noise)
		}
	}
}

// TestMigrateFromVersion4 opens a database written at schema version 4:
// failures that earlier versions marked "skipped: " read as skips without
// the prefix, other failures are unchanged, the old plan note reads as
// its Plan, and the old rounds have no noise.
func TestMigrateFromVersion4(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v4.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	stmts := append([]string{}, migrations[:4]...)
	stmts = append(stmts,
		`INSERT INTO meta(key, value) VALUES ('schema_version', '4')`,
		`INSERT INTO runs(id, experiment, mode, spec_path, spec_text, seed, rounds_planned, status, started_at, finished_at, note)
		 VALUES (1, 'old', 'quick', '', '', 1, 8, 'complete', '2026-01-01T00:00:00.000000000Z', NULL, '{"mode":"quick","rounds":8,"benchtime":"100ms","sequential":true}')`,
		`INSERT INTO rounds(run_id, round, done_at) VALUES (1, 1, '2026-01-01T00:00:01.000000000Z')`,
		`INSERT INTO failures(run_id, round, config, cell, reason) VALUES (1, 1, 'default', 'BenchmarkA', 'skipped: needs GOEXPERIMENT=arenas')`,
		`INSERT INTO failures(run_id, round, config, cell, reason) VALUES (1, 2, 'default', 'BenchmarkB', 'exit status 2: skipped: is not a prefix here')`,
	)
	for _, q := range stmts {
		if _, err := raw.Exec(q); err != nil {
			raw.Close()
			t.Fatalf("building a version-4 database: %v", err)
		}
	}
	raw.Close()
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open of a version-4 database: %v", err)
	}
	defer db.Close()
	ctx := context.Background()
	fails, err := db.Failures(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []Failure{
		{Round: 1, Config: "default", Cell: "BenchmarkA", Reason: "needs GOEXPERIMENT=arenas", Skip: true},
		{Round: 2, Config: "default", Cell: "BenchmarkB", Reason: "exit status 2: skipped: is not a prefix here"},
	}
	if !reflect.DeepEqual(fails, want) {
		t.Errorf("failures after migration = %+v, want %+v", fails, want)
	}
	r, err := db.GetRun(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Plan; p.Mode != "quick" || p.Rounds != 8 || !p.Sequential || p.Decide != nil || p.Stop != (Stop{}) {
		t.Errorf("old run's plan = %+v, want a sequential quick plan of 8 rounds without a stop", p)
	}
	rounds, err := db.Rounds(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 1 || rounds[0].Noise != nil {
		t.Errorf("old rounds = %+v, want one round without noise", rounds)
	}
}

func TestLayoutClusters(t *testing.T) {
	for _, tc := range []struct {
		name   string
		plan   Plan
		rounds []int
		want   []int // cluster of each round; nil for a nil ClusterOf
	}{
		{"fixed layout", Plan{}, nil, nil},
		{"a layout a round", Plan{Layout: &Layout{PerLayout: 1}}, nil, nil},
		{"blocks of two", Plan{Layout: &Layout{PerLayout: 2}}, []int{1, 2, 3, 4, 5}, []int{1, 1, 2, 2, 3}},
		{"old plan with one phase", Plan{Layout: &Layout{PerLayout: 3, Phases: []LayoutPhase{{From: 1, Per: 3}}}},
			[]int{1, 3, 4, 6, 7}, []int{1, 1, 2, 2, 3}},
		{"two, then one a layout", Plan{Layout: &Layout{PerLayout: 2, Phases: []LayoutPhase{{From: 1, Per: 2}, {From: 5, Per: 1}}}},
			[]int{1, 2, 3, 4, 5, 6, 7}, []int{1, 1, 2, 2, 3, 4, 5}},
		{"one, then four a layout", Plan{Layout: &Layout{PerLayout: 1, Phases: []LayoutPhase{{From: 1, Per: 1}, {From: 3, Per: 4}}}},
			[]int{1, 2, 3, 6, 7, 10}, []int{1, 2, 3, 3, 4, 4}},
		{"two shards, blocks of two", Plan{Shards: 2, Layout: &Layout{PerLayout: 2}},
			[]int{1, 2, 3, 4, 5, 6}, []int{1, 2, 1, 2, 3, 4}},
		{"three shards, blocks of two", Plan{Shards: 3, Layout: &Layout{PerLayout: 2}},
			[]int{1, 4, 2, 5, 7, 8}, []int{1, 1, 2, 2, 4, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.plan.ClusterOf()
			if tc.want == nil {
				if f != nil {
					t.Fatalf("ClusterOf is not nil: every round should be its own unit")
				}
				return
			}
			for i, r := range tc.rounds {
				if got := f(r); got != tc.want[i] {
					t.Errorf("round %d: cluster %d, want %d", r, got, tc.want[i])
				}
			}
		})
	}
}

func TestLayoutPer(t *testing.T) {
	l := &Layout{PerLayout: 2, Phases: []LayoutPhase{{From: 1, Per: 2}, {From: 9, Per: 5}}}
	for j, want := range map[int]int{1: 2, 8: 2, 9: 5, 40: 5} {
		if got := l.Per(j); got != want {
			t.Errorf("Per(%d) = %d, want %d", j, got, want)
		}
	}
	if got := (*Layout)(nil).Per(3); got != 1 {
		t.Errorf("nil layout: Per = %d, want 1", got)
	}
}
