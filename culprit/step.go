package culprit

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/revision"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// stepper runs the steps of one bisect: it is the bisect.Stepper that
// builds commits (revision, package ab), runs a step's rounds (engine)
// and judges them (findings).
type stepper struct {
	opt     Options
	db      *store.DB
	repo    *revision.Repo
	history []revision.CommitInfo
	start   time.Time
	planned int
	id      string
	rule    findings.BisectRule
	stored  []findings.BisectRun // the runs of the bisect being resumed
	sources map[int]*revision.Source
	benches map[int][]discover.Bench
	failed  map[int]error         // commits that could not be built or listed
	set     []discover.Bench      // the benchmarks every step runs
	steps   []findings.BisectStep // the measuring steps so far
}

// skip is the outcome of a step whose midpoint cannot be measured, said
// on the progress output.
func (s *stepper) skip(mid int, why bisect.Reason) bisect.Outcome {
	fmt.Fprintf(s.opt.Progress, "perflab bisect: skipping %s: %s\n", s.name(mid), report.BisectWhy(why))
	return bisect.Outcome{Verdict: bisect.Skip, Why: why}
}

// Step runs (or reads from the store) one step of the search.
func (s *stepper) Step(ctx context.Context, st bisect.Step) (bisect.Outcome, error) {
	for _, i := range []int{st.Lo, st.Hi} {
		if err := s.prepare(ctx, i); err != nil {
			return bisect.Outcome{}, fmt.Errorf("%s: %w", s.name(i), err)
		}
	}
	if st.Kind == bisect.Endpoints {
		if err := s.choose(); err != nil {
			return bisect.Outcome{}, err
		}
	} else {
		if err := s.prepare(ctx, st.Mid); err != nil {
			if ctx.Err() != nil {
				return bisect.Outcome{}, ctx.Err()
			}
			return s.skip(st.Mid, unmeasurable(err)), nil
		}
		if missing := lacking(s.set, s.benches[st.Mid]); len(missing) > 0 {
			return s.skip(st.Mid, bisect.Reason{Cause: bisect.Lacking, Missing: missing}), nil
		}
	}
	runs, stored := s.storedRuns(st)
	step, why, err := s.measure(ctx, st, runs, stored)
	if err != nil {
		return bisect.Outcome{}, err
	}
	if why.Cause != 0 && step.Rounds == 0 {
		if st.Kind == bisect.Endpoints {
			// Without GOOD and BAD measured there is no search.
			return bisect.Outcome{}, fmt.Errorf("GOOD and BAD could not be measured: %s", report.BisectWhy(why))
		}
		return s.skip(st.Mid, why), nil
	}
	s.steps = append(s.steps, step)
	if st.Kind == bisect.Endpoints {
		s.rule.Up = step.BadGood.Ratio > 1
	}
	fmt.Fprintf(s.opt.Progress, "perflab bisect: %s\n", report.BisectStepLine(step))
	return bisect.Outcome{Verdict: step.Verdict, Why: why}, nil
}

// unmeasurable says why a commit that could not be prepared is skipped.
func unmeasurable(err error) bisect.Reason {
	var nb *notBuilt
	if errors.As(err, &nb) {
		return bisect.Reason{Cause: bisect.NotBuilt, Detail: nb.detail}
	}
	return bisect.Reason{Cause: bisect.NotListed, Detail: firstLine(err.Error())}
}

// notBuilt is a commit whose test binary does not build; detail is the
// compiler's first error.
type notBuilt struct{ detail string }

func (e *notBuilt) Error() string { return "does not build: " + e.detail }

// name names commit i for people, with its role.
func (s *stepper) name(i int) string {
	role := ""
	switch i {
	case 0:
		role = "GOOD "
	case len(s.history) - 1:
		role = "BAD "
	}
	c := s.history[i]
	return fmt.Sprintf("%s%s (%s)", role, c.Short(), c.Subject)
}

