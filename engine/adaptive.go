package engine

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
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
)

// Sequential, claim-directed sampling.
//
// A sequential run starts with an initial pass of whole rounds (every cell,
// shuffled), then, after every round, asks the run's Judge which counted
// claim checks and compared ratios are still undecided (perflab's judges
// them with anytime-valid intervals: a confidence sequence, valid however
// often it is looked at). While some are and the budget allows, it runs
// further rounds of only the cells those read, still shuffled, interleaved
// and paired by round. It stops when all are decided, at MaxRounds, or
// when the next round would not fit the budget, and records why
// (store.Stop).
//
// Samples are cheaper than in a fixed run: each cell's first run at the
// mode's benchtime sizes it, and every later run uses that iteration count
// (-test.benchtime=Nx), so no time is spent ramping up. A run deciding on
// sec/op splits that count into repetitions inside the process
// (repeats.go); a run deciding on cpu-sec/op reads the timed loop's CPU
// time inside the process (cputime.go) and sizes each process to about
// 0.1 s of it (see cpuProcessTime): start-up is no longer in the unit, so
// short processes, and more rounds of them, are the most precise per
// second of budget.

// Unit names.
const (
	UnitSec          = "sec/op"
	UnitCPU          = "cpu-sec/op"
	UnitInstructions = cachegrind.UnitInstructions
)

const (
	// defaultSeqMaxRounds bounds a sequential run without --max-rounds
	// or --budget; budgetSeqMaxRounds one with a budget (which bounds it
	// first, short of a runaway).
	defaultSeqMaxRounds = 500
	budgetSeqMaxRounds  = 20000
	// baselineIters: the baseline process of a cell's CPU time runs this
	// many iterations.
	baselineIters = 2
	// cpuProcessTime is the CPU time inside the timed loop a run deciding
	// on cpu-sec/op gives each process, budget permitting;
	// cpuMinProcessTime the least it gives. Measured on the 2-core
	// reference machine with the planted pair (docs/units.md), the
	// per-round spread of the in-process CPU-time ratio fell only slowly
	// with the process's length (under noisy-neighbour: SD 3.3% at 30 ms,
	// 2.5-3.3% at 0.1 s, 2.0% at 0.2 s), so its variance per second of
	// budget was about the same from 30 ms to 0.2 s; 0.1 s keeps a process's
	// fixed cost (≈15 ms of CPU to start and exit) a small share and gives
	// several rounds a second.
	cpuProcessTime    = 100 * time.Millisecond
	cpuMinProcessTime = 20 * time.Millisecond
	// cpuPlanRounds is how many rounds of every cell the budget must hold
	// at the chosen process time: an initial pass of 8 and 4 more.
	cpuPlanRounds = 12
)

// sequential is the state of a sequential run.
type sequential struct {
	unit       string // unit of the compared ratios
	unitChosen bool   // set by the user; else sec/op
	precision  float64
	limits     []float64 // gate limits (ratios) a compared ratio's interval must clear
	maxRounds  int
	budget     time.Duration
	start      time.Time
	initial    int            // rounds of the initial pass (Rules.InitialRounds)
	iters      map[string]int // cell → fixed iteration count; -1 when it cannot be fixed
	timed      time.Duration  // cpu-sec/op: time in the timed loop each fixed process is sized to
	repeat     time.Duration  // sec/op: the wall time of every repetition of every cell (repeats.go); 0 keeps each sizing run's count
	rounds     int            // sequential rounds run after the initial pass
	spent      bool           // the budget ended the initial pass (initialPassSpent)

	// cpuInside: cell → its sizing run reported cpu-sec/op measured inside
	// the process, so its later processes need no baseline.
	cpuInside map[string]bool
	// fastest: cell → the least sec/op it has measured (deciding on
	// sec/op), the speed its repetitions are sized by: interference only
	// slows a process, so a sizing run a neighbour slowed would give the
	// cell shorter repetitions than the others' until a faster run
	// corrects it.
	fastest map[string]float64
	// alloc is the repetitions each cell's processes run (alloc.go).
	alloc *allocation
}

