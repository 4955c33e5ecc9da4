package engine

import (
	"bytes"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// plantedSpec is the planted A/B spec of driver/cachegrind's testdata, for
// tests that run valgrind (skipped under -short or without it).
func plantedSpec(t *testing.T) *spec.Spec {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a test binary under valgrind")
	}
	if _, err := exec.LookPath("valgrind"); err != nil {
		t.Skip("valgrind is not installed (" + cachegrind.InstallHint + ")")
	}
	s, err := spec.Load(filepath.Join("..", "driver", "cachegrind", "testdata", "planted", "ab.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestMeasureInstructions runs the planted A/B spec (two builds that differ
// in one function) with instructions measured: every round stores
// instructions/op beside sec/op for each config, valgrind's version is in
// the environment, and each cell has its per-function counts.
func TestMeasureInstructions(t *testing.T) {
	s := plantedSpec(t)
	db := openStore(t)
	var progress bytes.Buffer
	cells := []plan.Cell{
		{Bench: "BenchmarkSum", Levels: []string{"n=256"}, Config: "v1"},
		{Bench: "BenchmarkSum", Levels: []string{"n=256"}, Config: "v2"},
	}
	ctx := context.Background()
	res, err := Run(ctx, Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, Rounds: 2, Benchtime: "20ms", NoiseRuns: 3, NoProfile: true, Cells: cells,
		Measure: "instructions", Progress: &progress,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, progress.String())
	}
	if res.Status != "complete" || res.Failures != 0 {
		t.Fatalf("result %+v\n%s", res, progress.String())
	}
	results, err := db.Results(ctx, res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range results {
		for _, v := range r.Values {
			count[r.GetConfig("config")+" "+v.Unit]++
		}
	}
	for _, k := range []string{"v1 sec/op", "v2 sec/op", "v1 instructions/op", "v2 instructions/op"} {
		if count[k] != 2 {
			t.Errorf("%s: %d samples, want one per round (2): %v\n%s", k, count[k], count, progress.String())
		}
	}
	env, _ := db.Env(ctx, res.RunID)
	found := false
	for _, kv := range env {
		found = found || kv.Key == "valgrind" && strings.HasPrefix(kv.Value, "valgrind-")
	}
	if !found {
		t.Errorf("environment lacks valgrind's version: %v", env)
	}
	meta, _ := db.UnitMeta(ctx, res.RunID)
	lower := false
	for _, m := range meta {
		lower = lower || m.Unit == cachegrind.UnitInstructions && m.Key == "better" && m.Value == "lower"
	}
	if !lower {
		t.Errorf("unit metadata lacks instructions/op better=lower: %v", meta)
	}
	arts, _ := db.Artifacts(ctx, res.RunID)
	var paths []string
	for _, a := range arts {
		if a.Kind == cachegrind.ArtifactKind {
			paths = append(paths, a.Path)
		}
	}
	if len(paths) != 2 {
		t.Fatalf("functions artifacts %v, want one per cell", arts)
	}
	for _, p := range paths {
		recs, bad, err := cachegrind.ReadFuncRecords(p)
		if err != nil || bad != 0 || len(recs) != 2 {
			t.Errorf("%s: %d records, %d bad, %v; want 2 rounds", p, len(recs), bad, err)
		}
		for _, r := range recs {
			if r.Funcs["planted.checksum"] < 256 {
				t.Errorf("%s round %d: planted.checksum %.1f instructions/op, want at least one per byte", p, r.Round, r.Funcs["planted.checksum"])
			}
		}
	}
	if hasArtifacts(ctx, db, res.RunID, io.Discard) {
		t.Error("per-function counts count as profiles: a resumed run would skip its profiling pass")
	}
}

func TestMeasureRefusesUnknown(t *testing.T) {
	_, err := Run(context.Background(), Options{Spec: tinySpec(t), Mode: "quick", DB: openStore(t), CacheDir: t.TempDir(), Measure: "cycles"})
	if err == nil || !strings.Contains(err.Error(), "instructions") {
		t.Fatalf("err = %v, want one listing what can be measured", err)
	}
}

func TestUnitInstructionsNeedsCounts(t *testing.T) {
	_, err := Run(context.Background(), Options{Spec: tinySpec(t), Mode: "quick", DB: openStore(t), CacheDir: t.TempDir(), Unit: UnitInstructions, Budget: time.Minute})
	if err == nil || !strings.Contains(err.Error(), "--measure instructions") {
		t.Fatalf("err = %v, want one saying to add --measure instructions", err)
	}
}

// TestSequentialDefaultUnit: a sequential run decides on instruction
// counts when it measures them, else on wall time, unless told otherwise.
func TestSequentialDefaultUnit(t *testing.T) {
	for _, tt := range []struct {
		unit    string
		measure spec.Measure
		want    string
	}{
		{"", spec.Measure{}, UnitSec},
		{"", spec.Measure{Instructions: true}, UnitInstructions},
		{UnitCPU, spec.Measure{Instructions: true}, UnitCPU},
		{UnitSec, spec.Measure{Instructions: true}, UnitSec},
	} {
		s, err := sequentialFor(Options{Budget: time.Minute, Unit: tt.unit, Judge: &scriptJudge{}}, tt.measure, Rules{InitialRounds: 8})
		if err != nil || s.unit != tt.want {
			t.Errorf("unit %q, measure %+v: decides on %+v (%v), want %s", tt.unit, tt.measure, s, err, tt.want)
		}
	}
}

// TestProcsOf reads the GOMAXPROCS suffix of result names as go test
// prints them, and not a negative value that ends a name.
func TestProcsOf(t *testing.T) {
	for _, tc := range []struct {
		name string
		want int
	}{
		{"Work/n=4-8", 8},
		{"Work/n=4", 1},
		{"Work-2", 2},
		{"Work/n=-3", 1},
		{"Work/n=-3-4", 4},
		{"Work/-5", 1},
		{"Work/n=4-", 1},
		{"Work/n=4-x", 1},
		{"Work/n=4-0", 1},
	} {
		if got := procsOf(benchfmt.Name(tc.name)); got != tc.want {
			t.Errorf("procsOf(%q) = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestMeasureCannotMeasure: a run whose every Cachegrind cell fails stops
// with the reason and the tool's own output instead of running its rounds
// — before anything is stored when every calibration fails, after the
// first round when the calibrations passed but every measurement fails.
func TestMeasureCannotMeasure(t *testing.T) {
	s := plantedSpec(t)
	for _, tc := range []struct {
		name     string
		dieAbove string // PLANTED_DIE_ABOVE: the iterations past which the cell dies under valgrind
		want     string
		rounds   int // rounds stored; -1: no run at all
	}{
		// The calibrations run at most 2,000,000 iterations of this
		// few-instruction loop; the measurements need many more.
		{"calibration", "", "no cell could be measured under Cachegrind (2 of 2 failed", -1},
		{"first round", "3000000", "every Cachegrind measurement so far failed (2, through round 1)", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PLANTED_DIE_ABOVE", tc.dieAbove)
			db := openStore(t)
			var progress bytes.Buffer
			cells := []plan.Cell{{Bench: "BenchmarkCrash", Config: "v1"}, {Bench: "BenchmarkCrash", Config: "v2"}}
			ctx := context.Background()
			res, err := Run(ctx, Options{
				Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
				Seed: 1, Rounds: 6, Benchtime: "1000x", NoiseRuns: 3, NoProfile: true, Cells: cells,
				Measure: "instructions", Progress: &progress,
			})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error()+progress.String(), "planted: died under valgrind") {
				t.Fatalf("Run: %v, want %q with the tool's output\n%s", err, tc.want, progress.String())
			}
			runs, _ := db.Runs(ctx)
			if tc.rounds < 0 {
				if len(runs) != 0 {
					t.Errorf("%d runs stored, want none", len(runs))
				}
				if !strings.Contains(progress.String(), "planted: died under valgrind") {
					t.Errorf("the calibration's failure does not show the tool's output:\n%s", progress.String())
				}
				return
			}
			if !strings.Contains(err.Error(), "planted: died under valgrind") {
				t.Errorf("the error lacks the tool's output: %v", err)
			}
			if res == nil || res.RoundsDone != tc.rounds || len(runs) != 1 || runs[0].Status != "failed" {
				t.Fatalf("result %+v, runs %+v; want %d round stored and the run failed\n%s", res, runs, tc.rounds, progress.String())
			}
			fails, _ := db.Failures(ctx, res.RunID)
			if len(fails) != 2 {
				t.Errorf("failures %+v, want the round's two", fails)
			}
		})
	}
}
