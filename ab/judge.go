package ab

import (
	"context"

	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// Judge is the [engine.Judge] of a stored run, the one every perflab run
// samples with: package findings judges the rounds stored so far (its
// claim checks and compared ratios: findings.JudgeSequential and
// findings.JudgeFirstLook) and package report words each item's progress
// line.
type Judge struct {
	DB *store.DB
	// Alpha is the error rate the run decides at (0 → 0.05): each of a
	// unit's m compared ratios at 1 − Alpha/m.
	Alpha float64
	// Rows marks a comparison whose every row is a compared ratio (ab,
	// bench --by): a run of fixed rounds must then give each an interval
	// (engine.Rules.FixedFor), at 1 − α/m for a unit's m rows, or at
	// 1 − α each when PerPoint (bench's ratios per point).
	Rows, PerPoint bool
}

var (
	_ engine.Judge         = Judge{}
	_ engine.LayoutChooser = Judge{}
)

// Rules asks for a first look when the spec has claim checks that more
// rounds can decide, and for findings' initial pass of a sequential run:
// long enough for a first interval at the level its many ratios are
// judged at; a run of fixed rounds needs as many observations for the
// fixed-n interval at that level.
func (j Judge) Rules(s *spec.Spec) engine.Rules {
	r := engine.Rules{FirstLook: findings.HasCountedChecks(s), InitialRounds: findings.InitialRounds,
		InitialFor: func(cells int) int { return findings.InitialRoundsAt(cells, j.Alpha) }}
	if j.Rows {
		r.FixedFor = func(cells int) int {
			if j.PerPoint {
				cells = 1
			}
			return findings.FixedRoundsAt(cells, j.Alpha)
		}
	}
	return r
}

// ChoosePerLayout chooses the rounds a layout serves after a sequential
// run's initial pass (findings.ChoosePerLayout) and words the choice
// (report.LayoutChoiceLine).
func (j Judge) ChoosePerLayout(ctx context.Context, runID int64, costs engine.LayoutCosts) (int, string, error) {
	c, err := findings.ChoosePerLayout(ctx, j.DB, runID, costs.Link, costs.Round, costs.Per, engine.MaxPerLayout)
	if err != nil {
		return 0, "", err
	}
	return c.Per, report.LayoutChoiceLine(c), nil
}

// Sequential judges a sequential run after a round.
func (j Judge) Sequential(ctx context.Context, runID int64) (engine.Status, error) {
	return status(findings.JudgeSequential(ctx, j.DB, runID))
}

// FirstLook judges a run of fixed rounds after its planned rounds.
func (j Judge) FirstLook(ctx context.Context, runID int64) (engine.Status, error) {
	return status(findings.JudgeFirstLook(ctx, j.DB, runID))
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
