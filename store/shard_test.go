package store

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/internal/pgtest"
)

func TestJoinRun(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	base := Run{Experiment: "e", Mode: "quick", SpecText: "spec", Seed: 7, RoundsPlanned: 4, Plan: Plan{Mode: "quick"}}

	// Concurrent shards: exactly one creates the run, all get its id.
	var wg sync.WaitGroup
	ids := make([]int64, 6)
	created := make([]bool, 6)
	errs := make([]error, 6)
	for i := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := base
			created[i], errs[i] = db.JoinRun(ctx, &r, "key-1", 3)
			ids[i] = r.ID
		}()
	}
	wg.Wait()
	n := 0
	for i := range ids {
		if errs[i] != nil {
			t.Fatalf("JoinRun %d: %v", i, errs[i])
		}
		if ids[i] != ids[0] {
			t.Errorf("JoinRun %d got run %d, want %d", i, ids[i], ids[0])
		}
		if created[i] {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d JoinRun calls created the run, want 1", n)
	}
	if key, shards, err := db.RunKey(ctx, ids[0]); err != nil || key != "key-1" || shards != 3 {
		t.Errorf("RunKey = %q, %d, %v", key, shards, err)
	}
	// Owned by no one process: the creating shard's end leaves it running.
	owned := base
	owned.Owner = Owner{Host: "gone", PID: 1 << 30, Start: "x"}
	if _, err := db.JoinRun(ctx, &owned, "key-2", 2); err != nil {
		t.Fatal(err)
	}
	if got, err := db.GetRun(ctx, owned.ID); err != nil || got.Owner != (Owner{}) || got.State() != "running" {
		t.Errorf("sharded run: owner %+v, state %s (%v); want no owner, running", got.Owner, got.State(), err)
	}

	for _, tc := range []struct {
		name   string
		change func(*Run)
		shards int
	}{
		{"spec", func(r *Run) { r.SpecText = "other" }, 3},
		{"seed", func(r *Run) { r.Seed = 8 }, 3},
		{"plan", func(r *Run) { r.Plan = Plan{Mode: "full"} }, 3},
		{"shards", func(*Run) {}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base
			tc.change(&r)
			if _, err := db.JoinRun(ctx, &r, "key-1", tc.shards); !errors.Is(err, ErrRunMismatch) {
				t.Errorf("JoinRun with another %s: %v, want ErrRunMismatch", tc.name, err)
			}
		})
	}

	m := Machine{Shard: 2, HostID: "host-b", CPUModel: "cpu x", Cores: 16}
	if err := db.AddRoundOn(ctx, ids[0], 2, m, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.AddRoundOn(ctx, ids[0], 2, Machine{Shard: 3}, nil); !errors.Is(err, ErrRoundExists) {
		t.Errorf("second round 2: %v, want ErrRoundExists", err)
	}
	rounds, err := db.Rounds(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(rounds) != 1 || rounds[0].Round != 2 || rounds[0].Machine != m {
		t.Errorf("Rounds = %+v, want round 2 on %+v", rounds, m)
	}
}

// TestJoinRunAgreement: a shard joins a run whose plan recorded what it
// chose as it went, and one that keeps its sources elsewhere; it is refused
// when its identifying environment or its benchmarks differ, with the
// difference named.
func TestJoinRunAgreement(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	cells := []Cell{{Bench: "BenchmarkA", Config: "old"}, {Bench: "BenchmarkA", Config: "new"}}
	base := func() Run {
		return Run{Experiment: "e", Mode: "quick", SpecText: "spec", Seed: 7, RoundsPlanned: 4,
			Plan: Plan{Mode: "quick", Cells: cells, Sources: map[string]string{"old": "/a/old"}, Decide: &Decide{Unit: "sec/op", MaxRounds: 100}, Shards: 2}}
	}
	env := []KV{{Key: "ab-old", Value: "aaa v1"}, {Key: "ab-new", Value: "bbb v2"}}
	first := base()
	if created, err := db.JoinRun(ctx, &first, "k", 2, env...); err != nil || !created {
		t.Fatalf("JoinRun: %v, created %v", err, created)
	}
	if got, err := db.Env(ctx, first.ID); err != nil || len(got) != 2 || got[1] != env[1] {
		t.Errorf("env recorded with the run = %+v (%v), want %+v", got, err, env)
	}
	if err := db.SetChosenRepeats(ctx, first.ID, map[int]int{1: 2}); err != nil {
		t.Fatal(err)
	}
	later := base()
	later.Plan.Sources = map[string]string{"old": "/b/old"}
	if created, err := db.JoinRun(ctx, &later, "k", 2, env...); err != nil || created || later.ID != first.ID {
		t.Errorf("a shard joining after the run chose repetitions: created %v, id %d, %v; want it joined run %d", created, later.ID, err, first.ID)
	}
	for _, tc := range []struct {
		name   string
		change func(*Run, []KV)
		want   string
	}{
		{"side", func(_ *Run, e []KV) { e[1].Value = "ccc v3" }, `its ab-new is "bbb v2", this shard's "ccc v3"`},
		{"benchmarks", func(r *Run, _ []KV) {
			r.Plan.Cells = []Cell{{Bench: "BenchmarkB", Config: "old"}, {Bench: "BenchmarkA", Config: "new"}}
		},
			"only the stored run has BenchmarkA@old; only this shard has BenchmarkB@old"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, e := base(), slices.Clone(env)
			tc.change(&r, e)
			_, err := db.JoinRun(ctx, &r, "k", 2, e...)
			if !errors.Is(err, ErrRunMismatch) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("JoinRun: %v, want ErrRunMismatch naming %q", err, tc.want)
			}
		})
	}
	if err := db.SetShardStop(ctx, first.ID, 2, Stop{Round: 8, Reason: StopDecided, Elapsed: 1500 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	stops, err := db.ShardStops(ctx, first.ID, 2)
	if err != nil || len(stops) != 1 || stops[2].Round != 8 || stops[2].Reason != StopDecided || stops[2].Elapsed != 1500*time.Millisecond {
		t.Errorf("ShardStops = %+v, %v", stops, err)
	}
}

// TestShardsMigrateAtOnce: shards that open one fresh PostgreSQL database
// at the same moment migrate it one at a time, and all open it.
func TestShardsMigrateAtOnce(t *testing.T) {
	c := pgtest.ForTest(t)
	for try := range 5 {
		dsn := c.NewDatabaseT(t)
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i := range errs {
			wg.Go(func() {
				db, err := Open(dsn)
				if err == nil {
					db.Close()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Fatalf("try %d, shard %d: %v", try, i+1, err)
			}
		}
	}
}
