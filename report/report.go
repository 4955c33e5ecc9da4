// Package report turns a stored run into what people read: a Markdown
// report (environment, per-unit tables with confidence intervals, knees,
// crossovers, the claims table, failures and artifact paths), the same as
// one self-contained HTML page with SVG charts ([HTML]), a compact claims
// table for terminals, and benchfmt text for benchstat.
package report

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// Input is everything known about one run.
type Input struct {
	Run       *store.Run
	Env       []store.KV
	Configs   []store.Config
	Results   []*benchfmt.Result
	UnitMeta  []store.UnitMeta
	Artifacts []store.Artifact
	Failures  []store.Failure
	Spec      *spec.Spec // nil when the run has no parsable spec
	SpecErr   error      // why Spec is nil
	Opt       analysis.Options

	// Derived by Analyze.
	Samples    []*analysis.Sample
	Knees      []analysis.SeriesKnee
	Crossovers []analysis.SeriesCrossover
	Verdicts   []claim.Result
	Profiles   []claim.CellProfile // per-cell CPU profile counts (profiles.go)
}

// Load reads a run from the store and analyses it.
func Load(ctx context.Context, db *store.DB, runID int64, opt analysis.Options) (*Input, error) {
	run, err := db.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	in := &Input{Run: run, Opt: opt}
	if in.Env, err = db.Env(ctx, runID); err != nil {
		return nil, err
	}
	if in.Configs, err = db.Configs(ctx, runID); err != nil {
		return nil, err
	}
	if in.Results, err = db.Results(ctx, runID); err != nil {
		return nil, err
	}
	if in.UnitMeta, err = db.UnitMeta(ctx, runID); err != nil {
		return nil, err
	}
	if in.Artifacts, err = db.Artifacts(ctx, runID); err != nil {
		return nil, err
	}
	if in.Failures, err = db.Failures(ctx, runID); err != nil {
		return nil, err
	}
	if run.SpecText != "" {
		in.Spec, in.SpecErr = spec.Parse(cmp.Or(run.SpecPath, "spec.toml"), []byte(run.SpecText))
	}
	Analyze(in)
	return in, nil
}

// Analyze fills the derived fields: samples, knees and crossovers along the
// spec's analysis axis, and claim verdicts.
func Analyze(in *Input) {
	in.Samples = analysis.Collect(in.Results)
	in.Profiles = cellProfiles(in)
	if in.Spec == nil {
		return
	}
	a := in.Spec.Analysis
	if a.Axis != "" {
		in.Knees = analysis.Knees(in.Samples, a.Axis, in.Opt)
		if a.By != "" {
			in.Crossovers = analysis.Crossovers(in.Samples, a.Axis, a.By, in.Opt)
		}
	}
	in.Verdicts = claim.Evaluate(in.Spec.Claims, in.Samples, in.Opt, in.Profiles...)
}

// StoreVerdicts records the run's verdicts.
func StoreVerdicts(ctx context.Context, db *store.DB, in *Input) error {
	v := make([]store.Verdict, len(in.Verdicts))
	for i, r := range in.Verdicts {
		v[i] = store.Verdict{ClaimID: r.ID, Verdict: string(r.Verdict), Claimed: r.Claimed, Measured: r.Measured, Reason: r.Reason}
	}
	return db.SetVerdicts(ctx, in.Run.ID, v)
}

// mainUnit is the unit the spec analyses, sec/op by default.
func (in *Input) mainUnit() string {
	if in.Spec != nil && in.Spec.Analysis.Unit != "" {
		return in.Spec.Analysis.Unit
	}
	return "sec/op"
}

// axisOrder sorts the distinct values of key across samples, numerically
// when they all are numbers.
func axisOrder(samples []*analysis.Sample, key string) []string {
	var vals []string
	for _, s := range samples {
		if v, ok := s.Value(key); ok && !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	numeric := true
	for _, v := range vals {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			numeric = false
		}
	}
	if numeric {
		slices.SortStableFunc(vals, func(a, b string) int {
			x, _ := strconv.ParseFloat(a, 64)
			y, _ := strconv.ParseFloat(b, 64)
			return cmp.Compare(x, y)
		})
	}
	return vals
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return fmt.Sprint(err)
}
