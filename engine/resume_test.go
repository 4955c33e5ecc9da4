package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// copyTiny copies the tiny module to a temporary directory, so a test can
// edit its benchmark, and loads its spec with one config.
func copyTiny(t *testing.T) (*spec.Spec, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join("testdata", "tiny"))); err != nil {
		t.Fatal(err)
	}
	s, err := spec.Load(filepath.Join(dir, "spec.toml"))
	if err != nil {
		t.Fatal(err)
	}
	s.Configs = s.Configs[:1]
	return s, dir
}

// TestResumeAfterCodeChange interrupts a run, edits the benchmarked code
// and resumes: the resume is refused naming both binary hashes, nothing is
// added to the run, and with NewRunIfChanged a new run is started with the
// old run's plan, which leaves the old run untouched.
func TestResumeAfterCodeChange(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	db := openStore(t)
	cache, arts := t.TempDir(), t.TempDir()
	s, dir := copyTiny(t)
	ctx, cancel := context.WithCancel(context.Background())
	w := &cancelAfter{marker: "round 2/6 stored", cancel: cancel}
	res, err := Run(ctx, Options{Spec: s, Mode: "quick", DB: db, ArtifactDir: arts, CacheDir: cache, Seed: 9, NoProfile: true, NoiseRuns: 2, Progress: w})
	if err != nil || res.Status != "interrupted" {
		t.Fatalf("first run: %v %+v", err, res)
	}
	before, _ := db.Results(context.Background(), res.RunID)
	cfgBefore, _ := db.Configs(context.Background(), res.RunID)

	src := filepath.Join(dir, "tiny_test.go")
	text, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(text), "steps := 40 * n", "steps := 400 * n", 1)
	if edited == string(text) {
		t.Fatal("the edit did not apply; update the test with the benchmark's source")
	}
	if err := os.WriteFile(src, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		newRun bool
	}{{"refused", false}, {"new run", true}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s2, err := spec.Load(filepath.Join(dir, "spec.toml"))
			if err != nil {
				t.Fatal(err)
			}
			s2.Configs = s2.Configs[:1]
			var progress strings.Builder
			res2, err := Resume(context.Background(), Options{Spec: s2, DB: db, ArtifactDir: arts, CacheDir: cache, NoiseRuns: 2,
				Progress: &progress, NewRunIfChanged: tt.newRun}, res.RunID)
			if !tt.newRun {
				var bc *BinaryChangedError
				if !errors.As(err, &bc) {
					t.Fatalf("Resume = %+v, %v; want a *BinaryChangedError", res2, err)
				}
				msg := err.Error()
				for _, want := range []string{"config default: binary " + short(cfgBefore[0].BinaryHash) + " → binary ",
					"is the same", "perflab run --resume 1 --new-run"} {
					if !strings.Contains(msg, want) {
						t.Errorf("error lacks %q:\n%s", want, msg)
					}
				}
			} else {
				if err != nil || res2.RunID == res.RunID || res2.Status != "complete" || res2.RoundsDone != 6 {
					t.Fatalf("Resume --new-run = %+v, %v\n%s", res2, err, progress.String())
				}
				newRun, _ := db.GetRun(context.Background(), res2.RunID)
				oldRun, _ := db.GetRun(context.Background(), res.RunID)
				if newRun.Seed != oldRun.Seed || !reflect.DeepEqual(newRun.Plan, oldRun.Plan) {
					t.Errorf("new run's plan differs: seed %d plan %+v, want seed %d plan %+v", newRun.Seed, newRun.Plan, oldRun.Seed, oldRun.Plan)
				}
				cfgNew, _ := db.Configs(context.Background(), res2.RunID)
				if cfgNew[0].BinaryHash == cfgBefore[0].BinaryHash {
					t.Errorf("the new run records the old binary %s", cfgNew[0].BinaryHash)
				}
			}
			// Whatever happened, the interrupted run holds only its own samples.
			after, _ := db.Results(context.Background(), res.RunID)
			cfgAfter, _ := db.Configs(context.Background(), res.RunID)
			if len(after) != len(before) || cfgAfter[0].BinaryHash != cfgBefore[0].BinaryHash {
				t.Errorf("run %d changed: %d results (was %d), binary %s (was %s)", res.RunID, len(after), len(before), cfgAfter[0].BinaryHash, cfgBefore[0].BinaryHash)
			}
		})
	}
}

// TestStatusPartial: a config that does not build makes the run partial;
// one whose toolchain or modules could not be downloaded is not testable
// here and leaves it complete.
func TestStatusPartial(t *testing.T) {
	built := store.Config{Name: "a", BinaryHash: "abc"}
	broken := store.Config{Name: "b", Error: "undefined: x"}
	offline := store.Config{Name: "c", Error: "go env failed", NotFetched: store.NotFetched{What: "toolchain go1.22.12", Why: "toolchain not available"}}
	tests := []struct {
		failures int
		configs  []store.Config
		want     string
	}{
		{0, []store.Config{built, built}, "complete"},
		{3, []store.Config{built, built}, "partial"},
		{0, []store.Config{built, broken}, "partial"},
		{0, []store.Config{built, offline}, "complete"},
		{0, []store.Config{offline, broken}, "partial"},
		{1, []store.Config{built, offline}, "partial"},
	}
	for _, tt := range tests {
		if got := endStatus(&Result{Failures: tt.failures}, tt.configs); got != tt.want {
			t.Errorf("endStatus(failures %d, configs %+v) = %s, want %s", tt.failures, tt.configs, got, tt.want)
		}
	}
}

// TestResumeRefusesLiveOwner: a run whose owner is alive is not resumed by
// another process; a dead owner's run reads as interrupted.
func TestResumeRefusesLiveOwner(t *testing.T) {
	db := openStore(t)
	self := store.CurrentOwner()
	alive := store.Owner{Host: self.Host, PID: 1, Start: "other"} // pid 1 runs, but started at another time
	if alive.Liveness() != "dead" {
		t.Fatalf("pid 1 with a foreign start time reads as %s, want dead (a recycled pid)", alive.Liveness())
	}
	run := &store.Run{Experiment: "x", Mode: "quick", Owner: self}
	if _, err := db.CreateRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	other := *run
	other.Owner.PID = os.Getppid() // a live process that is not this one
	other.Owner.Start = ""
	if err := checkOwner(&other); err == nil || !strings.Contains(err.Error(), "still running") {
		t.Errorf("checkOwner(live other process) = %v, want a refusal", err)
	}
	if err := checkOwner(run); err != nil {
		t.Errorf("checkOwner(self) = %v", err)
	}
}