// prepare materialises commit i (with the With files), builds its test
// binary and lists its benchmarks, once.
func (s *stepper) prepare(ctx context.Context, i int) error {
	if err, ok := s.failed[i]; ok {
		return err
	}
	if _, ok := s.benches[i]; ok {
		return nil
	}
	// With files go into the one package (Options refuses them with
	// several).
	src, err := s.repo.MaterializeWith(ctx, s.history[i].Hash, s.opt.CacheDir, s.opt.Packages[0], s.opt.With)
	if err == nil {
		s.sources[i] = src
		var l *discover.Listing
		probe := discover.Config{Name: "probe"}
		if a := s.funcAlign(); a > 0 {
			probe.Env = []string{fmt.Sprintf("LDFLAGS=-funcalign=%d", a)}
		}
		l, err = ab.ListAll(ctx, src, probe, s.opt.Packages, s.opt.Bench, filepath.Join(s.opt.CacheDir, "bin"))
		var be *ab.BuildError
		if errors.As(err, &be) {
			err = &notBuilt{compileError(err.Error())}
		}
		s.benches[i] = nil
		if err == nil {
			s.benches[i] = l.Benches
			for _, line := range discover.SkipLines(l.Skipped) {
				fmt.Fprintf(s.opt.Progress, "perflab bisect: %s: %s\n", s.name(i), line)
			}
		}
	}
	if err != nil && ctx.Err() == nil {
		s.failed[i] = err
	}
	return err
}

// choose fixes the benchmarks every step runs: those GOOD and BAD both
// have, and checks BenchFor.
func (s *stepper) choose() error {
	n := len(s.history) - 1
	common, onlyGood, onlyBad := ab.Split(s.benches[0], s.benches[n])
	if len(common) == 0 {
		return fmt.Errorf("no benchmark matching %q exists in both GOOD (%d) and BAD (%d); check -bench and the package, or bring one in with --with FILE", s.opt.Bench, len(s.benches[0]), len(s.benches[n]))
	}
	for _, l := range []struct {
		where string
		bs    []discover.Bench
	}{{"GOOD", onlyGood}, {"BAD", onlyBad}} {
		if len(l.bs) > 0 {
			fmt.Fprintf(s.opt.Progress, "perflab bisect: only in %s, not bisected: %s\n", l.where, strings.Join(benchNames(l.bs), ", "))
		}
	}
	s.set = common
	if s.opt.BenchFor != "" {
		want := s.opt.BenchFor
		if !strings.HasPrefix(want, "Benchmark") {
			want = "Benchmark" + want
		}
		var in []string
		for _, b := range common {
			if b.Name() == want {
				in = append(in, b.FullName())
			}
		}
		switch {
		case len(in) == 0:
			return fmt.Errorf("--bench-for %s: no such benchmark among those selected in GOOD and BAD: %s", s.opt.BenchFor, strings.Join(benchNames(common), ", "))
		case len(in) > 1:
			return fmt.Errorf("--bench-for %s: %d packages have a benchmark of that name (%s); bisect the one package whose benchmark to decide on", s.opt.BenchFor, len(in), strings.Join(in, ", "))
		}
		s.rule.Bench = want
	}
	return nil
}

// benchNames names benchmarks for people, each with its package in a
// selection over several.
func benchNames(bs []discover.Bench) []string {
	var out []string
	for _, x := range bs {
		out = append(out, x.FullName())
	}
	return out
}

// lacking lists the benchmarks of want that have is without.
func lacking(want, have []discover.Bench) []string {
	var out []string
	names := benchNames(have)
	for _, w := range want {
		if !slices.Contains(names, w.FullName()) {
			out = append(out, w.FullName())
		}
	}
	return out
}

// storedRuns are the runs of the bisect being resumed that measured step
// st's commits, and how many rounds they hold.
func (s *stepper) storedRuns(st bisect.Step) ([]int64, int) {
	mid := ""
	if st.Kind == bisect.Midpoint {
		mid = s.history[st.Mid].Hash
	}
	var ids []int64
	rounds := 0
	for _, r := range s.stored {
		if r.Lo == s.history[st.Lo].Hash && r.Mid == mid && r.Hi == s.history[st.Hi].Hash {
			ids = append(ids, r.ID)
			rounds += r.RoundsStored
		}
	}
	return ids, rounds
}

