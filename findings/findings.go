// Package findings computes every view of stored runs and benchmark
// files that any output shows, each as one typed value: for one run
// ([Of]), its summaries, knees (found and rejected, with why),
// crossovers, per-point paired ratios against the baseline with their
// geomeans, config ratios, scaling efficiency, profile shares,
// instructions per op, claim verdicts, failure counts and warnings; two
// runs or files compared benchmark by benchmark ([Compare]); two configs
// of one run paired round by round ([Paired], perflab ab); one benchmark
// across runs with its change points ([LoadHistory]); and the analysis of
// files or a run along an axis ([AnalyzeRun], [AnalyzeSets]).
//
// It is the one place where those statistics are computed (by calling
// package analysis, claim and profshare), and every view of a run reads
// the same rounds: its planned ones, follow-up rounds serving the claim
// checks alone. Package report writes the values as text (terminal,
// Markdown, HTML, JSON); perflab's commands and perflab serve render
// through it and compute nothing, so they cannot disagree: the same runs
// at the same α give the same numbers everywhere. Unit directions come
// from package unit.
package findings

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
	"github.com/perflab/perflab/unit"
)

// Input is everything stored about one run.
type Input struct {
	Run       *store.Run
	Env       []store.KV
	Configs   []store.Config
	Results   []*benchfmt.Result
	UnitMeta  []store.UnitMeta
	Artifacts []store.Artifact
	Failures  []store.Failure
	Rounds    []store.RoundInfo // stored rounds and their machines (machines.go)
	Spec      *spec.Spec        // nil when the run has no parsable spec
	SpecErr   error             // why Spec is nil
	Opt       analysis.Options
}

// Run is a run with everything computed from it.
type Run struct {
	Input

	Samples  []*analysis.Sample
	MainUnit string // the unit the spec analyses, sec/op by default
	// Axis, By and Baseline are the spec's analysis keys; Baseline is
	// filled with the first value of By when the spec names none.
	Axis, By, Baseline string

	summaries map[*analysis.Sample]analysis.Summary

	Knees      []analysis.SeriesKnee      // knees (regime changes) of every unit along Axis
	NoKnees    []KneeFit                  // main-unit series along Axis without a knee: smooth or undecided, and why
	Crossovers []analysis.SeriesCrossover // crossovers between By values along Axis
	// Against holds, for each series and each By value other than the
	// baseline, the paired ratio to the baseline at every point, with a
	// geomean across the points.
	Against []Comparison
	// Geomeans is each By value's geomean ratio to the baseline across
	// every point of every series (per config).
	Geomeans     []GeomeanRow
	ConfigRatios *ConfigRatios // nil unless two or more configs have samples
	Scaling      *Scaling      // nil unless the spec names a scaling axis
	Profiles     []claim.CellProfile
	Shares       []ProfileShare // one per entry of Profiles
	Verdicts     []claim.Result
	// CheckConfidence is the level of the two-sided intervals the checks
	// against a threshold were judged on: each bound a one-sided bound at
	// Opt.Confidence (claim.OneSided).
	CheckConfidence float64
	// Looks is the two-look rule the checks were judged by, in words
	// (claim.LookRule); empty for a run judged once. A run of fixed
	// rounds with looks shows its planned rounds only in every other
	// table: Samples holds rounds 1..Opt.FirstLook. A sequential run's
	// checks without a confidence sequence take their first look after
	// its initial pass, and its every table reads all rounds.
	Looks string
	// FollowUp counts the rounds after the first look (a sequential run's
	// after its initial pass) and the benchmark results they measured.
	FollowUp FollowUp
	Machines *Machines // nil unless the rounds came from several machines
	// Instructions holds the instructions-per-op comparisons (nil when
	// the run did not count instructions); InstructionProblems the
	// per-function files that could not be read.
	Instructions        []InstrRow
	InstructionProblems []string
	// MinSamples is the fewest samples a median's interval needs at the
	// run's confidence (6 at 95%).
	MinSamples int
	units      *unit.Table // see Units
	// Sequential is how a sequential run's sampling ended and what it had
	// decided (judge.go); nil for other runs.
	Sequential *Sequential

	RoundsDone, Cells int
	Failed, Skipped   int
	LeftOut           int // of Skipped, the cells the budget left out
	Incorrect         int
	Warnings          []string
}