// sequentialFor returns the sequential state of a run, or nil for a run of
// fixed rounds. A sequential run needs a judge.
//
// Without a unit chosen it decides on instructions/op when the run counts
// instructions (no neighbour disturbs them, so they decide in the fewest
// rounds), else on sec/op.
func sequentialFor(opt Options, measure spec.Measure, rules Rules) (*sequential, error) {
	if !sequentialAsked(opt) {
		return nil, nil
	}
	if err := judged(opt); err != nil {
		return nil, err
	}
	s := &sequential{
		unit: cmpOr(opt.Unit, defaultUnit(measure)), unitChosen: opt.Unit != "", precision: opt.Precision, limits: opt.GateRatios, maxRounds: opt.MaxRounds,
		budget: opt.Budget, start: time.Now(), initial: max(1, rules.InitialRounds),
		iters: map[string]int{}, cpuInside: map[string]bool{}, fastest: map[string]float64{}, alloc: newAllocation(),
	}
	if s.maxRounds <= 0 {
		s.maxRounds = defaultSeqMaxRounds
		if s.budget > 0 {
			// A budget bounds the rounds: a comparison left with few
			// cells open runs many short rounds.
			s.maxRounds = budgetSeqMaxRounds
		}
	}
	return s, nil
}

// sequentialAsked reports whether opt asks for sequential sampling.
func sequentialAsked(opt Options) bool {
	return opt.Sequential || opt.Precision > 0 || opt.MaxRounds > 0 || opt.Budget > 0 || opt.Unit == UnitCPU
}

// judged refuses a run that asks for sequential sampling without a judge
// to decide when to stop.
func judged(opt Options) error {
	if sequentialAsked(opt) && opt.Judge == nil {
		return fmt.Errorf("sequential sampling (--budget, --precision, --max-rounds or --unit %s) needs a judge of the rounds (engine.Options.Judge)", UnitCPU)
	}
	return nil
}

func defaultUnit(m spec.Measure) string {
	if m.Instructions {
		return UnitInstructions
	}
	return UnitSec
}

// initialBudget is the part of the budget the initial pass is fitted to:
// half, the rest kept for the checks still undecided after it.
func (s *sequential) initialBudget(opt Options) Options {
	if s != nil {
		opt.Budget /= 2
	}
	return opt
}

// initialRounds is the rounds of the initial pass; 0 for a run of fixed
// rounds.
func (s *sequential) initialRounds() int {
	if s == nil {
		return 0
	}
	return min(s.initial, s.maxRounds)
}

// initialPass sets the rounds of the initial pass.
func (s *sequential) initialPass(mode *spec.Mode, p *plan.Plan) {
	if s == nil {
		return
	}
	mode.Rounds = min(s.initial, s.maxRounds)
	p.Rounds = mode.Rounds
	s.timed = cpuTimed(mode.Benchtime, s.budget, len(p.Cells))
	s.repeat = repeatTime(mode.Benchtime)
}

// decide is what the run's plan records of how it decides; nil for a run
// of fixed rounds.
func (s *sequential) decide(opt Options) *store.Decide {
	if s == nil {
		return nil
	}
	k := 1
	if opt.Repeat != nil && s.unit != UnitCPU {
		k = repeats
	}
	return &store.Decide{Unit: s.unit, UnitChosen: s.unitChosen, Precision: s.precision, GateRatios: s.limits,
		MaxRounds: s.maxRounds, Budget: s.budget, Repeats: k, Alpha: opt.Alpha}
}

// cpuTimed is the time in the timed loop each process of a run deciding on
// cpu-sec/op is sized to: cpuProcessTime, or less when cpuPlanRounds
// rounds of the given cells at that time would not fit the budget, but
// not below cpuMinProcessTime, nor below a longer benchtime asked for. It
// is 0 when the benchtime is an iteration count, which is kept.
func cpuTimed(benchtime string, budget time.Duration, cells int) time.Duration {
	if strings.HasSuffix(benchtime, "x") {
		return 0
	}
	t := cpuProcessTime
	if budget > 0 && cells > 0 {
		t = min(t, budget/time.Duration(cells*cpuPlanRounds))
	}
	return max(t, cpuMinProcessTime, benchDuration(benchtime))
}

