// Package engine runs an experiment: it plans the cells, builds one test
// binary per build environment, runs interleaved shuffled rounds, commits
// each completed round to the store, captures profiles in a separate pass
// and records the machine's environment and noise around the run.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/env"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
	"github.com/perflab/perflab/unit"
)

// Options configures one run.
type Options struct {
	Spec        *spec.Spec
	Mode        string        // "quick" or "full"
	DB          *store.DB     // where samples go
	ArtifactDir string        // profiles go to ArtifactDir/run-<id>/
	CacheDir    string        // compiled test binaries
	Seed        int64         // planner seed; 0 picks one from the clock
	Rounds      int           // overrides the mode's rounds when > 0
	Benchtime   string        // overrides the mode's benchtime when non-empty
	CPU         []int         // overrides the mode's -test.cpu list when non-nil
	Budget      time.Duration // when > 0, rounds and benchtime are chosen to fit it
	// DefaultBudget marks Budget as a default the user did not choose:
	// when the first interval of every compared ratio needs more, the
	// run grows it to what they need and says so, instead of refusing.
	DefaultBudget bool
	// Alpha is the error rate a sequential run decides at (recorded in
	// store.Decide.Alpha); 0 → 0.05.
	Alpha      float64
	Cells      []plan.Cell // when non-nil, run these cells instead of the spec's axis product
	NoProfile  bool        // skip the profiling pass
	NoFollowUp bool        // run exactly the planned rounds: no follow-up rounds after the first look (followup.go)
	NoiseRuns  int         // calibration loops before and after; 0 → 30
	Measure    string      // also measure "instructions" (see spec.ParseMeasure); "" uses the mode's
	Progress   io.Writer   // progress lines; nil → discard

	// Sequential sampling (adaptive.go): on when Sequential is set or any
	// of Precision, MaxRounds and Budget is. After an initial pass, rounds
	// of only the cells of undecided checks run until every one is decided.
	Sequential bool
	Precision  float64 // stop once every compared ratio's half-width is ≤ this (0.01 = ±1%)
	MaxRounds  int     // at most this many rounds in all; 0 → 500
	Unit       string  // unit compared ratios are decided on: "sec/op" (default) or "cpu-sec/op"
	Verbose    bool    // a line per round even on a terminal

	// NamesOnly limits the check before round 1 to the benchmark names
	// (-test.list, which runs nothing); otherwise every planned cell is
	// checked against one pass of the selection at one iteration each
	// (see checkSelection).
	NamesOnly bool
	// NewRunIfChanged makes Resume start a new run with the stored run's
	// plan when a test binary differs from the one the run recorded;
	// without it such a resume is refused (*BinaryChangedError).
	NewRunIfChanged bool
	// Shard, when set, runs only this shard's rounds of the run named by
	// its key (see shard.go).
	Shard *Shard
	// Sources maps a config name to the directory its package source is
	// taken from instead of the spec's directory (see source.go).
	Sources map[string]string
	// GateRatios are CI-gate limits as ratios (1.01 for "sec/op>+1%") of
	// the unit sequential sampling decides on: a compared ratio is decided
	// only once its interval lies wholly on one side of each of them.
	GateRatios []float64
	// Env is recorded with a new run as soon as it is created, beside
	// the machine's description: keys that name what the run is part of
	// (perflab bisect's step), so that even a run killed in its first
	// round carries them.
	Env []store.KV

	// Judge decides which checks and compared ratios are still open:
	// after each round of a sequential run, and at the first look of a run
	// of fixed rounds (followup.go). Without one a run is never sequential
	// and takes no first look.
	Judge Judge
	// Layout is LayoutRandom to relink every build with a fresh random
	// function layout every few rounds, so that comparisons of builds
	// hold over layouts (layout.go); "" or LayoutFixed links each build
	// once.
	Layout string

	// Repeat is the value of a process from its repetitions' values
	// (repeats.go; perflab passes their median); nil runs one repetition
	// per process.
	Repeat func([]float64) float64
	// ChooseRepeats picks the repetitions a group of compared cells'
	// processes run after a sequential run's initial pass, from their
	// repetitions and costs (alloc.go; perflab passes
	// analysis.ChooseRepeats); nil keeps the default for every cell. Only
	// a run that combines repetitions (Repeat) uses it.
	// The arguments: each cell's processes' repetitions (sec/op), round
	// by round over the rounds the cells all ran the same number; what a
	// process costs to start and exit; what a repetition costs, summed
	// over the cells; the most repetitions to choose.
	ChooseRepeats func(reps [][][]float64, start, perRep time.Duration, maxK int) (int, bool)
}

// Result says how a run ended.
type Result struct {
	RunID       int64
	Status      string // "complete", "partial" (some cells or configs failed), "interrupted" or "failed"
	RoundsDone  int
	RoundsTotal int
	Failures    int
	Artifacts   string // directory of this run's artifacts
	Sequential  bool   // rounds were sampled sequentially: analyse with anytime-valid intervals
	// ShardsRunning is, for a shard, how many of the run's shards were
	// still at work when it ended (0: it ended the run).
	ShardsRunning int
}