// Load reads a run from the store and computes its findings.
func Load(ctx context.Context, db *store.DB, runID int64, opt analysis.Options) (*Run, error) {
	in, err := Read(ctx, db, runID, opt)
	if err != nil {
		return nil, err
	}
	return Of(in), nil
}

// Read reads what the store holds about a run.
func Read(ctx context.Context, db *store.DB, runID int64, opt analysis.Options) (Input, error) {
	run, err := db.GetRun(ctx, runID)
	if err != nil {
		return Input{}, err
	}
	run.Status = run.State() // a run whose process died reads as interrupted
	in := Input{Run: run, Opt: SamplingOf(run).Options(opt)}
	if in.Env, err = db.Env(ctx, runID); err != nil {
		return in, err
	}
	if in.Configs, err = db.Configs(ctx, runID); err != nil {
		return in, err
	}
	if in.Results, err = db.Results(ctx, runID); err != nil {
		return in, err
	}
	if in.UnitMeta, err = db.UnitMeta(ctx, runID); err != nil {
		return in, err
	}
	if in.Artifacts, err = db.Artifacts(ctx, runID); err != nil {
		return in, err
	}
	if in.Failures, err = db.Failures(ctx, runID); err != nil {
		return in, err
	}
	if in.Rounds, err = db.Rounds(ctx, runID); err != nil {
		return in, err
	}
	if run.SpecText != "" {
		in.Spec, in.SpecErr = spec.Parse(cmp.Or(run.SpecPath, "spec.toml"), []byte(run.SpecText))
	}
	return in, nil
}

// Of computes everything the outputs show about one run.
func Of(in Input) *Run {
	in.Opt = withDefaults(in.Opt)
	f := &Run{Input: in, MainUnit: "sec/op"}
	all := analysis.Collect(in.Results)
	f.Samples = all
	if n := in.Opt.FirstLook; n > 0 {
		f.FollowUp = followUp(all, n)
		f.Looks = claim.LookRule(in.Opt)
	}
	if n := plannedRounds(in.Opt); n > 0 {
		// Follow-up rounds serve the claim checks' second look only.
		f.Samples = analysis.UpToRound(all, n)
	}
	f.summaries = make(map[*analysis.Sample]analysis.Summary, len(f.Samples))
	for _, s := range f.Samples {
		f.summaries[s] = analysis.Summarize(s.Values, in.Opt)
		f.RoundsDone = max(f.RoundsDone, len(s.Values))
	}
	f.Cells = countCells(f.Samples)
	f.MinSamples = analysis.MinSamples(in.Opt.Confidence)
	f.Profiles = cellProfiles(&in)
	f.Shares = shares(f.Profiles, in.Opt.Confidence)
	f.countFailures()
	if s := in.Spec; s != nil {
		a := s.Analysis
		f.MainUnit = cmp.Or(a.Unit, f.MainUnit)
		f.Axis, f.By, f.Baseline = a.Axis, a.By, a.Baseline
		f.Baseline = baselineOf(s, f.Samples, f.By, f.Baseline)
		if a.Axis != "" {
			f.knees()
			if a.By != "" {
				f.Crossovers = analysis.Crossovers(f.Samples, a.Axis, a.By, in.Opt)
			}
		}
		if f.By != "" {
			f.Against = Ratios(f.Samples, RatioSpec{Axis: f.Axis, By: f.By, Baseline: f.Baseline, Unit: f.MainUnit}, in.Opt)
			f.Geomeans = Geomeans(f.Samples, RatioSpec{Axis: f.Axis, By: f.By, Baseline: f.Baseline, Unit: f.MainUnit}, in.Opt)
			judgeRatios(f.Against, f.Geomeans, f.Units())
		}
		f.Scaling = f.scaling()
		f.Verdicts = claim.Evaluate(s.Claims, all, in.Opt, f.Profiles...)
		markNotFetched(f.Verdicts, in.Configs)
		f.CheckConfidence = claim.OneSided(in.Opt).Confidence
	} else if in.SpecErr != nil {
		f.Warnings = append(f.Warnings, "the run's spec could not be read ("+in.SpecErr.Error()+"), so no claims were judged")
	}
	f.ConfigRatios = f.configRatios()
	f.Instructions, f.InstructionProblems = instructions(f)
	f.Machines = f.machines()
	if in.Run != nil && in.Run.Status == "interrupted" {
		f.Warnings = append(f.Warnings, "this run was interrupted: the tables use the "+strconv.Itoa(f.RoundsDone)+" completed rounds")
	}
	seq, err := sequentialOf(&in)
	if err != nil {
		f.Warnings = append(f.Warnings, "how the sequential sampling ended cannot be shown: "+err.Error())
	}
	f.Sequential = seq
	if bursts := BurstRounds(in.Env, in.Rounds); len(bursts) > 0 {
		f.Warnings = append(f.Warnings, burstWarning(bursts))
	}
	if f.RoundsDone > 0 && f.RoundsDone < f.MinSamples {
		f.Warnings = append(f.Warnings, "fewer than "+strconv.Itoa(f.MinSamples)+" rounds: medians have no confidence interval and claims stay inconclusive")
	}
	return f
}