// fixedIters is the iteration count a cell's later processes use, from
// its sizing run. Deciding on sec/op, it is the count that makes each of
// the process's repetitions last s.repeat at the sizing run's speed, so
// every repetition of every cell lasts the same wall time (repeats.go);
// deciding on cpu-sec/op, the count that fills s.timed at the sizing
// run's speed (its CPU time per op when it reports one, which a neighbour
// does not inflate, else its wall time). Without a time to fill (an
// iteration-count benchtime) it is the sizing run's count. It is 0 when
// the count cannot be fixed (too few iterations: a cell whose operation
// lasts a good part of the benchtime keeps being sized by go test).
func (s *sequential) fixedIters(sized *benchfmt.Result) int {
	n := sized.Iters
	if n <= 10*baselineIters {
		return 0
	}
	target, unit := s.timed, UnitCPU
	if s.unit != UnitCPU {
		target, unit = s.repeat*repeats, UnitSec
	}
	if target <= 0 {
		return n
	}
	perOp, ok := sized.Value(unit)
	if !ok || perOp <= 0 {
		perOp, ok = sized.Value(UnitSec)
	}
	if !ok || perOp <= 0 {
		return n
	}
	if s.unit != UnitCPU {
		// A whole number of iterations per repetition, as near its
		// time as the cell's speed allows.
		per := max(1, math.Round(s.repeat.Seconds()/perOp))
		return int(min(per, 1e12/repeats)) * repeats
	}
	want := math.Round(target.Seconds() / perOp)
	if want <= float64(n) {
		return n
	}
	return int(min(want, 1e12))
}

// resize sizes a cell's later repetitions by a faster run than any
// before (deciding on sec/op): its count is then what fills the
// repetition time at that speed.
func (s *sequential) resize(key string, run *benchfmt.Result) {
	v, ok := run.Value(UnitSec)
	if s.unit == UnitCPU || s.repeat <= 0 || !ok || !(v > 0) || v >= s.fastest[key] {
		return
	}
	s.fastest[key] = v
	if n := s.fixedIters(run); n > 0 {
		s.iters[key] = n
	}
}

// efficiency adds up the time spent inside timed loops and the wall time
// of the benchmark processes.
type efficiency struct {
	timed, wall time.Duration
	runs        int
	// cellWall and cells: wall time of the fixed-count cell runs (with
	// their baseline processes), what a further round costs per cell.
	cellWall time.Duration
	cells    int
}

func (e *efficiency) addCell(wall time.Duration) {
	e.cellWall += wall
	e.cells++
}

// perCell is the wall time one cell costs a round: the mean of the
// fixed-count cell runs, or of every process before there are any.
func (e *efficiency) perCell() time.Duration {
	switch {
	case e.cells > 0:
		return e.cellWall / time.Duration(e.cells)
	case e.runs > 0:
		return e.wall / time.Duration(e.runs)
	}
	return 0
}

func (e *efficiency) add(out []*benchfmt.Result, wall time.Duration) {
	e.wall += wall
	e.runs++
	for _, r := range out {
		if v, ok := r.Value("sec/op"); ok && r.Iters > 0 {
			e.timed += time.Duration(v * float64(r.Iters) * 1e9)
		}
	}
}

func (e efficiency) String() string {
	if e.wall <= 0 {
		return "no cells ran"
	}
	s := fmt.Sprintf("%.0f%% of the benchmark processes' wall time was inside timed loops (%s of %s over %d processes)",
		100*float64(e.timed)/float64(e.wall), e.timed.Round(time.Millisecond), e.wall.Round(time.Millisecond), e.runs)
	if e.timed < e.wall/100 {
		s += "; the benchmarks stop their timer around most of their work (load steps, reported metrics), so this share does not measure the cost of a sample"
	}
	return s
}