// measure judges step st: from its stored runs when they decide it, else
// with a new run of further rounds. why says what kept it undecided, or
// why a midpoint could not be measured (with no rounds); its Cause is 0
// when the step was decided.
func (s *stepper) measure(ctx context.Context, st bisect.Step, runs []int64, stored int) (findings.BisectStep, bisect.Reason, error) {
	var none bisect.Reason
	if len(runs) > 0 {
		step, err := findings.LoadBisectStep(ctx, s.db, st, runs, s.rule)
		if err != nil || step.Verdict != bisect.Undecided {
			return step, none, err
		}
	}
	left := s.opt.MaxRounds - stored
	budget, ok := s.stepBudget(st)
	switch {
	case left < 1:
		step, err := findings.LoadBisectStep(ctx, s.db, st, runs, s.rule)
		return step, bisect.Reason{Cause: bisect.StoredRoundsSpent, Rounds: stored}, err
	case !ok && st.Kind == bisect.Endpoints && len(runs) == 0:
		return findings.BisectStep{}, none, s.tooSmall(st, budget, minStepBudget)
	case !ok:
		step, err := findings.LoadBisectStep(ctx, s.db, st, runs, s.rule)
		return step, bisect.Reason{Cause: bisect.BudgetSpent}, err
	}
	first := budget
	var spent time.Duration
	for {
		id, err := s.run(ctx, st, runs, budget, left)
		var small *engine.BudgetError
		if len(runs) > 0 && errors.As(err, &small) {
			// What is left of the budget cannot start another run of
			// the step: the step ends undecided on the rounds it has.
			step, err := findings.LoadBisectStep(ctx, s.db, st, runs, s.rule)
			return step, bisect.Reason{Cause: bisect.ShareSpent, Spent: spent}, err
		}
		if errors.As(err, &small) && small.Least > 0 {
			if st.Kind == bisect.Endpoints {
				return findings.BisectStep{}, none, s.tooSmall(st, budget, small.Least)
			}
			// A later step whose share cannot start it: the budget is
			// spent, as when the share is below minStepBudget.
			step, err := findings.LoadBisectStep(ctx, s.db, st, runs, s.rule)
			return step, bisect.Reason{Cause: bisect.BudgetSpent}, err
		}
		if err != nil {
			return findings.BisectStep{}, none, err
		}
		spent += budget
		runs = append(runs, id)
		step, err := findings.LoadBisectStep(ctx, s.db, st, runs, s.rule)
		if err != nil || step.Verdict != bisect.Undecided {
			return step, none, err
		}
		if step.Rounds == 0 {
			return step, s.failure(ctx, st, id), nil
		}
		if budget <= 0 {
			return step, bisect.Reason{Cause: bisect.RoundsSpent, Rounds: s.opt.MaxRounds}, nil
		}
		// An undecided step ends the search, so what is left of the
		// budget can serve only this step: it goes on with a further
		// share (pooled with its earlier runs) while one is worth
		// starting and MaxRounds allows. A further share is as large
		// as its first (or all that is left): each run relinks and
		// calibrates before its rounds, so shares that shrank with
		// what is left would spend ever more of themselves on that.
		left = s.opt.MaxRounds - step.Rounds
		if budget, ok = s.furtherBudget(st, first); !ok || left < 1 || ctx.Err() != nil {
			return step, bisect.Reason{Cause: bisect.ShareSpent, Spent: spent}, nil
		}
		fmt.Fprintf(s.opt.Progress, "perflab bisect: step %d still undecided after %d rounds; it goes on with %s more of the budget\n", st.Number, step.Rounds, budget.Round(time.Second))
	}
}

