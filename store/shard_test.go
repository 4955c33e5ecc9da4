package store

import (
	"context"
	"errors"
	"sync"
	"testing"
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