// exec runs one cell's benchmark process. In a sequential run a cell's
// first run sizes it and later runs use that fixed iteration count. On
// sec/op a process runs its count as repetitions and its value of each
// unit is their median (repeats.go); on cpu-sec/op it runs it once, and
// the unit is read inside the process (cputime.go) or, from a binary
// without the CPU timer, is the process's CPU time less a baseline
// process's (baselineOf).
func (r *rounds) exec(ctx context.Context, cell plan.Cell, round int, inv gotest.Invocation) ([]*benchfmt.Result, error) {
	s := r.seq
	key := cell.String()
	var usage, base gotest.Usage
	fixed, k := 0, 1
	baseline := false
	if s != nil && s.iters[key] > 0 {
		fixed = s.iters[key]
		per := fixed
		switch {
		case s.unit != UnitCPU:
			if r.repeatsFor(fixed) > 1 {
				per, k = fixed/repeats, s.alloc.repeatsOf(key)
			}
		case !s.cpuInside[key]:
			baseline = true
			base = r.baselineOf(ctx, inv)
			inv.Usage = &usage
		}
		inv.Benchtime, inv.Count = strconv.Itoa(per)+"x", k
	}
	start := time.Now()
	out, err := gotest.Run(ctx, inv)
	r.eff.add(out, time.Since(start))
	if err != nil || s == nil {
		return out, err
	}
	if fixed == 0 {
		s.iters[key] = -1
		if len(out) == 1 {
			if n := s.fixedIters(out[0]); n > 0 {
				s.iters[key] = n
				if v, ok := out[0].Value(UnitSec); ok && s.unit != UnitCPU {
					s.fastest[key] = v
				}
			}
			s.cpuInside[key] = cpuInside(out[0])
		}
		return out, nil
	}
	wall := time.Since(start)
	r.eff.addCell(wall + base.Wall)
	if s.unit != UnitCPU {
		s.alloc.record(key, round, wall, secsOf(out), itersOf(out))
	}
	one, ok := r.combineRepeats(out, k)
	if !ok {
		return out, nil
	}
	s.resize(key, one)
	if baseline && one.Iters == fixed && base.CPU > 0 && !cpuInside(one) {
		if v, ok := gotest.CPUPerOp(usage.CPU, fixed, base.CPU, baselineIters); ok {
			one.Values = append(one.Values, benchfmt.Value{Value: v, Unit: UnitCPU})
		}
	}
	return []*benchfmt.Result{one}, nil
}

// baselineOf runs the cell's process at baselineIters iterations, just
// before its fixed-count run in the same round: process start, test and
// benchmark set-up. cpu-sec/op is (CPU at N − baseline)/(N −
// baselineIters). A baseline taken in every round keeps the start-up's
// variation (several ms of CPU on a busy machine) a paired, unbiased error
// instead of a fixed bias of each cell. Its wall time counts against the
// sample efficiency. A failed baseline gives a zero Usage.
func (r *rounds) baselineOf(ctx context.Context, inv gotest.Invocation) gotest.Usage {
	var u gotest.Usage
	inv.Benchtime, inv.Usage = strconv.Itoa(baselineIters)+"x", &u
	_, err := gotest.Run(ctx, inv)
	r.eff.wall += u.Wall
	r.eff.runs++
	if err != nil {
		return gotest.Usage{}
	}
	return u
}

// initialPassSpent ends a sequential run's initial pass before round
// when the budget has no room for another round like those run since
// start (the machine turned out slower than the budget's probe): the run
// stops there, at the budget, and says so. It reports whether it stopped.
func (r *rounds) initialPassSpent(ctx context.Context, round int, start time.Time) (bool, error) {
	s := r.seq
	if s == nil || s.budget <= 0 || r.ranHere == 0 {
		return false, nil
	}
	perRound := time.Since(start) / time.Duration(r.ranHere)
	if next, ok := r.predictedRound(); ok {
		// The cells' own costs, with the repetitions they run now and
		// without those left out, predict the next round better than
		// the mean of the rounds before.
		perRound = next
	}
	if s.budget-time.Since(s.start)-r.profileReserve() >= perRound {
		return false, nil
	}
	done := round - 1
	fmt.Fprintf(r.progress, "perflab: the budget of %s is spent after %d of the initial pass's %d rounds (≈%s a round, more than its probe showed): stopping here\n",
		s.budget.Round(time.Second), done, r.plan.Rounds, perRound.Round(time.Millisecond))
	stop := store.Stop{Round: done, Reason: store.StopBudget, Elapsed: time.Since(s.start), CellCost: r.eff.perCell()}
	if err := r.recordStop(ctx, stop); err != nil {
		return true, err
	}
	r.res.RoundsTotal, s.spent = done, true
	return true, nil
}