// tooSmall is the error of a first step whose share of the budget
// cannot hold its first rounds, which need least: it names the budget
// that gives every step that share.
func (s *stepper) tooSmall(st bisect.Step, share, least time.Duration) error {
	share = max(share, 0)
	steps := max(1, s.planned-st.Number+1)
	// A midpoint step runs the midpoint twice a round beside both ends
	// (once under instructions/op): twice the cells, or 1.5 times.
	mid := least * 2
	if s.rule.Unit == engine.UnitInstructions {
		mid = least * 3 / 2
	}
	whole := time.Since(s.start) + least + mid*time.Duration(steps-1)
	whole = (whole + time.Minute - 1).Truncate(time.Minute)
	need := fmt.Sprintf("its first rounds need about %s", least)
	if least == minStepBudget {
		need = fmt.Sprintf("a step starts with %s or more", least)
	}
	of := ""
	if steps > 1 {
		of = fmt.Sprintf(", an equal share of it for each of the %d steps a search of %d commits may take,", steps, len(s.history)-1)
		need += " (the later steps run more cells)"
	}
	return fmt.Errorf("step %d gets %s of --budget %s%s and %s: --budget %s or more would run the search, or select fewer benchmarks",
		st.Number, share.Round(time.Second), s.opt.Budget, of, need, whole)
}

// furtherBudget is the share of a further run of undecided step st
// whose first run had first: the larger of its share now and first,
// within what is left of the budget.
func (s *stepper) furtherBudget(st bisect.Step, first time.Duration) (time.Duration, bool) {
	d, _ := s.stepBudget(st)
	d = min(max(d, first), s.opt.Budget-time.Since(s.start))
	return d, d >= minStepBudget
}

// minStepBudget is the least share of the budget a step starts with.
const minStepBudget = 5 * time.Second

// stepBudget is step st's share of what is left of the budget: an equal
// share for each of the planned steps still to come (at least one).
func (s *stepper) stepBudget(st bisect.Step) (time.Duration, bool) {
	if s.opt.Budget <= 0 {
		return 0, true
	}
	left := s.opt.Budget - time.Since(s.start)
	d := left / time.Duration(max(1, s.planned-st.Number+1))
	return d, d >= minStepBudget
}

