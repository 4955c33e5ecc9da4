package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/store"
)

// shardOption checks --shard and --run-key and returns the engine's shard,
// or nil for a run of one process.
func (f *runFlags) shardOption(specs int) (*engine.Shard, error) {
	if f.shard == "" && f.runKey == "" {
		return nil, nil
	}
	if f.shard == "" || f.runKey == "" {
		return nil, errors.New("--shard K/N and --run-key KEY go together: every shard of one run passes the same key")
	}
	if specs != 1 {
		return nil, errors.New("--shard runs the shard of one experiment; name exactly one experiment or spec")
	}
	if f.budget > 0 {
		return nil, errors.New("--budget fits rounds to one machine's timing, so shards could plan differently; pass --rounds and --benchtime instead")
	}
	if f.seq.precision > 0 || f.seq.maxRounds > 0 || f.seq.unit == engine.UnitCPU {
		return nil, errors.New("--precision, --max-rounds and --unit cpu-sec/op decide rounds as results arrive on one machine; shards run a fixed plan: pass --rounds and --benchtime instead")
	}
	k, n, err := engine.ParseShard(f.shard)
	if err != nil {
		return nil, err
	}
	return &engine.Shard{K: k, N: n, Key: f.runKey}, nil
}

// shardProgress writes, for a sharded run, one line with each shard's
// stored rounds and the rounds still missing; nothing for other runs.
func shardProgress(ctx context.Context, w io.Writer, db *store.DB, r store.Run) {
	key, n, err := db.RunKey(ctx, r.ID)
	if err != nil || n == 0 {
		return
	}
	rounds, err := db.Rounds(ctx, r.ID)
	if err != nil {
		return
	}
	stored := map[int]bool{}
	perShard := make([]int, n+1)
	machines := map[string]bool{}
	for _, ri := range rounds {
		stored[ri.Round] = true
		if ri.Machine.Shard >= 1 && ri.Machine.Shard <= n {
			perShard[ri.Machine.Shard]++
		}
		machines[ri.Machine.HostID] = true
	}
	var parts []string
	for k := 1; k <= n; k++ {
		planned := 0
		for round := k; round <= r.RoundsPlanned; round += n {
			planned++
		}
		parts = append(parts, fmt.Sprintf("%d/%d: %d/%d", k, n, perShard[k], planned))
	}
	fmt.Fprintf(w, "run %d (key %s, %d machine(s)): shards %s%s\n", r.ID, key, len(machines), strings.Join(parts, ", "), missingRounds(r.RoundsPlanned, stored))
}

// missingRounds says which planned rounds are not stored, or "" when none.
func missingRounds(planned int, stored map[int]bool) string {
	var miss []string
	for round := 1; round <= planned; round++ {
		if !stored[round] {
			miss = append(miss, strconv.Itoa(round))
		}
	}
	if len(miss) == 0 {
		return ""
	}
	return "; missing rounds " + strings.Join(miss, ", ")
}

// noteMissing tells, on w, which planned rounds of the run are not stored
// (shards still at work, or stopped): the report covers the stored ones.
func noteMissing(ctx context.Context, w io.Writer, db *store.DB, r *store.Run) {
	done, err := db.RoundsDone(ctx, r.ID)
	if err != nil || len(done) >= r.RoundsPlanned {
		return
	}
	stored := map[int]bool{}
	for _, d := range done {
		stored[d] = true
	}
	fmt.Fprintf(w, "perflab: run %d: the report covers the %d of %d planned rounds stored%s\n", r.ID, len(done), r.RoundsPlanned, missingRounds(r.RoundsPlanned, stored))
	shardProgress(ctx, w, db, *r)
}