// runMore runs the sequential rounds after the initial pass and prints the
// run's sample efficiency.
//
// It asks the judge only where a layout cluster ends (with layouts
// relinked every few rounds; after every round otherwise): rounds that
// share a layout are one observation, and a look inside a cluster would
// judge one observation before it is whole, a look the confidence
// sequence's guarantee does not cover. A cluster's rounds run the cells
// that were open when it began.
func (r *rounds) runMore(ctx context.Context) error {
	defer func() { fmt.Fprintf(r.progress, "perflab: sample efficiency: %s\n", r.eff) }()
	s, sh := r.seq, r.opt.Shard
	if s == nil || s.spent {
		return nil
	}
	// A shard runs rounds K, K+N, …: step is N, and last its own last
	// round (its initial pass's, or a later one stored before a restart).
	step, last := shardCount(sh), r.plan.Rounds
	if sh != nil {
		stops, err := r.opt.DB.ShardStops(ctx, r.runID, sh.N)
		if err != nil {
			return err
		}
		if st, ok := stops[sh.K]; ok {
			fmt.Fprintf(r.progress, "perflab: shard %d/%d stopped sampling before (%s after round %d); nothing more to run\n", sh.K, sh.N, st.Reason, st.Round)
			return nil
		}
		last = 0
		for round := sh.K; round <= r.plan.Rounds; round += sh.N {
			last = round
		}
	}
	done, err := r.opt.DB.RoundsDone(ctx, r.runID)
	if err != nil {
		return err
	}
	for _, d := range done {
		if sh.owns(d) && d > last {
			last = d
		}
	}
	idx := indexOf(r.plan)
	prog := newSeqProgress(r.progress, r.opt.Verbose, s, r.logGate())
	for {
		st, err := r.opt.Judge.Sequential(ctx, r.runID)
		if err != nil {
			return fmt.Errorf("judging the rounds up to %d: %w", last, err)
		}
		if err := r.chooseRepeats(ctx, st); err != nil {
			return err
		}
		undecided := idx.openCells(st)
		open := r.withoutLeft(undecided)
		if err := r.chooseLayouts(ctx, last, open); err != nil {
			return err
		}
		var reason store.StopReason
		remaining := r.remaining()
		switch {
		case len(undecided) == 0:
			reason = store.StopDecided
		case len(open) == 0:
			reason = store.StopBudget // what is undecided was left out for the budget
		case last+step > s.maxRounds:
			reason = store.StopMaxRounds
		case s.budget > 0 && remaining < r.roundCost(open):
			reason = store.StopBudget
		}
		if reason != "" {
			prog.end(last, st, reason)
			r.res.RoundsTotal = last
			return r.recordStop(ctx, store.Stop{Round: last, Reason: reason, Elapsed: time.Since(s.start), CellCost: r.eff.perCell()})
		}
		s.warnNoise(r.progress, st, remaining, r.roundCost(open))
		prog.look(last, st, len(open), len(r.plan.Cells))
		// One cluster: its rounds, with the cells open at its start,
		// until its layout is done or the budget or the rounds end (for
		// a restarted shard, the rest of one it left unfinished).
		for {
			round := last + step
			if err := r.noiseBefore(ctx); err != nil {
				return err
			}
			if err := r.runRound(ctx, round, r.plan.OrderOf(round, open)); err != nil {
				return err
			}
			last = round
			s.rounds++
			if r.lay.endsCluster(round) || last+step > s.maxRounds || s.budget > 0 && r.remaining() < r.roundCost(open) {
				break
			}
		}
	}
}

// remaining is the budget left for rounds: what the budget has not spent,
// less the profiling pass's reserve; 0 without a budget.
func (r *rounds) remaining() time.Duration {
	s := r.seq
	if s == nil || s.budget <= 0 {
		return 0
	}
	return s.budget - time.Since(s.start) - r.profileReserve()
}

// chooseLayouts asks the judge, after the initial pass of a run that
// relinks layouts and again each time its rounds double, how many rounds
// a layout should serve from the next round on (LayoutChooser), and makes
// it so: a new phase of the run's layouts when the choice changes,
// recorded with its plan, and a line that says why.
func (r *rounds) chooseLayouts(ctx context.Context, round int, open []int) error {
	lc, ok := r.opt.Judge.(LayoutChooser)
	if !ok || r.lay == nil || round < r.lay.chooseAt || len(open) == 0 || r.opt.Shard != nil {
		return nil
	}
	// Again each time the rounds double: the components are known better
	// from more clusters, and the first choice may have been made while a
	// neighbour shared the machine.
	r.lay.chooseAt = 2 * round
	per, why, err := lc.ChoosePerLayout(ctx, r.runID, LayoutCosts{Link: r.lay.perCluster(), Round: r.roundCost(open), Per: r.lay.per(round)})
	if err != nil {
		return fmt.Errorf("choosing the rounds per layout: %w", err)
	}
	if per < 1 {
		return nil
	}
	per = min(per, maxPerLayout)
	if !r.lay.setPer(round, per) {
		if r.opt.Verbose {
			fmt.Fprintf(r.progress, "perflab: link layouts: a fresh one every %s from round %d on, as before: %s\n", everyRounds(per), round+1, why)
		}
		return nil
	}
	fmt.Fprintf(r.progress, "perflab: link layouts: a fresh one every %s from round %d on: %s\n", everyRounds(per), round+1, why)
	return r.opt.DB.SetLayoutPhases(ctx, r.runID, r.lay.plan().Phases)
}

