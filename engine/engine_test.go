package engine

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

func tinySpec(t *testing.T) *spec.Spec {
	t.Helper()
	s, err := spec.Load(filepath.Join("testdata", "tiny", "spec.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func openStore(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestRunStoresEveryRound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	db := openStore(t)
	var progress bytes.Buffer
	res, err := Run(context.Background(), Options{
		Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, NoiseRuns: 3, Progress: &progress,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if res.Status != "complete" || res.RoundsDone != 6 || res.Failures != 0 {
		t.Fatalf("result = %+v\n%s", res, progress.String())
	}
	results, err := db.Results(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	// 2 variants × 3 n values × 2 configs = 12 cells, one result each per round.
	if len(results) != 12*6 {
		t.Errorf("stored %d results, want %d", len(results), 12*6)
	}
	perCell := map[string]int{}
	for _, r := range results {
		perCell[string(r.Name.Full())+"@"+r.GetConfig("config")]++
	}
	for cell, n := range perCell {
		if n != 6 {
			t.Errorf("cell %s has %d samples, want 6", cell, n)
		}
	}
	env, err := db.Env(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	for _, kv := range env {
		keys[kv.Key] = true
	}
	for _, k := range []string{"goversion", "cpu", "cores", "noise-before", "noise-after"} {
		if !keys[k] {
			t.Errorf("environment lacks %q: %v", k, env)
		}
	}
	arts, err := db.Artifacts(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, a := range arts {
		kinds[a.Kind]++
		if a.Bytes == 0 {
			t.Errorf("artifact %s is empty", a.Path)
		}
	}
	for _, k := range []string{"cpu", "heap", "mutex", "block", "trace"} {
		if kinds[k] != 2 { // one per config
			t.Errorf("%d %s artifacts, want 2 (one per config)", kinds[k], k)
		}
	}
}

// cancelAfter cancels ctx once the progress output reports round n stored.
type cancelAfter struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	marker string
	cancel context.CancelFunc
}

// IsTerminal says the writer is a terminal: the one updating status line
// names every stored round, where a log gets a line now and then only.
func (c *cancelAfter) IsTerminal() bool { return true }

func (c *cancelAfter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.marker) {
		c.cancel()
	}
	return len(p), nil
}

func TestInterruptKeepsCompletedRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	db := openStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelAfter{marker: "round 2/6 stored", cancel: cancel}
	res, err := Run(ctx, Options{
		Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 2, NoiseRuns: 2, Progress: w,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Status != "interrupted" || res.RoundsDone != 2 {
		t.Fatalf("result = %+v, want interrupted after 2 rounds\n%s", res, w.buf.String())
	}
	run, err := db.GetRun(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Status != "interrupted" {
		t.Errorf("stored status %q, want interrupted", run.Status)
	}
	done, err := db.RoundsDone(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 2 {
		t.Errorf("rounds stored = %v, want [1 2]", done)
	}
	results, _ := db.Results(context.Background(), res.RunID)
	if len(results) != 2*12 {
		t.Errorf("stored %d results, want %d (two complete rounds, nothing of the third)", len(results), 2*12)
	}
}

func TestBrokenConfigDoesNotStopOthers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	s := tinySpec(t)
	s.Configs = append(s.Configs, spec.Config{Name: "broken", GOEXPERIMENT: "nosuchexperiment"})
	s.Axes[0].Quick = append(s.Axes[0].Quick, "skip") // cells whose benchmark calls b.Skip
	db := openStore(t)
	res, err := Run(context.Background(), Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 3, Rounds: 6, NoProfile: true, NoiseRuns: 2, Progress: io.Discard,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Status != "partial" {
		t.Fatalf("status %s, want partial (a config did not build)", res.Status)
	}
	cfgs, _ := db.Configs(context.Background(), res.RunID)
	var broken store.Config
	for _, c := range cfgs {
		if c.Name == "broken" {
			broken = c
		}
	}
	if !strings.Contains(broken.Error, "unknown GOEXPERIMENT") {
		t.Errorf("broken config's error = %q, want the go command's complaint", broken.Error)
	}
	results, _ := db.Results(context.Background(), res.RunID)
	if len(results) != 12*6 {
		t.Errorf("stored %d results, want %d from the two good configs", len(results), 12*6)
	}
	if res.Failures != 9 { // the broken config's 3 variants × 3 n values; skips are not failures
		t.Errorf("failures counted: %d, want 9", res.Failures)
	}
	fails, _ := db.Failures(context.Background(), res.RunID)
	skips := 0
	for _, f := range fails {
		if f.Skip && strings.HasPrefix(f.Reason, "not applicable in this configuration") {
			skips++
			if f.Round != 1 {
				t.Errorf("skip recorded in round %d; skips are noted once, in the first round", f.Round)
			}
		}
	}
	if skips != 3*2 { // three n values × two good configs
		t.Errorf("%d skipped cells recorded, want 6", skips)
	}
}

func TestProfilePerCell(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	s := tinySpec(t)
	s.Configs = s.Configs[:1]
	m := s.Modes["quick"]
	m.Profile, m.ProfileBenchtime = "cell", "100x"
	s.Modes["quick"] = m
	db := openStore(t)
	res, err := Run(context.Background(), Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 4, Rounds: 1, NoiseRuns: 2, Progress: io.Discard,
	})
	if err != nil || res.Status != "complete" {
		t.Fatalf("Run: %v, %+v", err, res)
	}
	arts, _ := db.Artifacts(context.Background(), res.RunID)
	cpu := map[string]bool{}
	for _, a := range arts {
		if a.Kind == "cpu" {
			cpu[a.Cell] = true
		}
	}
	// 2 variants × 3 n values, one CPU profile each, named by cell.
	if len(cpu) != 6 || !cpu["BenchmarkWork/variant=b/n=16"] {
		t.Errorf("per-cell CPU profiles for %v, want the 6 cells", cpu)
	}
}

// TestResumeCompletesInterruptedRun interrupts a run after two rounds and
// resumes it: the finished run holds exactly the planned samples per cell.
func TestResumeCompletesInterruptedRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	db := openStore(t)
	cache, arts := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfter{marker: "round 2/6 stored", cancel: cancel}
	res, err := Run(ctx, Options{Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: arts, CacheDir: cache, Seed: 9, NoiseRuns: 2, Progress: w})
	if err != nil || res.Status != "interrupted" {
		t.Fatalf("first run: %v %+v", err, res)
	}
	res2, err := Resume(context.Background(), Options{Spec: tinySpec(t), DB: db, ArtifactDir: arts, CacheDir: cache, NoiseRuns: 2, Progress: io.Discard}, res.RunID)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	if res2.RunID != res.RunID || res2.Status != "complete" || res2.RoundsDone != 6 {
		t.Fatalf("resumed = %+v", res2)
	}
	done, _ := db.RoundsDone(context.Background(), res.RunID)
	if len(done) != 6 {
		t.Errorf("rounds stored = %v", done)
	}
	results, _ := db.Results(context.Background(), res.RunID)
	perCell := map[string]map[string]bool{}
	for _, r := range results {
		k := string(r.Name.Full()) + "@" + r.GetConfig("config")
		if perCell[k] == nil {
			perCell[k] = map[string]bool{}
		}
		round := r.GetConfig("round")
		if perCell[k][round] {
			t.Errorf("cell %s has two samples from round %s", k, round)
		}
		perCell[k][round] = true
	}
	if len(perCell) != 12 {
		t.Errorf("%d cells, want 12", len(perCell))
	}
	for k, rounds := range perCell {
		if len(rounds) != 6 {
			t.Errorf("cell %s has %d samples, want 6", k, len(rounds))
		}
	}
	if _, err := Resume(context.Background(), Options{Spec: tinySpec(t), DB: db, CacheDir: cache}, res.RunID); err == nil || !strings.Contains(err.Error(), "already complete") {
		t.Errorf("resuming a complete run: %v", err)
	}
}

func TestExplicitCells(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	s := tinySpec(t)
	s.Configs = s.Configs[:1]
	cells := []plan.Cell{
		{Bench: "BenchmarkWork", Levels: []string{"variant=a", "n=2"}, Config: "default"},
		{Bench: "BenchmarkWork", Levels: []string{"variant=b", "n=8"}, Config: "default"},
	}
	db := openStore(t)
	res, err := Run(context.Background(), Options{Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 5, Cells: cells, NoProfile: true, NoiseRuns: 2, Progress: io.Discard})
	if err != nil || res.Status != "complete" {
		t.Fatalf("Run: %v %+v", err, res)
	}
	results, _ := db.Results(context.Background(), res.RunID)
	names := map[string]int{}
	for _, r := range results {
		names[string(r.Name.Full())]++
	}
	if len(names) != 2 || names["Work/variant=a/n=2-2"]+names["Work/variant=a/n=2"] != 6 {
		t.Errorf("results by name = %v, want the two given cells × 6 rounds", names)
	}
}

// TestCellOutcome sorts a cell run's outcome: skips are typed, carry the
// driver's reason without its leading word, and are noted once; a failure
// keeps its error; malformed lines beside good results keep the results.
func TestCellOutcome(t *testing.T) {
	cell := plan.Cell{Bench: "BenchmarkX", Levels: []string{"n=1"}, Config: "c"}
	good := []*benchfmt.Result{{Name: benchfmt.Name("X/n=1"), Iters: 1}}
	skipped := &gotest.RunError{Reason: "skipped: not applicable in this configuration: needs arenas", Skipped: true}
	none := &gotest.RunError{Reason: "printed no benchmark results", NoResults: true}
	tests := []struct {
		name string
		out  []*benchfmt.Result
		err  error
		note bool
		keep int
		row  *store.Failure
	}{
		{"results", good, nil, true, 1, nil},
		{"not applicable, first round", nil, skipped, true, 0,
			&store.Failure{Round: 3, Config: "c", Cell: "BenchmarkX/n=1", Reason: "not applicable in this configuration: needs arenas", Skip: true}},
		{"not applicable, later round", nil, skipped, false, 0, nil},
		{"no result this round", nil, none, false, 0,
			&store.Failure{Round: 3, Config: "c", Cell: "BenchmarkX/n=1", Reason: "no result this round (the binary exited cleanly; its benchmarks skipped themselves): printed no benchmark results", Skip: true}},
		{"malformed lines", good, errors.New("line 3: bad value"), false, 1,
			&store.Failure{Round: 3, Config: "c", Cell: "BenchmarkX/n=1", Reason: "malformed output ignored: line 3: bad value"}},
		{"failure", nil, errors.New("exit status 2"), true, 0,
			&store.Failure{Round: 3, Config: "c", Cell: "BenchmarkX/n=1", Reason: "exit status 2"}},
	}
	for _, tc := range tests {
		keep, row := cellOutcome(cell, 3, tc.out, tc.err, tc.note)
		if len(keep) != tc.keep || !reflect.DeepEqual(row, tc.row) {
			t.Errorf("%s: kept %d, row %+v; want %d, %+v", tc.name, len(keep), row, tc.keep, tc.row)
		}
	}
}