// convertCells converts cells between the plan's shape and the one the
// store keeps them in; nil stays nil.
func convertCells[To, From ~struct {
	Bench   string
	Levels  []string
	Config  string
	Package string `json:"Package,omitempty"`
}](cells []From) []To {
	if cells == nil {
		return nil
	}
	out := make([]To, len(cells))
	for i, c := range cells {
		out[i] = To(c)
	}
	return out
}

// Run executes the experiment. Cancelling ctx stops the cell in flight,
// discards the incomplete round and returns with Status "interrupted"; every
// completed round is already committed, and Resume completes the rest.
func Run(ctx context.Context, opt Options) (*Result, error) {
	if opt.Seed == 0 && opt.Shard != nil {
		opt.Seed = keySeed(opt.Shard.Key)
	}
	if opt.Seed == 0 {
		opt.Seed = time.Now().UnixNano()
	}
	return execute(ctx, opt, nil)
}

// Resume completes a stored run that was interrupted or killed: it rebuilds
// the same plan (same cells, seed, rounds and benchtime) and runs only the
// rounds that are not stored, so the finished run holds exactly the planned
// samples. opt.Spec must be the run's spec (re-parsed from its stored text);
// the mode and plan options in opt are ignored in favour of the stored ones.
func Resume(ctx context.Context, opt Options, runID int64) (*Result, error) {
	run, err := opt.DB.GetRun(ctx, runID)
	if err != nil {
		return nil, err
	}
	if run.Status == "complete" || run.Status == "partial" {
		return nil, fmt.Errorf("run %d is already %s; nothing to resume", runID, run.Status)
	}
	if err := checkOwner(run); err != nil {
		return nil, err
	}
	saved := run.Plan
	if saved.Mode == "" {
		return nil, fmt.Errorf("run %d has no stored plan, so it cannot be resumed exactly (it was made by an older perflab); start a new run", runID)
	}
	opt.Mode, opt.Rounds, opt.Benchtime, opt.CPU = saved.Mode, saved.Rounds, saved.Benchtime, saved.CPU
	opt.NoProfile, opt.Cells, opt.Seed, opt.Budget = saved.NoProfile, convertCells[plan.Cell](saved.Cells), run.Seed, 0
	opt.Measure = saved.Measure
	opt.Sources = saved.Sources
	opt.Layout = LayoutFixed
	if saved.Layout != nil {
		opt.Layout = LayoutRandom
	}
	return execute(ctx, opt, run)
}