// runRound runs the given cells (indexes into the plan) as round number
// round and commits it, with the noise measured before it, if any.
func (r *rounds) runRound(ctx context.Context, round int, order []int) error {
	var results []*benchfmt.Result
	var failures []store.Failure
	bins, err := r.binsFor(ctx, round, order)
	if err != nil {
		return err
	}
	for _, ci := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		cell := r.plan.Cells[ci]
		bin, ok := bins[slot(cell)]
		if !ok {
			continue
		}
		out, err := r.runCell(ctx, bin, cell, round)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		keep, row := cellOutcome(cell, round, out, err, false)
		results = append(results, keep...)
		if row != nil {
			failures = append(failures, *row)
		}
	}
	failures = append(failures, r.meas.drain()...)
	info := store.RoundInfo{Round: round, Noise: r.noise, Machine: r.opt.Shard.machine()}
	r.noise = nil
	if err := r.opt.DB.AddRoundInfo(ctx, r.runID, info, results); err != nil {
		return fmt.Errorf("storing round %d: %w", round, err)
	}
	failed := 0
	for _, f := range failures {
		if err := r.opt.DB.AddFailure(ctx, r.runID, f); err != nil {
			return err
		}
		if !f.Skip {
			failed++
		}
	}
	r.res.RoundsDone++
	r.res.Failures += failed
	r.failed += failed
	return nil
}

// profileReserve is the time kept for the profiling pass.
func (r *rounds) profileReserve() time.Duration {
	if r.opt.NoProfile || r.mode.Profile == "off" || r.eff.runs == 0 {
		return 0
	}
	// Each cell's benchmark runs twice more (the profiles, then the
	// trace), ramping up to the profile's benchtime with its set-up:
	// about one of its processes here beside twice the benchtime (on
	// bitset's 240 cells, 47s reserved against 46s taken).
	perCell := r.eff.wall / time.Duration(r.eff.runs)
	pb := benchDuration(cmpOr(r.mode.ProfileBenchtime, "10ms")) * time.Duration(max(1, len(r.mode.CPU)))
	return time.Duration(len(r.plan.Cells)) * (2*pb + perCell)
}

// noiseBefore measures machine noise before a sequential round: the
// calibration loop (10 runs, ~10 ms) and the load average, stored with the
// round (runRound). Whether the round ran in a noise burst is for the
// readers to judge: flagged rounds are reported and kept in every
// statistic, since on this project's 2-core test machine the per-round
// log-ratios of flagged rounds were no more variable than the others'
// (docs/measurements.md), so leaving them out only discarded a quarter of
// the rounds.
func (r *rounds) noiseBefore(ctx context.Context) error {
	n, err := env.Noise(ctx, 10)
	if err != nil {
		return err
	}
	r.noise = &store.Noise{CV: n.CV, Load: loadAverage()}
	return nil
}

// loadAverage is the 1-minute load average, or NaN when it cannot be read.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return math.NaN()
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// warnNoise warns once, before the first sequential round, when the open
// items would need more rounds than the remaining budget allows.
func (s *sequential) warnNoise(w io.Writer, st Status, remaining, roundCost time.Duration) {
	if s.budget <= 0 || s.rounds != 0 {
		return
	}
	worst := 0
	for _, it := range st.open() {
		worst = max(worst, it.More)
	}
	if need := time.Duration(worst) * roundCost; need > remaining && worst > 0 {
		slowest := fmt.Sprintf("the slowest needs ≈%d more rounds (≈%s)", worst, need.Round(time.Second))
		if need > 100*remaining {
			// An estimate this far beyond the budget is not advice:
			// such a row is one no budget here decides.
			slowest = fmt.Sprintf("the slowest needs more than a hundred times what remains (≈%d more rounds), so no budget here decides it", worst)
		}
		fmt.Fprintf(w, "perflab: warning: the noise is too high to decide every check within the budget: %s; %s remain\n",
			slowest, remaining.Round(time.Second))
		if s.unit == UnitSec {
			fmt.Fprintf(w, "perflab: on a machine shared with other jobs, --unit %s (CPU time, which preemption does not inflate) is often more precise than wall time\n", UnitCPU)
		}
	}
}
