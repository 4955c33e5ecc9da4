package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// engineOptions builds the engine's options from the flags run and bench
// share (and run --resume, whose plan the engine takes from the stored
// run instead): the one place they reach the engine. A command adds only
// what its own flags or arguments make: explicit cells, a -test.cpu list,
// a shard. (ab's flags reach the engine through ab.Options.)
func (f *runFlags) engineOptions(s *spec.Spec, mode string, db *store.DB, progress io.Writer) engine.Options {
	return engine.Options{
		Spec: s, Mode: mode, DB: db, ArtifactDir: f.out, CacheDir: filepath.Join(f.cache, "bin"), Progress: progress,
		Seed: f.seed, Rounds: f.rounds, Benchtime: f.benchtime, Budget: f.budget, Measure: f.measure,
		NoProfile: f.noProfile, NoFollowUp: f.noFollowUp, Verbose: f.verbose, NewRunIfChanged: f.newRun,
		Precision: float64(f.seq.precision), MaxRounds: f.seq.maxRounds, Unit: f.seq.unit, Layout: f.seq.layout,
		Alpha: f.alpha, Judge: ab.Judge{DB: db, Alpha: f.alpha}, Repeat: analysis.RepeatEstimate, ChooseRepeats: analysis.ChooseRepeats,
	}
}

// resumeIgnores lists the flags that would change a run's plan: a resumed
// run keeps its stored plan, so giving them with --resume is an error
// rather than silently doing nothing.
func (f *runFlags) resumeIgnores() error {
	var set []string
	for _, fl := range []struct {
		name string
		set  bool
	}{
		{"--quick", f.quick}, {"--full", f.full}, {"--rounds", f.rounds != 0}, {"--benchtime", f.benchtime != ""},
		{"--budget", f.budget != 0}, {"--seed", f.seed != 0}, {"--no-profile", f.noProfile}, {"--no-follow-up", f.noFollowUp},
		{"--measure", f.measure != ""}, {"--precision", f.seq.precision != 0}, {"--max-rounds", f.seq.maxRounds != 0},
		{"--unit", f.seq.unit != ""}, {"--layout", f.seq.layout != ""}, {"--shard", f.shard != ""}, {"--run-key", f.runKey != ""},
	} {
		if fl.set {
			set = append(set, fl.name)
		}
	}
	if len(set) > 0 {
		return fmt.Errorf("--resume completes a run with the plan it stored, so %s would change nothing; drop %s", strings.Join(set, ", "), map[bool]string{true: "it", false: "them"}[len(set) == 1])
	}
	return nil
}