// execute runs a new run (resume == nil) or continues a stored one.
func execute(ctx context.Context, opt Options, resume *store.Run) (*Result, error) {
	mode, err := opt.Spec.Mode(opt.Mode)
	if err != nil {
		return nil, err
	}
	opt.Spec = opt.Spec.ForMode(opt.Mode) // configs that run in other modes only are left out
	s := opt.Spec
	if opt.Rounds > 0 {
		mode.Rounds = opt.Rounds
	}
	if opt.Benchtime != "" {
		mode.Benchtime = opt.Benchtime
	}
	if opt.CPU != nil {
		mode.CPU = opt.CPU
	}
	timeout, err := time.ParseDuration(cmpOr(mode.Timeout, "2m"))
	if err != nil {
		return nil, fmt.Errorf("mode %s: timeout: %w", opt.Mode, err)
	}
	measure, err := spec.ParseMeasure(cmpOr(opt.Measure, mode.Measure))
	if err != nil {
		return nil, err
	}
	if opt.Unit == UnitInstructions && !measure.Instructions {
		return nil, fmt.Errorf("deciding on %s needs instruction counts: add --measure instructions", UnitInstructions)
	}
	if resume == nil {
		if err := judged(opt); err != nil {
			return nil, err
		}
	}
	p, err := makePlan(opt, mode)
	if err != nil {
		return nil, err
	}
	progress := opt.Progress
	if progress == nil {
		progress = io.Discard
	}

	bins, configRows, err := buildAll(ctx, opt, progress)
	if err != nil {
		return nil, err
	}
	if len(bins) == 0 {
		return nil, errors.New("no configuration could be built or downloaded; see the errors above")
	}
	if resume != nil {
		if resume, err = checkBinaries(ctx, opt, resume, configRows, progress); err != nil {
			return nil, err
		}
	} else if opt.Cells == nil {
		if err := checkSelection(ctx, opt, p, timeout, bins, progress); err != nil {
			return nil, err
		}
	}
	mode.ProfileBenchtime = profileBenchtime(opt, p, mode)
	meas, err := newMeasurer(ctx, opt, mode, p, bins, progress)
	if err != nil {
		return nil, err
	}
	var rules Rules
	if opt.Judge != nil {
		rules = opt.Judge.Rules(s)
	}
	var seq *sequential
	if resume == nil {
		if seq, err = sequentialFor(opt, measure, rules); err != nil {
			return nil, err
		}
		if seq != nil && rules.InitialFor != nil {
			seq.initial = max(1, rules.InitialFor(cellsPerConfig(p)))
		}
	}
	lay, err := startLayouts(ctx, opt, resume, p, mode, bins, progress)
	if err != nil {
		return nil, err
	}
	defer lay.close()
	if seq == nil && resume == nil && rules.FixedFor != nil && opt.Budget <= 0 {
		n, err := fitObservations(lay, mode.Rounds, rules.FixedFor(cellsPerConfig(p)), opt.Rounds == 0, progress)
		if err != nil {
			return nil, err
		}
		mode.Rounds, p.Rounds = n, n
	}
	if seq != nil && lay != nil {
		// The initial pass gives every compared ratio its first
		// interval: as many layouts as it would have rounds.
		seq.initial *= lay.per(1)
	}
	opt.Shard.splitInitial(seq, lay)
	// A shard's budget is its machine's wall time: nothing is fitted to
	// one machine's timing, so every shard stores the same plan.
	if opt.Budget > 0 && resume == nil && opt.Shard == nil {
		// Trials, on a copy of the mode, of what the budget can hold:
		// each probes the machine again, and only the last fit counts.
		var probed budgetProbe
		try := func() error {
			m := mode
			return fitBudget(ctx, seq.initialBudget(opt), opt.Budget, seq.initialRounds(), p, &m, timeout, bins, meas, lay, &probed, io.Discard)
		}
		err := try()
		if err != nil {
			seq.layoutARound(lay, opt.Shard, progress)
		}
		if err != nil && seq != nil && opt.Repeat != nil && seq.unit != UnitCPU {
			if err = try(); err != nil {
				// Each repetition runs the benchmark's set-up again
				// (and go test's one-iteration run before it): where
				// set-up dominates, one repetition a process is what
				// the budget can hold.
				opt.Repeat = nil
				fmt.Fprintf(progress, "perflab: the budget does not fit %d repetitions a process (each runs the benchmark's set-up again); each process times one\n", repeats)
			}
		}
		err = fitBudget(ctx, seq.initialBudget(opt), opt.Budget, seq.initialRounds(), p, &mode, timeout, bins, meas, lay, &probed, io.Discard)
		var short *BudgetError
		if errors.As(err, &short) && opt.DefaultBudget && short.Least > opt.Budget {
			// The default budget is sized to decide: when the first
			// rounds of every row need more, it grows to what they need.
			grown := 2 * short.Least
			fmt.Fprintf(progress, "perflab: the default budget of %s cannot hold the first interval of every compared ratio: sampling under %s instead, twice what the first needs (pass --budget to choose)\n",
				opt.Budget.Round(time.Second), grown.Round(time.Second))
			opt.Budget = grown
			if seq != nil {
				seq.budget = opt.Budget
			}
		}
		if err := fitBudget(ctx, seq.initialBudget(opt), opt.Budget, seq.initialRounds(), p, &mode, timeout, bins, meas, lay, &probed, progress); err != nil {
			return nil, err
		}
		p.Rounds = mode.Rounds
	}
	seq.initialPass(&mode, p)

	run := resume
	joined := false
	if run == nil {
		saved := store.Plan{Mode: opt.Mode, Rounds: mode.Rounds, Benchtime: mode.Benchtime, CPU: mode.CPU, NoProfile: opt.NoProfile,
			Cells: convertCells[store.Cell](opt.Cells), Sources: opt.Sources, Measure: opt.Measure, Sequential: seq != nil, Decide: seq.decide(opt), Layout: lay.plan()}
		if seq == nil && followsUp(opt, rules) {
			saved.FirstLook = mode.Rounds
		}
		run = &store.Run{
			Experiment: s.Name, Mode: opt.Mode, SpecPath: s.File, SpecText: string(s.Source),
			Seed: opt.Seed, RoundsPlanned: mode.Rounds, Plan: saved, Owner: store.CurrentOwner(),
		}
		if opt.Shard != nil {
			if joined, err = joinShardRun(ctx, opt, run, configRows); err != nil {
				return nil, err
			}
		} else if _, err := opt.DB.CreateRun(ctx, run); err != nil {
			return nil, fmt.Errorf("recording the run: %w", err)
		}
	} else if err := opt.DB.ClaimRun(ctx, run.ID); err != nil {
		return nil, err
	}
	res := &Result{RunID: run.ID, RoundsTotal: mode.Rounds, Sequential: seq != nil || run.Plan.Sequential, Artifacts: filepath.Join(opt.ArtifactDir, fmt.Sprintf("run-%d", run.ID))}
	verb := "run"
	if resume != nil {
		verb = "resuming run"
	}
	fmt.Fprintf(progress, "perflab: %s %d: %s (%s): %d cells × %d rounds, benchtime %s\n",
		verb, run.ID, s.Name, opt.Mode, len(p.Cells), mode.Rounds, cmpOr(mode.Benchtime, "default"))

	finish := func(status string, err error) (*Result, error) {
		res.Status = status
		status, running, serr := shardStatus(ctx, opt, run.ID, mode.Rounds, status)
		res.ShardsRunning = running
		if err == nil {
			err = serr
		}
		if running > 0 {
			return res, err
		}
		// Record the end even when ctx is cancelled.
		if ferr := opt.DB.FinishRun(context.WithoutCancel(ctx), run.ID, status); ferr != nil && err == nil {
			err = ferr
		}
		return res, err
	}

	if resume == nil && !joined {
		if err := recordConfigs(ctx, opt.DB, run.ID, configRows); err != nil {
			return finish(statusFor(ctx), err)
		}
		if len(opt.Env) > 0 {
			if err := opt.DB.SetEnv(ctx, run.ID, opt.Env); err != nil {
				return finish(statusFor(ctx), err)
			}
		}
		if err := recordEnv(ctx, opt, run.ID, "before", progress); err != nil {
			return finish(statusFor(ctx), err)
		}
		if err := opt.DB.SetUnitMeta(ctx, run.ID, unitMeta(opt.Spec)); err != nil {
			return finish("failed", err)
		}
	}
	if meas != nil {
		if err := meas.record(ctx, opt.DB, run.ID, res.Artifacts, resume == nil); err != nil {
			return finish(statusFor(ctx), err)
		}
	}
	notFetched := map[string]bool{}
	for _, row := range configRows {
		notFetched[row.Name] = row.NotFetched.What != ""
	}
	for _, c := range p.Cells {
		if _, ok := bins[slot(c)]; !ok && !notFetched[c.Config] {
			res.Failures++ // a config that did not build; one not testable here is no failure
		}
	}

	r := &rounds{opt: opt, plan: p, mode: mode, timeout: timeout, bins: bins, runID: run.ID, progress: progress, res: res, seq: seq, meas: meas, lay: lay}
	r.firstLook = run.Plan.FirstLook
	err = r.runAll(ctx)
	if err == nil {
		err = r.followUp(ctx)
	}
	if err == nil {
		err = r.runMore(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			fmt.Fprintf(progress, "\nperflab: interrupted: %d of %d rounds complete and stored (run %d)\n", res.RoundsDone, res.RoundsTotal, run.ID)
			return finish("interrupted", nil)
		}
		return finish("failed", err)
	}

	if err := lay.record(ctx, opt.DB, run.ID); err != nil {
		return finish("failed", err)
	}
	if !opt.NoProfile && opt.Shard.owns(1) && (resume == nil || !hasArtifacts(ctx, opt.DB, run.ID, progress)) {
		profileAll(ctx, opt, p, mode, bins, res, progress)
	}
	phase := "after"
	if resume != nil {
		phase = "after-resume"
	}
	if err := recordEnv(ctx, opt, run.ID, phase, progress); err != nil && ctx.Err() == nil {
		return finish("failed", err)
	}
	if ctx.Err() != nil {
		return finish("interrupted", nil)
	}
	return finish(endStatus(res, configRows), nil)
}

