package ab_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/pgtest"
	"github.com/perflab/perflab/internal/workmod"
	"github.com/perflab/perflab/store"
)

// TestShardedSequentialAB runs one sequential comparison as two shards
// on two synthetic machines into one PostgreSQL store, at once, each
// building both sides itself and relinking its own layouts. The initial
// pass is split so that neither shard alone has the clusters a first
// interval needs: the judge pools both shards' clusters, decides once,
// and both shards stop on that decision; the run is complete only when
// both have, and its verdict pools every cluster. A third shard that
// resolves a side to another commit is refused, naming the difference.
func TestShardedSequentialAB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries in two shards")
	}
	repo, _ := workmod.Repo(t, workmod.Commit{Steps: 1000, Subject: "work: 1000 steps"}, workmod.Commit{Steps: 10000, Subject: "work: 10000 steps"})
	dsn := pgtest.ForTest(t).NewDatabaseT(t)
	tmp := t.TempDir()
	const key = "ab-shards-1"
	opts := func(k int, progress *bytes.Buffer) ab.Options {
		return ab.Options{
			Dir: repo, Old: "HEAD~1", New: "HEAD", Bench: "Work", Benchtime: "10ms", NoProfile: true, Seed: 11,
			Budget: 3 * time.Minute, Layout: engine.LayoutRandom,
			Shard:    &engine.Shard{K: k, N: 2, Key: key, Machine: store.Machine{HostID: fmt.Sprintf("machine-%d", k), CPUModel: "synthetic", Cores: 1}},
			CacheDir: filepath.Join(tmp, "cache"), ArtifactDir: filepath.Join(tmp, "runs"), Progress: progress,
		}
	}
	// Build both sides once, so the shards start measuring together.
	if _, err := ab.Prepare(t.Context(), opts(1, new(bytes.Buffer))); err != nil {
		t.Fatal(err)
	}
	var (
		wg       sync.WaitGroup
		results  [2]*ab.Result
		errs     [2]error
		progress [2]bytes.Buffer
	)
	for i := range 2 {
		wg.Go(func() {
			db, err := store.Open(dsn)
			if err != nil {
				errs[i] = err
				return
			}
			defer db.Close()
			p, err := ab.Prepare(t.Context(), opts(i+1, &progress[i]))
			if err != nil {
				errs[i] = err
				return
			}
			results[i], errs[i] = p.Measure(t.Context(), db)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("shard %d: %v\n%s", i+1, err, progress[i].String())
		}
	}
	last := 0
	for i, r := range results {
		if r.Run.ShardsRunning == 0 {
			last++
		}
		if !strings.Contains(progress[i].String(), "every compared ratio is decided (pooled over the shards)") {
			t.Errorf("shard %d did not stop on the pooled decision:\n%s", i+1, progress[i].String())
		}
	}
	if last < 1 {
		t.Errorf("no shard ended the run (shards running: %d, %d)", results[0].Run.ShardsRunning, results[1].Run.ShardsRunning)
	}

	ctx := context.Background()
	db, err := store.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id := results[0].Run.RunID
	run, err := db.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "complete" || run.Plan.Stop.Reason != store.StopDecided || run.Plan.Shards != 2 || !run.Plan.Sequential {
		t.Fatalf("run %d: status %s, stop %+v, shards %d, sequential %v; want a complete sequential run of 2 shards, decided", id, run.Status, run.Plan.Stop, run.Plan.Shards, run.Plan.Sequential)
	}
	stops, err := db.ShardStops(ctx, id, 2)
	if err != nil || len(stops) != 2 || stops[1].Reason != store.StopDecided || stops[2].Reason != store.StopDecided {
		t.Errorf("shard stops %+v (%v), want both decided", stops, err)
	}

	// Each round ran whole on its shard's machine; each shard's clusters
	// are its own, with layouts no other shard used.
	rounds, err := db.Rounds(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	clusterOf := run.Plan.ClusterOf()
	if clusterOf == nil {
		t.Fatal("the run's plan groups no rounds into clusters")
	}
	clusters := map[int]map[int]bool{1: {}, 2: {}}
	for _, r := range rounds {
		k := (r.Round-1)%2 + 1
		if r.Machine.Shard != k || r.Machine.HostID != fmt.Sprintf("machine-%d", k) {
			t.Errorf("round %d ran on %+v, want shard %d on machine-%d", r.Round, r.Machine, k, k)
		}
		clusters[k][clusterOf(r.Round)] = true
	}
	results0, err := db.Results(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	layoutShard := map[string]int{}
	for _, r := range results0 {
		var round int
		fmt.Sscan(r.GetConfig("round"), &round)
		k := (round-1)%2 + 1
		seed := r.GetConfig("config") + "/" + r.GetConfig("layout")
		if other, ok := layoutShard[seed]; ok && other != k {
			t.Errorf("layout %s ran on shards %d and %d: shards must relink their own", seed, other, k)
		}
		layoutShard[seed] = k
	}
	initial := findings.InitialRoundsFor(1)
	if len(clusters[1]) == 0 || len(clusters[2]) == 0 {
		t.Fatalf("clusters by shard %v: both shards must measure", clusters)
	}
	t.Logf("%d rounds; shard 1 ran %d clusters, shard 2 %d; a first interval needs %d", len(rounds), len(clusters[1]), len(clusters[2]), initial)
	if len(clusters[1])+len(clusters[2]) < initial {
		t.Errorf("decided on %d pooled clusters, fewer than the %d a first interval needs", len(clusters[1])+len(clusters[2]), initial)
	}

	// The verdict pools every shard: ten times the work is slower, over
	// every cluster of both.
	pr, err := findings.LoadPaired(ctx, db, id, ab.Old, ab.New, analysis.Options{Alpha: 0.05, Confidence: analysis.DefaultConfidence})
	if err != nil {
		t.Fatal(err)
	}
	var row *findings.PairedRow
	for i, r := range pr.Rows {
		if r.Unit == "sec/op" {
			row = &pr.Rows[i]
		}
	}
	pooled := len(clusters[1]) + len(clusters[2])
	if row == nil || row.Verdict != findings.Slower || row.Ratio.N != pooled || !(row.Ratio.Lo > 1) {
		t.Fatalf("pooled verdict %+v, want slower over all %d clusters of both shards", row, pooled)
	}
	t.Logf("pooled verdict: %s ×%.2f [%.2f, %.2f] over %d clusters", row.Verdict, row.Ratio.Ratio, row.Ratio.Lo, row.Ratio.Hi, row.Ratio.N)

	// The report's Machines section lists both machines.
	f, err := findings.Load(ctx, db, id, analysis.Options{Alpha: 0.05, Confidence: analysis.DefaultConfidence})
	if err != nil {
		t.Fatal(err)
	}
	if f.Machines == nil || len(f.Machines.List) != 2 {
		t.Errorf("machines %+v, want machine-1 and machine-2", f.Machines)
	}

	// A shard that resolves NEW to another commit is refused by name.
	o := opts(2, new(bytes.Buffer))
	o.New = "HEAD~1"
	p, err := ab.Prepare(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Measure(t.Context(), db)
	if !errors.Is(err, store.ErrRunMismatch) || !strings.Contains(err.Error(), "ab-new") {
		t.Errorf("a shard with another NEW: %v; want a refusal naming ab-new", err)
	}
}