// run measures step st in a new run of at most maxRounds rounds, judged
// after every round on its rounds and those of the earlier runs of the
// step.
func (s *stepper) run(ctx context.Context, st bisect.Step, earlier []int64, budget time.Duration, maxRounds int) (int64, error) {
	lo, hi := s.sources[st.Lo], s.sources[st.Hi]
	configs := []discover.Config{{Name: findings.BisectGood}, {Name: findings.BisectBad}}
	sources := map[string]string{findings.BisectGood: lo.ModDir, findings.BisectBad: hi.ModDir}
	title := fmt.Sprintf("bisect step %d: GOOD %s vs BAD %s", st.Number, lo.Label(), hi.Label())
	mid := ""
	if st.Kind == bisect.Midpoint {
		m := s.sources[st.Mid]
		mid = m.Commit
		configs = []discover.Config{{Name: findings.BisectGood}, {Name: findings.BisectMid}, {Name: findings.BisectMidAgain}, {Name: findings.BisectBad}}
		sources[findings.BisectMid], sources[findings.BisectMidAgain] = m.ModDir, m.ModDir
		if s.rule.Unit == engine.UnitInstructions {
			// Counts carry no one-sided noise: the midpoint runs once
			// (findings.BisectMidAgain).
			configs = slices.Delete(configs, 2, 3)
			delete(sources, findings.BisectMidAgain)
		}
		title = fmt.Sprintf("bisect step %d: %s between %s and %s", st.Number, m.Label(), lo.Short(), hi.Short())
	}
	if a := s.funcAlign(); a > 0 {
		for i := range configs {
			configs[i].Env = []string{fmt.Sprintf("LDFLAGS=-funcalign=%d", a)}
		}
	}
	var names []string
	for _, c := range configs {
		names = append(names, c.Name)
	}
	// A bisect over several packages is the module's: its cells name
	// their packages.
	pkg := s.opt.Packages[0]
	if ab.Several(s.opt.Packages) {
		pkg = "."
	}
	sp, err := ab.Spec(filepath.Join(lo.ModDir, "perflab-bisect.toml"), discover.SpecInput{
		Name: "bisect-" + ab.Name(s.opt.Dir, pkg), Title: title, Package: pkg, Benches: s.set, Configs: configs,
		Rounds: findings.InitialRounds, Benchtime: s.opt.Benchtime, CPU: s.opt.CPU,
	})
	if err != nil {
		return 0, err
	}
	seed := s.opt.Seed
	if seed != 0 {
		seed += int64(st.Number)
	}
	res, err := engine.Run(ctx, engine.Options{
		Spec: sp, Mode: "quick", DB: s.db, ArtifactDir: s.opt.ArtifactDir, CacheDir: filepath.Join(s.opt.CacheDir, "bin"), Progress: s.opt.Progress,
		Seed: seed, Rounds: findings.InitialRounds, Benchtime: s.opt.Benchtime, CPU: s.opt.CPU, Budget: budget, Measure: s.opt.Measure,
		NoProfile: true, Verbose: s.opt.Verbose, Layout: s.opt.Layout, Repeat: analysis.RepeatEstimate, ChooseRepeats: analysis.ChooseRepeats,
		Cells: discover.Cells(s.set, names), Sources: sources, Sequential: true, MaxRounds: maxRounds, Unit: s.rule.Unit,
		Judge: stepJudge{s: s, step: st, earlier: earlier},
		Env: []store.KV{{Key: findings.BisectKey, Value: s.id}, {Key: findings.BisectStepKey, Value: strconv.Itoa(st.Number)},
			{Key: findings.BisectLoKey, Value: lo.Commit}, {Key: findings.BisectMidKey, Value: mid}, {Key: findings.BisectHiKey, Value: hi.Commit}},
	})
	if err != nil {
		return 0, err
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	return res.RunID, nil
}

// stepJudge is the engine's judge of a bisect step's run: one item that
// reads every cell, decided when the step's rounds (with those of the
// step's earlier runs) give it a verdict.
type stepJudge struct {
	s       *stepper
	step    bisect.Step
	earlier []int64 // runs of the same step stored before this one
}

func (j stepJudge) Rules(*spec.Spec) engine.Rules {
	if len(j.earlier) > 0 {
		// A step's further run adds to rounds that already give its
		// interval: one layout's rounds at a time are enough to judge.
		return engine.Rules{InitialRounds: 1}
	}
	return engine.Rules{InitialRounds: findings.InitialRounds}
}

func (j stepJudge) Sequential(ctx context.Context, runID int64) (engine.Status, error) {
	st, err := findings.LoadBisectStep(ctx, j.s.db, j.step, append(slices.Clone(j.earlier), runID), j.s.rule)
	if err != nil {
		return engine.Status{}, err
	}
	var cells []plan.Cell
	for _, name := range []string{findings.BisectGood, findings.BisectMid, findings.BisectMidAgain, findings.BisectBad} {
		cells = append(cells, discover.Cells(j.s.set, []string{name})...)
	}
	line := report.BisectStepLine(st)
	return engine.Status{Items: []engine.Item{{Label: fmt.Sprintf("step %d", j.step.Number), Cells: cells, Decided: st.Verdict != bisect.Undecided, More: -1, Line: line}}}, nil
}

// FirstLook is never asked: a step's run is sequential.
func (j stepJudge) FirstLook(context.Context, int64) (engine.Status, error) {
	return engine.Status{}, nil
}

// failure says why a step's run measured nothing: the first failure
// recorded for the midpoint's cells.
func (s *stepper) failure(ctx context.Context, st bisect.Step, id int64) bisect.Reason {
	fs, err := s.db.Failures(ctx, id)
	if err != nil || len(fs) == 0 {
		return bisect.Reason{Cause: bisect.Unmeasured}
	}
	for _, f := range fs {
		if st.Kind == bisect.Endpoints || f.Config == findings.BisectMid || f.Config == findings.BisectMidAgain {
			return bisect.Reason{Cause: bisect.Failing, Detail: firstLine(f.Reason)}
		}
	}
	return bisect.Reason{Cause: bisect.Unmeasured, Detail: firstLine(fs[0].Reason)}
}

// compileError is the first line of a failed build's output that names a
// Go file (the compiler's first error), else the output's first line.
func compileError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ".go:") {
			return strings.TrimSpace(l)
		}
	}
	return firstLine(out)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// funcAlign is the function alignment every commit's build pins
// (Options.FuncAlign); 0 for the linker's default.
func (s *stepper) funcAlign() int {
	switch a := s.opt.FuncAlign; {
	case a == 0:
		return ab.DefaultFuncAlign
	case a < 0:
		return 0
	default:
		return a
	}
}
