package main

import (
	"context"
	"io"
	"path/filepath"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// engineOptions builds the engine's options from the flags run, bench and
// ab share (and run --resume, whose plan the engine takes from the stored
// run instead): the one place they reach the engine. A command adds only
// what its own flags or arguments make: explicit cells, a -test.cpu list,
// sources, gate limits, a shard.
func (f *runFlags) engineOptions(s *spec.Spec, mode string, db *store.DB, progress io.Writer) engine.Options {
	return engine.Options{
		Spec: s, Mode: mode, DB: db, ArtifactDir: f.out, CacheDir: filepath.Join(f.cache, "bin"), Progress: progress,
		Seed: f.seed, Rounds: f.rounds, Benchtime: f.benchtime, Budget: f.budget, Measure: f.measure,
		NoProfile: f.noProfile, NoFollowUp: f.noFollowUp, Verbose: f.verbose, NewRunIfChanged: f.newRun,
		Precision: float64(f.seq.precision), MaxRounds: f.seq.maxRounds, Unit: f.seq.unit,
		Judge: judge{db: db}, Repeat: analysis.RepeatEstimate,
	}
}

// judge is the engine's judge: package findings judges the stored rounds
// (findings.Judge) and package report words the progress lines.
type judge struct{ db *store.DB }

func (j judge) Rules(s *spec.Spec) engine.Rules {
	return engine.Rules{FirstLook: findings.HasCountedChecks(s), InitialRounds: findings.InitialRounds}
}

func (j judge) Sequential(ctx context.Context, runID int64) (engine.Status, error) {
	return status(findings.Judge{DB: j.db}.Sequential(ctx, runID))
}

func (j judge) FirstLook(ctx context.Context, runID int64) (engine.Status, error) {
	return status(findings.Judge{DB: j.db}.FirstLook(ctx, runID))
}

// status hands judged items to the engine.
func status(items []findings.Judged, err error) (engine.Status, error) {
	if err != nil {
		return engine.Status{}, err
	}
	st := engine.Status{Items: make([]engine.Item, len(items))}
	for i, it := range items {
		st.Items[i] = engine.Item{Label: it.Label, Cells: it.Cells, Decided: it.Decided, More: it.More, Line: report.JudgedLine(it)}
	}
	return st, nil
}
