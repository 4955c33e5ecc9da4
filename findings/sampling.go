package findings

import (
	"strconv"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/store"
)

// Sampling is how a run's rounds were sampled, as far as its analysis must
// know: the part of the run's stored plan (store.Plan) that [Read]
// applies, so that every output analyses a run under the rule its
// sampling calls for.
type Sampling struct {
	// Sequential marks a run whose later rounds were sampled until its
	// checks were decided: its paired comparisons need anytime-valid
	// intervals (analysis.Options.Anytime).
	Sequential bool
	// FirstLook is the round after which a run of fixed rounds judged its
	// claim checks and ran follow-up rounds of the cells of the undecided
	// ones: its checks are judged at two looks (claim.LookRule,
	// analysis.Options.FirstLook).
	FirstLook int
	// Initial is a sequential run's initial pass, the rounds of every cell
	// run before anything was judged: its checks without a confidence
	// sequence take their first look there (claim.LookRule). 0 for a run
	// of fixed rounds.
	Initial int
	// PerLayout, when > 0, is the number of consecutive rounds that
	// shared one random link layout of every build at the start of the
	// run (analysis.Options.PerLayout); 0 for a run linked once per build.
	PerLayout int
	// ClusterOf maps a round to its independent unit (a layout cluster
	// within a shard's machine: store.Plan.ClusterOf); nil when each round
	// is one.
	ClusterOf func(round int) int
}

// SamplingOf reads a stored run's sampling from its plan; a run without one
// was sampled in fixed rounds.
func SamplingOf(run *store.Run) Sampling {
	if run == nil {
		return Sampling{}
	}
	s := Sampling{Sequential: run.Plan.Sequential, FirstLook: run.Plan.FirstLook, PerLayout: perLayout(run.Plan), ClusterOf: run.Plan.ClusterOf()}
	if s.Sequential {
		s.Initial = run.Plan.Rounds
	}
	return s
}

// Options returns opt set for analysing a run sampled this way: a
// sequential run's paired comparisons are confidence sequences, and its
// checks without one take their first look after the initial pass; a run
// of fixed rounds with follow-up rounds takes its first look after its
// planned rounds.
func (s Sampling) Options(opt analysis.Options) analysis.Options {
	opt.PerLayout, opt.ClusterOf = s.PerLayout, s.ClusterOf
	if s.Sequential {
		opt.Anytime, opt.FirstLook = true, s.Initial
	} else if s.FirstLook > 0 {
		opt.FirstLook = s.FirstLook
	}
	return opt
}

// plannedRounds is the last round every finding but the claim checks
// reads under opt: a run of fixed rounds with follow-up rounds' first
// look; 0 for all rounds (every other run: a sequential run's later rounds
// serve its every finding, each comparison a confidence sequence).
func plannedRounds(opt analysis.Options) int {
	if opt.Anytime {
		return 0
	}
	return opt.FirstLook
}

// Planned returns the results of the run's planned rounds: for a run with
// follow-up rounds, rounds 1..FirstLook, which every output other than the
// claim checks reads (follow-up rounds measure only a few cells);
// otherwise results unchanged.
func (s Sampling) Planned(results []*benchfmt.Result) []*benchfmt.Result {
	if s.FirstLook <= 0 || s.Sequential {
		return results
	}
	out := make([]*benchfmt.Result, 0, len(results))
	for _, r := range results {
		if k, err := strconv.Atoi(r.GetConfig("round")); err == nil && k > s.FirstLook {
			continue
		}
		out = append(out, r)
	}
	return out
}

// perLayout is the rounds one random layout served in a run of plan p; 0
// for a run linked once per build.
func perLayout(p store.Plan) int {
	if p.Layout == nil {
		return 0
	}
	return p.Layout.PerLayout
}