// makePlan lays out the cells: the given ones, or the spec's axis product.
func makePlan(opt Options, mode spec.Mode) (*plan.Plan, error) {
	if opt.Cells != nil {
		return &plan.Plan{Cells: opt.Cells, Rounds: mode.Rounds, Seed: opt.Seed}, nil
	}
	return plan.ForSpec(opt.Spec, opt.Mode, mode.Rounds, opt.Seed)
}

// hasArtifacts reports whether the profiling pass already stored profiles.
// When they cannot be read it says so and reports false: the pass runs
// again.
func hasArtifacts(ctx context.Context, db *store.DB, runID int64, progress io.Writer) bool {
	arts, err := db.Artifacts(ctx, runID)
	if err != nil {
		fmt.Fprintf(progress, "perflab: cannot tell whether run %d was profiled already, so it is profiled again: %v\n", runID, err)
		return false
	}
	for _, a := range arts {
		if a.Kind != cachegrind.ArtifactKind {
			return true
		}
	}
	return false
}

func statusFor(ctx context.Context) string {
	if ctx.Err() != nil {
		return "interrupted"
	}
	return "failed"
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// recordEnv stores the environment (before the run) and the noise estimate.
func recordEnv(ctx context.Context, opt Options, runID int64, phase string, progress io.Writer) error {
	var kv []store.KV
	if phase == "before" {
		var goEnv []string
		if len(opt.Spec.Configs) > 0 {
			goEnv = opt.Spec.Configs[0].BuildEnv()
		}
		info, err := env.Capture(ctx, opt.Spec.Dir, goEnv)
		if err != nil {
			return fmt.Errorf("capturing the environment: %w", err)
		}
		for _, e := range info {
			kv = append(kv, store.KV{Key: e.Key, Value: e.Value})
		}
	}
	n := opt.NoiseRuns
	if n == 0 {
		n = 30
	}
	noise, err := env.Noise(ctx, n)
	if err != nil {
		return fmt.Errorf("measuring noise: %w", err)
	}
	kv = append(kv, store.KV{Key: "noise-" + phase, Value: noise.String()})
	when := map[string]string{"before": "before the run", "after": "after the run", "after-resume": "after the resumed run"}[phase]
	fmt.Fprintf(progress, "perflab: noise %s: %s\n", when, noise)
	return opt.DB.SetEnv(context.WithoutCancel(ctx), runID, kv)
}

// unitMeta is the unit metadata stored with a run, from the unit table
// (package unit): which way perflab's own units (CPU time per op,
// benchmetrics' units) and the units the spec declares improve, the
// spec's last (the store keeps the last value). go test's own units
// (sec/op, B/op, allocs/op, MB/s) are known to benchstat.
func unitMeta(s *spec.Spec) []store.UnitMeta {
	var m []store.UnitMeta
	for _, u := range append(unit.Own(), unit.Declared(s)...) {
		m = append(m, store.UnitMeta{Unit: u.Unit, Key: u.Key, Value: u.Value})
	}
	return m
}

// buildAll compiles one binary per distinct build environment and package
// (a slot each, packages.go). A config that fails to build keeps its error
// in its row and is left out; the others go on. One that failed only
// because the go command could not download its toolchain or modules
// (gotest.FetchError) is not testable here: its row says what and why
// (NotFetched), and it is no failure of the run.
func buildAll(ctx context.Context, opt Options, progress io.Writer) (map[string]string, []store.Config, error) {
	bins := map[string]string{}
	byKey := map[string]string{} // build key → binary
	failed := map[string]error{}
	var rows []store.Config
	pkgs := opt.packages()
	for _, c := range opt.Spec.Configs {
		row := store.Config{Name: c.Name, BuildEnv: c.BuildEnv(), BuildFlags: c.BuildFlags(), ExecEnv: c.ExecEnv()}
		var hashes, errs []string
		buildFailed := false // an error other than a download the go command could not make
		for _, pkg := range pkgs {
			name := slotOf(c.Name, pkg)
			key := opt.buildKeyOf(c, pkg)
			bin, ok := byKey[key]
			var err error
			if !ok {
				if ferr, seen := failed[key]; seen {
					err = ferr
				} else {
					b := gotest.Build{Dir: opt.specDir(name), Package: opt.packageOf(name), Env: c.BuildEnv(), Flags: c.BuildFlags(), CacheDir: opt.CacheDir}
					start := time.Now()
					var cached bool
					bin, cached, err = compile(ctx, opt, c.Name, b, progress)
					if err == nil {
						how := "built"
						if cached {
							how = "cached"
						}
						fmt.Fprintf(progress, "perflab: config %s: test binary %s (%s)\n", slotLabel(name), how, time.Since(start).Round(time.Millisecond))
						byKey[key] = bin
					} else {
						failed[key] = err
					}
				}
			}
			if err != nil {
				if ctx.Err() != nil {
					return nil, nil, fmt.Errorf("interrupted while building: %w", ctx.Err())
				}
				msg := err.Error()
				if pkg != "" {
					msg = "package " + pkg + ": " + msg
				}
				errs = append(errs, msg)
				var fe *gotest.FetchError
				if !errors.As(err, &fe) {
					fmt.Fprintf(progress, "perflab: config %s does not build; its cells are skipped:\n%s\n", slotLabel(name), indent(err.Error()))
					buildFailed = true
					continue
				}
				if row.NotFetched.What == "" {
					row.NotFetched = store.NotFetched{What: fe.What, Why: fe.Why}
				}
				fmt.Fprintf(progress, "perflab: config %s is not testable here: its %s could not be downloaded (%s); its cells are skipped\n", slotLabel(name), fe.What, fe.Why)
				continue
			}
			hashes = append(hashes, strings.TrimSuffix(filepath.Base(bin), ".test"))
			bins[name] = bin
		}
		// A config over several packages records its binaries' hashes
		// joined, so a resumed run sees a change in any of them.
		row.BinaryHash, row.Error = strings.Join(hashes, "+"), strings.Join(errs, "\n")
		if buildFailed {
			// Not testable here only when nothing but a download failed.
			row.NotFetched = store.NotFetched{}
		}
		rows = append(rows, row)
	}
	return bins, rows, nil
}

// recordConfigs stores the config rows, and a failure row for each config
// that did not build; a config not testable here for a download is
// recorded in its row alone.
func recordConfigs(ctx context.Context, db *store.DB, runID int64, rows []store.Config) error {
	for _, row := range rows {
		if err := db.AddConfig(ctx, runID, row); err != nil {
			return err
		}
		if row.Error != "" && row.NotFetched.What == "" {
			if err := db.AddFailure(ctx, runID, store.Failure{Config: row.Name, Cell: "(build)", Reason: row.Error}); err != nil {
				return err
			}
		}
	}
	return nil
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// rounds runs the timed rounds.
type rounds struct {
	opt      Options
	plan     *plan.Plan
	mode     spec.Mode
	timeout  time.Duration
	bins     map[string]string
	runID    int64
	progress io.Writer
	res      *Result
	meas     *measurer    // nil unless instructions are measured too
	lay      *layouts     // nil unless builds are relinked with random layouts
	seq      *sequential  // nil for a run of fixed rounds
	noise    *store.Noise // measured before the next sequential round; stored with it
	eff      efficiency
	failed   int // failed cell runs in the rounds run here
	// firstLook is the round of a fixed run's first look (followup.go);
	// 0 for a run without follow-up rounds.
	firstLook int
	// cellWall and cellRuns: each plan cell's wall time over its runs in
	// the planned rounds run here, what a follow-up round of it costs.
	cellWall map[int]time.Duration
	cellRuns map[int]int
	lastWall map[int]time.Duration // each plan cell's last run
	// left: plan cells a sequential run's budget left out (leaveout.go).
	left map[int]bool
	// roundExtra: the last planned round's time outside its cells'
	// processes (relinking, storing), what predictedRound adds.
	roundExtra     time.Duration
	plannedElapsed time.Duration
	ranHere        int   // planned rounds run (not skipped as stored) by runAll
	gate           *gate // how often a log gets a progress line (progress.go)
}

func (r *rounds) runAll(ctx context.Context) error {
	done, err := r.opt.DB.RoundsDone(ctx, r.runID)
	if err != nil {
		return err
	}
	skip := map[int]bool{}
	for _, d := range done {
		skip[d] = true
	}
	firstRound := 1
	for firstRound <= r.plan.Rounds && skip[firstRound] {
		firstRound++
	}
	tty := isTerminal(r.progress)
	start := time.Now()
	cellsRun, total := 0, r.plan.Size()
	for round := 1; round <= r.plan.Rounds; round++ {
		if !r.opt.Shard.owns(round) {
			total -= len(r.plan.Cells)
			continue
		}
		if skip[round] {
			r.res.RoundsDone++
			total -= len(r.plan.Cells)
			continue
		}
		if stop, err := r.initialPassSpent(ctx, round, start); stop || err != nil {
			return err
		}
		roundStart, inCells := time.Now(), time.Duration(0)
		var results []*benchfmt.Result
		var failures, skipped []store.Failure
		order := r.plan.Order(round)
		bins, err := r.binsFor(ctx, round, order)
		if err != nil {
			return err
		}
		for i, ci := range order {
			if err := ctx.Err(); err != nil {
				return err
			}
			cell := r.plan.Cells[ci]
			bin, ok := bins[slot(cell)]
			if !ok || r.left[ci] {
				continue
			}
			if tty {
				fmt.Fprintf(r.progress, "\r\033[K[round %d/%d · cell %d/%d] %s  %s", round, r.plan.Rounds, i+1, len(r.plan.Cells), cell, eta(start, cellsRun, total))
			}
			cellStart := time.Now()
			out, err := r.runCell(ctx, bin, cell, round)
			r.timeCell(ci, time.Since(cellStart))
			inCells += time.Since(cellStart)
			cellsRun++
			if err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			keep, row := cellOutcome(cell, round, out, err, round == firstRound)
			results = append(results, keep...)
			switch {
			case row == nil:
			case row.Skip:
				skipped = append(skipped, *row)
			default:
				failures = append(failures, *row)
			}
		}
		failures = append(failures, r.meas.drain()...)
		if err := r.opt.DB.AddRoundOn(ctx, r.runID, round, r.opt.Shard.machine(), results); err != nil {
			return fmt.Errorf("storing round %d: %w", round, err)
		}
		for _, f := range append(skipped, failures...) {
			if err := r.opt.DB.AddFailure(ctx, r.runID, f); err != nil {
				return err
			}
		}
		r.res.RoundsDone++
		r.ranHere++
		r.res.Failures += len(failures)
		r.roundStored(tty, round, len(results), len(failures), start, cellsRun, total)
		if err := r.meas.noneMeasured(round); err != nil {
			return err
		}
		r.roundExtra = time.Since(roundStart) - inCells
		if err := r.afterRound(ctx, round); err != nil {
			return err
		}
		if err := r.leaveOut(ctx, round); err != nil {
			return err
		}
	}
	r.roundsEnd(tty, start)
	r.plannedElapsed = time.Since(start)
	return nil
}

// cellOutcome sorts one run of a cell in a round into the results to keep
// and the row to record (nil for none); a row with Skip set notes a
// missing sample, not a failure. Planned and later rounds sort alike:
//   - the binary succeeded but printed some malformed lines: the good
//     results are kept and the rest recorded as a failure;
//   - not applicable here (e.g. needs another GOEXPERIMENT): a skip,
//     noted only when note is set (the first round run);
//   - exited cleanly without a result: the selection was checked before
//     round 1, so the benchmark skipped itself this round (e.g. a load
//     step the generator limited); its sample is missing, listed every
//     round it happens;
//   - any other error: a failure.
func cellOutcome(cell plan.Cell, round int, out []*benchfmt.Result, err error, note bool) (keep []*benchfmt.Result, row *store.Failure) {
	fail := func(reason string) *store.Failure {
		return &store.Failure{Round: round, Config: cell.Config, Cell: cell.Name(), Reason: reason}
	}
	skip := func(reason string) *store.Failure {
		f := fail(reason)
		f.Skip = true
		return f
	}
	var runErr *gotest.RunError
	isRunErr := errors.As(err, &runErr)
	switch {
	case err == nil:
		return out, nil
	case len(out) > 0 && !isRunErr:
		return out, fail("malformed output ignored: " + err.Error())
	case isRunErr && runErr.Skipped:
		if !note {
			return nil, nil
		}
		// The driver's reason leads with the word the Skip flag now carries.
		return nil, skip(strings.TrimPrefix(runErr.Reason, "skipped: "))
	case isRunErr && runErr.NoResults:
		return nil, skip("no result this round (the binary exited cleanly; its benchmarks skipped themselves): " + runErr.Reason)
	}
	return nil, fail(err.Error())
}

// runCell runs one cell and labels its results with the config name (a
// file key, which benchstat tables by), the round (an internal key, which
// lets analysis pair cells measured in the same round), the cell's
// package when it names one (analysis keeps same-named benchmarks of two
// packages apart) and its link layout.
func (r *rounds) runCell(ctx context.Context, bin string, cell plan.Cell, round int) ([]*benchfmt.Result, error) {
	re, err := gotest.BenchRegex(cell.Bench, cell.Levels)
	if err != nil {
		return nil, err
	}
	cfg := r.config(cell.Config)
	out, err := r.exec(ctx, cell, round, gotest.Invocation{
		Binary: bin, Dir: r.opt.packageDirOf(slot(cell)), Bench: re, Benchtime: r.mode.Benchtime,
		CPU: r.mode.CPU, Env: cfg.ExecEnv(), Timeout: r.timeout,
	})
	labels := []benchfmt.Config{
		{Key: "config", Value: []byte(cell.Config), File: true},
		{Key: "round", Value: []byte(strconv.Itoa(round))},
	}
	if cell.Package != "" {
		labels = append(labels, benchfmt.Config{Key: "package", Value: []byte(cell.Package)})
	}
	if seed, ok := r.lay.seedOf(slot(cell), round); ok && round > 0 {
		labels = append(labels, benchfmt.Config{Key: "layout", Value: []byte(strconv.FormatInt(seed, 10))})
	}
	for i, res := range out {
		// Rebuild rather than append: benchfmt indexes Config lazily.
		out[i] = &benchfmt.Result{
			Config: append(res.Clone().Config, labels...),
			Name:   res.Name, Iters: res.Iters, Values: res.Values,
		}
	}
	if r.meas != nil && len(out) > 0 && ctx.Err() == nil {
		out = append(out, r.meas.measure(ctx, r, bin, cell, round, out)...)
	}
	return out, err
}

func (r *rounds) config(name string) spec.Config {
	for _, c := range r.opt.Spec.Configs {
		if c.Name == name {
			return c
		}
	}
	return spec.Config{Name: name}
}

// packageDir is where test binaries run, so their testdata/ is found. It is
// the package directory when Package is a plain relative directory.
func packageDir(s *spec.Spec) string {
	pkg := cmpOr(s.Package, ".")
	if strings.ContainsAny(pkg, "*") || strings.Contains(pkg, "...") {
		return s.Dir
	}
	return filepath.Join(s.Dir, filepath.FromSlash(pkg))
}

func eta(start time.Time, done, total int) string {
	if done == 0 || total <= done {
		return "ETA --"
	}
	per := time.Since(start) / time.Duration(done)
	return "ETA " + (per * time.Duration(total-done)).Round(time.Second).String()
}

func isTerminal(w io.Writer) bool {
	if t, ok := w.(interface{ IsTerminal() bool }); ok {
		return t.IsTerminal()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// selectAll is a -test.bench regex selecting every cell of the plan.
func selectAll(s *spec.Spec, values [][]string) string {
	alt := func(vals []string) string {
		q := make([]string, len(vals))
		for i, v := range vals {
			q[i] = regexp.QuoteMeta(v)
		}
		return "^(?:" + strings.Join(q, "|") + ")$"
	}
	parts := []string{alt(s.Benchmarks)}
	for i, a := range s.Axes {
		kv := make([]string, len(values[i]))
		for j, v := range values[i] {
			kv[j] = a.Key + "=" + v
		}
		parts = append(parts, alt(kv))
	}
	return strings.Join(parts, "/")
}

// profileAll runs the profiling pass: per config over all its cells, or per
// cell when the mode says profile = "cell". Failures are reported and
// recorded but do not fail the run.
func profileAll(ctx context.Context, opt Options, p *plan.Plan, mode spec.Mode, bins map[string]string, res *Result, progress io.Writer) {
	if mode.Profile == "off" {
		return
	}
	values, err := opt.Spec.AxisValues(opt.Mode)
	if err != nil {
		return
	}
	benchtime := mode.ProfileBenchtime
	for _, c := range opt.Spec.Configs {
		for _, pkg := range opt.packages() {
			name := slotOf(c.Name, pkg)
			bin, ok := bins[name]
			if !ok || ctx.Err() != nil {
				continue
			}
			var cells []plan.Cell
			for _, cell := range p.Cells {
				if slot(cell) == name {
					cells = append(cells, cell)
				}
			}
			dir := filepath.Join(res.Artifacts, c.Name)
			if pkg != "" {
				dir = filepath.Join(dir, slug(pkg))
			}
			start := time.Now()
			inv := gotest.Invocation{Binary: bin, Dir: opt.packageDirOf(name), Benchtime: benchtime,
				CPU: mode.CPU, Env: c.ExecEnv(), Timeout: 5 * time.Minute}
			switch {
			case mode.Profile == "cell":
				for _, cell := range cells {
					re, err := gotest.BenchRegex(cell.Bench, cell.Levels)
					if err != nil || ctx.Err() != nil {
						continue
					}
					inv.Bench = re
					profileOne(ctx, opt, res, inv, c.Name, cell.Name(), filepath.Join(dir, slug(cell.Name())), progress)
				}
			case pkg != "":
				inv.Bench = selectTop(cells)
				profileOne(ctx, opt, res, inv, c.Name, "", dir, progress)
			default:
				inv.Bench = selectAll(opt.Spec, values)
				profileOne(ctx, opt, res, inv, c.Name, "", dir, progress)
			}
			span := ""
			if d := profileSpan(benchtime, len(cells), len(mode.CPU)); d > 0 {
				span = fmt.Sprintf(", ≈%s of benchmark time in the CPU profile", d.Round(time.Millisecond))
			}
			fmt.Fprintf(progress, "perflab: profiles for %s written under %s: %d cells at benchtime %s%s (%s in all)\n",
				slotLabel(name), dir, len(cells), benchtime, span, time.Since(start).Round(time.Millisecond))
		}
	}
}

// selectTop is a -test.bench regex selecting the top-level benchmarks of
// cells (with all their sub-benchmarks).
func selectTop(cells []plan.Cell) string {
	var names []string
	for _, c := range cells {
		if q := regexp.QuoteMeta(strings.Split(c.Bench, "/")[0]); !slices.Contains(names, q) {
			names = append(names, q)
		}
	}
	return "^(?:" + strings.Join(names, "|") + ")$"
}

// profileOne runs one profiling pass into dir and records its artifacts.
func profileOne(ctx context.Context, opt Options, res *Result, inv gotest.Invocation, config, cell, dir string, progress io.Writer) {
	bg := context.WithoutCancel(ctx)
	prof, err := gotest.Profile(ctx, inv, dir, "")
	if skip := new(gotest.RunError); errors.As(err, &skip) && skip.Skipped {
		return // the cell skipped itself (not applicable): no profile, and no failure
	}
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(progress, "perflab: profiles for %s %s failed: %v\n", config, cell, err)
			if err := opt.DB.AddFailure(bg, res.RunID, store.Failure{Config: config, Cell: cmpOr(cell, "(profile)"), Reason: "profiling: " + err.Error()}); err != nil {
				fmt.Fprintf(progress, "perflab: the failed profiling pass could not be recorded: %v\n", err)
			}
		}
		return
	}
	for _, a := range []struct{ kind, path string }{{"cpu", prof.CPU}, {"heap", prof.Heap}, {"mutex", prof.Mutex}, {"block", prof.Block}, {"trace", prof.Trace}} {
		st, err := os.Stat(a.path)
		if a.path == "" || err != nil {
			continue
		}
		if err := opt.DB.AddArtifact(bg, res.RunID, store.Artifact{Config: config, Cell: cell, Kind: a.kind, Path: a.path, Bytes: st.Size()}); err != nil {
			fmt.Fprintf(progress, "perflab: profile %s could not be recorded with the run (open it by its path): %v\n", a.path, err)
		}
	}
}

// slug turns a benchmark name into a file name.
func slug(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			return r
		}
		return '_'
	}, name)
}

// binsFor is the binary each config of the cells in order runs in round:
// its layout's relink when builds are relinked, else its one build.
func (r *rounds) binsFor(ctx context.Context, round int, order []int) (map[string]string, error) {
	if r.lay == nil {
		return r.bins, nil
	}
	var slots []string
	for _, ci := range order {
		if s := slot(r.plan.Cells[ci]); !slices.Contains(slots, s) {
			slots = append(slots, s)
		}
	}
	relinked, err := r.lay.forRound(ctx, round, slots)
	if err != nil {
		return nil, err
	}
	bins := map[string]string{}
	for c, bin := range r.bins {
		bins[c] = bin
		if b, ok := relinked[c]; ok {
			bins[c] = b
		}
	}
	return bins, nil
}

// cellsPerConfig is the most cells any one config of the plan runs.
func cellsPerConfig(p *plan.Plan) int {
	n := map[string]int{}
	most := 0
	for _, c := range p.Cells {
		n[c.Config]++
		most = max(most, n[c.Config])
	}
	return most
}