// FollowUp is what ran after a run's first look.
type FollowUp struct {
	Rounds  int // rounds after the first look
	Results int // distinct benchmark results (config and full name) measured in them
}

// followUp counts the rounds after round n and the results measured in them.
func followUp(samples []*analysis.Sample, n int) FollowUp {
	var fu FollowUp
	cells := map[string]bool{}
	for _, s := range samples {
		for _, r := range s.Rounds {
			if r > n {
				fu.Rounds = max(fu.Rounds, r-n)
				cells[s.Config+"\x00"+s.Name.Full] = true
			}
		}
	}
	fu.Results = len(cells)
	return fu
}

// Summary is the median of a sample with its confidence interval, as
// computed by [Of]; a sample not of this run is summarised on the spot.
func (f *Run) Summary(s *analysis.Sample) analysis.Summary {
	if sum, ok := f.summaries[s]; ok {
		return sum
	}
	return analysis.Summarize(s.Values, f.Opt)
}

// PlannedResults returns the results of the rounds the run's tables read:
// the planned rounds of a run with follow-up rounds (which measured only
// the cells of its open claim checks), else every result.
func (f *Run) PlannedResults() []*benchfmt.Result {
	return SamplingOf(f.Run).Planned(f.Results)
}

// ConfigOrder orders config names as the run lists them.
func (f *Run) ConfigOrder(a, b string) int {
	pos := func(name string) int {
		for i, c := range f.Configs {
			if c.Name == name {
				return i
			}
		}
		return len(f.Configs)
	}
	if c := pos(a) - pos(b); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func countCells(samples []*analysis.Sample) int {
	seen := map[string]bool{}
	for _, s := range samples {
		seen[s.Config+"\x00"+s.Name.Full] = true
	}
	return len(seen)
}

func (f *Run) countFailures() {
	for _, x := range f.Failures {
		switch {
		case x.Skip: // not applicable, not a failure
			f.Skipped++
			if x.LeftOut() {
				f.LeftOut++
			}
		case strings.Contains(x.Reason, "perflab: incorrect:"):
			f.Incorrect++
			f.Failed++
		default:
			f.Failed++
		}
	}
}

// baselineOf is the value of by the others are compared with: the one
// given (the spec's or the user's), else the first value of the spec's
// axis of that key, else the first seen among the samples; "" without by.
func baselineOf(s *spec.Spec, samples []*analysis.Sample, by, given string) string {
	if by == "" || given != "" {
		return given
	}
	if s != nil {
		for _, a := range s.Axes {
			if a.Key == by && len(a.Quick) > 0 {
				return a.Quick[0]
			}
		}
	}
	for _, smp := range samples {
		if v, ok := smp.Value(by); ok {
			return v
		}
	}
	return ""
}

// AxisOrder lists the distinct values of key across samples in natural
// order (benchname.Order).
func AxisOrder(samples []*analysis.Sample, key string) []string {
	var vals []string
	for _, s := range samples {
		if v, ok := s.Value(key); ok && !slices.Contains(vals, v) {
			vals = append(vals, v)
		}
	}
	return benchname.Order(vals)
}
