package engine

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/env"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// Sequential, claim-directed sampling.
//
// A sequential run starts with an initial pass of whole rounds (every cell,
// shuffled), then, after every round, judges each counted claim check and
// each compared ratio with anytime-valid intervals (analysis.Options with
// Anytime: a confidence sequence, valid however often it is looked at).
// While some are undecided and the budget allows, it runs further rounds
// of only the cells those depend on (claim.Depends), still shuffled,
// interleaved and paired by round. It stops when all are decided, at
// MaxRounds, or when the next round would not fit the budget.
//
// Samples are cheaper than in a fixed run: each cell's first run at the
// mode's benchtime sizes it, and every later run uses that iteration count
// (-test.benchtime=Nx), so no time is spent ramping up. A run deciding on
// sec/op splits that count into repetitions inside the process
// (repeats.go); a run deciding on cpu-sec/op gets it from the process's
// CPU time less a baseline process's (see baselineOf), and sizes each
// process to about a second inside the timed loop (see cpuProcessTime):
// a process's start-up CPU time and a neighbour's busy spells vary by
// milliseconds, which only a long process averages away.

// Unit names.
const (
	UnitSec          = "sec/op"
	UnitCPU          = "cpu-sec/op"
	UnitInstructions = cachegrind.UnitInstructions
)

const (
	// initialRounds is the initial pass of a sequential run: the fewest
	// rounds with an anytime-valid interval.
	initialRounds = analysis.AnytimeMinRounds
	// defaultSeqMaxRounds bounds a sequential run without --max-rounds.
	defaultSeqMaxRounds = 500
	// decidePrecision: without --precision a compared ratio is decided when
	// its interval excludes 1 or is no wider than ±1%.
	decidePrecision = 0.01
	// baselineIters: the baseline process of a cell's CPU time runs this
	// many iterations.
	baselineIters = 2
	// cpuProcessTime is the time inside the timed loop a run deciding on
	// cpu-sec/op gives each process, budget permitting; cpuMinProcessTime
	// the least it gives. On the 2-core reference machine under an
	// intermittent neighbour the per-round spread of a CPU-time ratio was
	// 8.5% at 0.12 s per process, 2.3% at 0.5 s and 1.1% at 1 s
	// (docs/sequential.md).
	cpuProcessTime    = time.Second
	cpuMinProcessTime = 100 * time.Millisecond
	// cpuPlanRounds is how many rounds of every cell the budget must hold
	// at the chosen process time.
	cpuPlanRounds = initialRounds + 4
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
	opt        analysis.Options
	pairs      [][2]int       // compared cells: {num, den} indexes into plan.Cells
	byKey      string         // what pairs differ in
	iters      map[string]int // cell → fixed iteration count; -1 when it cannot be fixed
	timed      time.Duration  // cpu-sec/op: time in the timed loop each fixed process is sized to
	noise      []roundNoise
}

// roundNoise is the noise measured before one sequential round.
type roundNoise struct {
	Round int
	CV    float64 // calibration loop's coefficient of variation
	Load  string  // 1-minute load average
	Burst bool
}

// sequentialFor returns the sequential state of a run, or nil for a run of
// fixed rounds.
//
// Without a unit chosen it decides on instructions/op when the run counts
// instructions (no neighbour disturbs them, so they decide in the fewest
// rounds), else on sec/op.
func sequentialFor(opt Options, measure spec.Measure) *sequential {
	if !opt.Sequential && opt.Precision <= 0 && opt.MaxRounds <= 0 && opt.Budget <= 0 && opt.Unit != UnitCPU {
		return nil
	}
	s := &sequential{
		unit: cmpOr(opt.Unit, defaultUnit(measure)), unitChosen: opt.Unit != "", precision: opt.Precision, limits: opt.GateRatios, maxRounds: opt.MaxRounds,
		budget: opt.Budget, start: time.Now(),
		opt:   analysis.Options{Alpha: 0.05, Confidence: 0.95, Anytime: true},
		iters: map[string]int{},
	}
	if s.maxRounds <= 0 {
		s.maxRounds = defaultSeqMaxRounds
	}
	return s
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

// initialPass sets the rounds of the initial pass.
func (s *sequential) initialPass(opt Options, mode *spec.Mode, p *plan.Plan) {
	if s == nil {
		return
	}
	mode.Rounds = min(initialRounds, s.maxRounds)
	p.Rounds = mode.Rounds
	s.timed = cpuTimed(mode.Benchtime, s.budget, len(p.Cells))
	if s.precision > 0 || len(countedChecks(opt.Spec)) == 0 {
		s.pairs, s.byKey = comparedPairs(p.Cells, opt.Spec.Analysis.By, opt.Spec.Analysis.Baseline)
	}
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
// its sizing run: that run's count, or in a run deciding on cpu-sec/op the
// count that fills s.timed at the sizing run's speed. It is 0 when the
// count cannot be fixed (too few iterations to subtract a baseline).
func (s *sequential) fixedIters(sized *benchfmt.Result) int {
	n := sized.Iters
	if n <= 10*baselineIters {
		return 0
	}
	if s.unit != UnitCPU || s.timed <= 0 {
		return n
	}
	perOp, ok := sized.Value(UnitSec)
	if !ok || perOp <= 0 {
		return n
	}
	want := math.Round(s.timed.Seconds() / perOp)
	if want <= float64(n) {
		return n
	}
	return int(min(want, 1e12))
}

// countedChecks are the spec's checks that more rounds can decide.
func countedChecks(s *spec.Spec) []spec.Check {
	var out []spec.Check
	for _, c := range s.Claims {
		if c.NotTestable != "" {
			continue
		}
		for _, ch := range c.Checks {
			if claim.Counted(ch) {
				out = append(out, ch)
			}
		}
	}
	return out
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
// first run sizes it and later runs use that fixed iteration count, adding
// cpu-sec/op to the result.
func (r *rounds) exec(ctx context.Context, cell plan.Cell, inv gotest.Invocation) ([]*benchfmt.Result, error) {
	s := r.seq
	key := cell.String()
	var usage, base gotest.Usage
	fixed, k := 0, 1
	if s != nil && s.iters[key] > 0 {
		fixed = s.iters[key]
		if s.unit == UnitCPU {
			base = r.baselineOf(ctx, inv)
			inv.Usage = &usage
		} else {
			k = repeatsFor(fixed)
		}
		inv.Benchtime, inv.Count = strconv.Itoa(fixed/k)+"x", k
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
			}
		}
		return out, nil
	}
	r.eff.addCell(time.Since(start) + base.Wall)
	one, ok := combineRepeats(out, k)
	if !ok {
		return out, nil
	}
	if s.unit == UnitCPU && one.Iters == fixed && base.CPU > 0 {
		if _, has := one.Value(UnitCPU); !has { // a benchmark that reports its own CPU time keeps it
			if v, ok := gotest.CPUPerOp(usage.CPU, fixed, base.CPU, baselineIters); ok {
				one.Values = append(one.Values, benchfmt.Value{Value: v, Unit: UnitCPU})
			}
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

// runMore runs the sequential rounds after the initial pass and prints the
// run's sample efficiency.
func (r *rounds) runMore(ctx context.Context) error {
	defer func() { fmt.Fprintf(r.progress, "perflab: sample efficiency: %s\n", r.eff) }()
	s := r.seq
	if s == nil {
		return nil
	}
	round := r.plan.Rounds
	if done, err := r.opt.DB.RoundsDone(ctx, r.runID); err == nil && len(done) > 0 {
		round = max(round, slices.Max(done))
	}
	roundCost := func(cells int) time.Duration {
		return r.eff.perCell() * time.Duration(cells)
	}
	for {
		sts, err := r.judge(ctx)
		if err != nil {
			return err
		}
		open := openCells(sts)
		reason := ""
		remaining := time.Duration(0)
		if s.budget > 0 {
			remaining = s.budget - time.Since(s.start) - r.profileReserve()
		}
		switch {
		case len(open) == 0:
			reason = "every check and comparison is decided"
		case round >= s.maxRounds:
			reason = fmt.Sprintf("reached --max-rounds %d", s.maxRounds)
		case s.budget > 0 && remaining < roundCost(len(open)):
			reason = fmt.Sprintf("the budget %s is spent", s.budget)
		}
		if reason != "" {
			var sum strings.Builder
			s.summary(io.MultiWriter(r.progress, &sum), sts, round, reason, roundCost)
			kv := []store.KV{{Key: "sequential", Value: strings.TrimSpace(strings.TrimPrefix(sum.String(), "perflab: "))}}
			if err := r.opt.DB.SetEnv(context.WithoutCancel(ctx), r.runID, kv); err != nil {
				return err
			}
			r.res.RoundsTotal = round
			return nil
		}
		s.warnNoise(r.progress, sts, remaining, roundCost)
		round++
		if err := r.noiseBefore(ctx, round); err != nil {
			return err
		}
		order := r.plan.OrderOf(round, open)
		if err := r.runRound(ctx, round, order); err != nil {
			return err
		}
		fmt.Fprintf(r.progress, "perflab: round %d (sequential, %d of %d cells, %s elapsed): %s\n",
			round, len(open), len(r.plan.Cells), time.Since(s.start).Round(time.Second), openLine(sts))
	}
}

// runRound runs the given cells (indexes into the plan) as round number
// round and commits it.
func (r *rounds) runRound(ctx context.Context, round int, order []int) error {
	var results []*benchfmt.Result
	var failures []store.Failure
	skipped := 0
	for _, ci := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		cell := r.plan.Cells[ci]
		bin, ok := r.bins[cell.Config]
		if !ok {
			continue
		}
		out, err := r.runCell(ctx, bin, cell, round)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		keep, row, skip := cellOutcome(cell, round, out, err, false)
		results = append(results, keep...)
		if row != nil {
			failures = append(failures, *row)
			if skip {
				skipped++
			}
		}
	}
	failures = append(failures, r.meas.drain()...)
	if err := r.opt.DB.AddRound(ctx, r.runID, round, results); err != nil {
		return fmt.Errorf("storing round %d: %w", round, err)
	}
	for _, f := range failures {
		if err := r.opt.DB.AddFailure(ctx, r.runID, f); err != nil {
			return err
		}
	}
	r.res.RoundsDone++
	r.res.Failures += len(failures) - skipped
	r.failed += len(failures) - skipped
	return nil
}

// profileReserve is the time kept for the profiling pass.
func (r *rounds) profileReserve() time.Duration {
	if r.opt.NoProfile || r.mode.Profile == "off" || r.eff.runs == 0 {
		return 0
	}
	perCell := r.eff.wall / time.Duration(r.eff.runs)
	pb := benchDuration(cmpOr(r.mode.ProfileBenchtime, "10ms")) * time.Duration(max(1, len(r.mode.CPU)))
	n := len(r.opt.Spec.Configs)
	if r.mode.Profile == "cell" {
		n = len(r.plan.Cells)
	}
	return time.Duration(2*len(r.plan.Cells))*pb + time.Duration(2*n)*perCell
}

// noiseBefore measures machine noise before a sequential round: the
// calibration loop (10 runs, ~10 ms) and the load average. The round is
// flagged as a noise burst by findings.IsBurst. Flagged rounds are
// recorded and reported, and kept in every statistic: on this project's
// 2-core test machine the per-round log-ratios of flagged rounds were no
// more variable than the others' (docs/sequential.md), so leaving them out
// only discarded a quarter of the rounds.
func (r *rounds) noiseBefore(ctx context.Context, round int) error {
	s := r.seq
	n, err := env.Noise(ctx, 10)
	if err != nil {
		return err
	}
	rn := roundNoise{Round: round, CV: n.CV, Load: loadAverage()}
	var cvs []float64
	for _, x := range s.noise {
		cvs = append(cvs, x.CV)
	}
	rn.Burst = findings.IsBurst(rn.CV, cvs)
	s.noise = append(s.noise, rn)
	return r.opt.DB.SetEnv(context.WithoutCancel(ctx), r.runID, []store.KV{{Key: findings.NoiseKey, Value: formatNoise(s.noise)}})
}

func formatNoise(ns []roundNoise) string {
	var parts []string
	for _, n := range ns {
		p := fmt.Sprintf("%d:%.1f%%/%s", n.Round, 100*n.CV, n.Load)
		if n.Burst {
			p += "*"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " ")
}

// bursts is the number of rounds flagged as noise bursts.
func (s *sequential) bursts() int {
	n := 0
	for _, r := range s.noise {
		if r.Burst {
			n++
		}
	}
	return n
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// status is one check or comparison of a sequential run.
type status struct {
	label    string
	cells    []int
	decided  bool
	verdict  string  // what was decided, or "open"
	interval string  // current estimate and interval
	rounds   int     // rounds its cells have
	more     int     // estimated further rounds to decide; -1 unknown
	hw       float64 // current half-width (log scale), +Inf without interval
}

// judge evaluates every counted check and compared ratio on the samples
// stored so far, with anytime-valid intervals.
func (r *rounds) judge(ctx context.Context) ([]status, error) {
	if r.opt.Decide != nil {
		return r.decide(ctx)
	}
	s := r.seq
	results, err := r.opt.DB.Results(ctx, r.runID)
	if err != nil {
		return nil, err
	}
	samples := analysis.Collect(results)
	var out []status
	for _, c := range claim.Evaluate(r.opt.Spec.Claims, samples, s.opt) {
		for i, cr := range c.Checks {
			if i >= len(r.opt.Spec.Claims[claimIndex(r.opt.Spec.Claims, c.ID)].Checks) {
				break
			}
			ch := r.opt.Spec.Claims[claimIndex(r.opt.Spec.Claims, c.ID)].Checks[i]
			if !claim.Counted(ch) || cr.Verdict == claim.NotTestable {
				continue
			}
			st := status{label: fmt.Sprintf("%s check %d", c.ID, i+1), cells: claim.DependsOn(ch, r.plan.Cells, samples),
				verdict: string(cr.Verdict), interval: cr.Measured, decided: cr.Verdict != claim.Inconclusive, more: -1, hw: math.Inf(1)}
			st.more = checkMore(cr, roundsOf(samples, st.cells, r.plan.Cells))
			out = append(out, st)
		}
	}
	out = append(out, s.comparisons(samples, r.plan.Cells)...)
	return out, nil
}

// decide is the caller's judgement (Options.Decide) as one status that
// reads every cell.
func (r *rounds) decide(ctx context.Context) ([]status, error) {
	done, line, err := r.opt.Decide(ctx, r.runID)
	if err != nil {
		return nil, err
	}
	st := status{label: "decision", decided: done, verdict: "decided", interval: line, more: -1, hw: math.Inf(1)}
	for i := range r.plan.Cells {
		st.cells = append(st.cells, i)
	}
	return []status{st}, nil
}

func claimIndex(cs []spec.Claim, id string) int {
	for i, c := range cs {
		if c.ID == id {
			return i
		}
	}
	return 0
}

// checkMore estimates the further rounds a claim check needs: its interval
// shrinks like 1/√n, and it is decided once its half-width is below the
// distance of its estimate from the threshold.
func checkMore(cr claim.CheckResult, n int) int {
	if cr.Verdict != claim.Inconclusive || n == 0 || !(cr.Estimate > 0 && cr.Lo > 0 && cr.Hi > 0 && cr.Threshold > 0) {
		return -1
	}
	hw := (math.Log(cr.Hi) - math.Log(cr.Lo)) / 2
	dist := math.Abs(math.Log(cr.Estimate) - math.Log(cr.Threshold))
	if dist == 0 {
		return -1
	}
	need := float64(n) * (hw / dist) * (hw / dist)
	return max(1, int(math.Ceil(need))-n)
}

// roundsOf is the number of rounds in which the first of cells has samples.
func roundsOf(samples []*analysis.Sample, cells []int, all []plan.Cell) int {
	best := 0
	for _, ci := range cells {
		for _, sm := range samples {
			if sm.Config == all[ci].Config && sm.Name.Cell() == all[ci].Name() {
				best = max(best, len(sm.Values))
			}
		}
	}
	return best
}

// comparisons judges each compared pair of cells in the run's unit.
func (s *sequential) comparisons(samples []*analysis.Sample, cells []plan.Cell) []status {
	type key struct{ config, name string }
	idx := map[string]map[key][]*analysis.Sample{}
	for _, sm := range samples {
		if sm.Unit == s.unit || sm.Unit == UnitSec {
			k := key{sm.Config, sm.Name.Cell()}
			if idx[sm.Unit] == nil {
				idx[sm.Unit] = map[key][]*analysis.Sample{}
			}
			idx[sm.Unit][k] = append(idx[sm.Unit][k], sm)
		}
	}
	var out []status
	for _, pr := range s.pairs {
		nc, dc := cells[pr[0]], cells[pr[1]]
		unit := s.unit
		nums, dens := idx[unit][key{nc.Config, nc.Name()}], idx[unit][key{dc.Config, dc.Name()}]
		if (len(nums) == 0 || len(dens) == 0) && !s.unitChosen && len(samples) > 0 && roundsOf(samples, []int{pr[0]}, cells) >= initialRounds {
			// No CPU time for this pair (several -test.cpu values, or a
			// loop too short to measure): wall time.
			unit = UnitSec
			nums, dens = idx[unit][key{nc.Config, nc.Name()}], idx[unit][key{dc.Config, dc.Name()}]
		}
		label := pairLabel(nc, dc, s.byKey)
		if len(nums) == 0 || len(dens) == 0 {
			out = append(out, status{label: label + " (" + unit + ")", cells: []int{pr[0], pr[1]}, verdict: "open", interval: "no samples yet", more: -1, hw: math.Inf(1)})
			continue
		}
		for _, num := range nums {
			for _, den := range dens {
				if num.Name.Procs != den.Name.Procs {
					continue
				}
				l := label
				if len(nums) > 1 {
					l += fmt.Sprintf(" procs=%d", num.Name.Procs)
				}
				out = append(out, s.compare(l, unit, num, den, []int{pr[0], pr[1]}))
			}
		}
	}
	return out
}

// compare judges one ratio num/den with the confidence sequence.
func (s *sequential) compare(label, unit string, num, den *analysis.Sample, cells []int) status {
	d := analysis.LogRatios(num.ByRound(), den.ByRound())
	r := s.opt.PairedLogs(d)
	st := status{label: label + " (" + unit + ")", cells: cells, rounds: len(d), more: -1, hw: r.HalfWidth(), verdict: "open"}
	if r.HasInterval() {
		st.interval = fmt.Sprintf("%.4f [%.4f, %.4f] ±%.2f%%, %d rounds", r.Ratio, r.Lo, r.Hi, 100*r.HalfWidth(), r.N)
	} else {
		st.interval = fmt.Sprintf("%.4f, %d rounds (an interval needs %d)", r.Ratio, r.N, analysis.AnytimeMinRounds)
	}
	target := s.precision
	switch {
	case s.precision > 0 && r.HalfWidth() <= s.precision:
		st.decided = true
		st.verdict = "within ±" + pct(s.precision)
		if r.Excludes(1) {
			st.verdict += ", differs from 1"
		} else {
			st.verdict += ", includes 1"
		}
	case s.precision <= 0 && !s.clearsLimits(r):
		// A gate's limit inside the interval: the gate cannot tell yet.
	case s.precision <= 0 && r.Excludes(1):
		st.decided, st.verdict = true, "differs from 1"
	case s.precision <= 0 && r.HalfWidth() <= decidePrecision:
		st.decided, st.verdict = true, "equal within ±"+pct(decidePrecision)
	}
	if s.precision <= 0 {
		target = math.Max(decidePrecision, math.Abs(math.Log(r.Ratio)))
	}
	if !st.decided && len(d) >= 2 {
		st.more = analysis.RoundsToHalfWidth(d, target, s.opt.Confidence, s.opt.AnytimeTarget, 100000) - len(d)
	}
	return st
}

// clearsLimits reports whether r's interval lies wholly on one side of
// every gate limit (a ratio, e.g. 1.01 for "sec/op>+1%").
func (s *sequential) clearsLimits(r analysis.Ratio) bool {
	for _, l := range s.limits {
		if !r.Excludes(l) {
			return false
		}
	}
	return true
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'g', 3, 64) + "%" }

// openCells is the union of the cells that undecided statuses depend on,
// in plan order.
func openCells(sts []status) []int {
	set := map[int]bool{}
	for _, st := range sts {
		if !st.decided {
			for _, c := range st.cells {
				set[c] = true
			}
		}
	}
	out := make([]int, 0, len(set))
	for c := range set {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}

// openLine is the progress line's list of open checks.
func openLine(sts []status) string {
	var open []string
	for _, st := range sts {
		if st.decided {
			continue
		}
		m := st.label + " " + st.interval
		if st.more >= 0 {
			m += fmt.Sprintf(" (≈%d more rounds)", st.more)
		}
		open = append(open, m)
	}
	if len(open) == 0 {
		return "all decided"
	}
	if len(open) > 4 {
		return fmt.Sprintf("%d open; %s; …", len(open), strings.Join(open[:4], "; "))
	}
	return fmt.Sprintf("%d open: %s", len(open), strings.Join(open, "; "))
}

// warnNoise warns once when the open checks would need more rounds than
// the remaining budget allows.
func (s *sequential) warnNoise(w io.Writer, sts []status, remaining time.Duration, roundCost func(int) time.Duration) {
	if s.budget <= 0 || len(s.noise) != 0 {
		return // checked once, before the first sequential round
	}
	worst := 0
	for _, st := range sts {
		if !st.decided && st.more > worst {
			worst = st.more
		}
	}
	if need := time.Duration(worst) * roundCost(len(openCells(sts))); need > remaining && worst > 0 {
		fmt.Fprintf(w, "perflab: warning: the noise is too high to decide every check within the budget: the slowest needs ≈%d more rounds (≈%s), %s remain\n",
			worst, need.Round(time.Second), remaining.Round(time.Second))
		if s.unit == UnitSec {
			fmt.Fprintf(w, "perflab: on a machine shared with other jobs, --unit %s (CPU time, which preemption does not inflate) is often more precise than wall time\n", UnitCPU)
		}
	}
}

// summary prints one line per check and comparison at the end of the
// sequential rounds.
func (s *sequential) summary(w io.Writer, sts []status, rounds int, reason string, roundCost func(int) time.Duration) {
	bursts := s.bursts()
	fmt.Fprintf(w, "perflab: sequential sampling stopped after round %d: %s (%s; anytime-valid 95%% confidence sequences; compared ratios on %s; %d rounds flagged as noise bursts, kept)\n",
		rounds, reason, time.Since(s.start).Round(time.Second), s.unit, bursts)
	if s.unit == UnitCPU {
		fmt.Fprintf(w, "  (%s: %s)\n", UnitCPU, cpuNote)
	} else {
		fmt.Fprintf(w, "  (samples: %s)\n", repeatNote)
	}
	undecided := false
	for _, st := range sts {
		if st.decided {
			fmt.Fprintf(w, "  %-40s %s: %s\n", st.label, st.verdict, st.interval)
			continue
		}
		more := "more rounds needed: unknown"
		if st.more >= 0 {
			more = fmt.Sprintf("would need ≈%d more rounds (≈%s)", st.more, (time.Duration(st.more) * roundCost(len(st.cells))).Round(time.Second))
		}
		fmt.Fprintf(w, "  %-40s undecided: %s; %s\n", st.label, st.interval, more)
		undecided = true
	}
	if undecided && s.unit == UnitSec {
		fmt.Fprintf(w, "perflab: wall time is inflated whenever another job takes the CPU; on a shared machine add --unit %s (CPU time per op, ≈1 s processes; docs/sequential.md)\n", UnitCPU)
	}
}

// comparedPairs chooses the ratios a sequential run decides besides the
// spec's claims (all of them under --precision, else only when the spec
// has no counted check): each cell against its baseline, the cell that
// differs from it only in one key. The key is the spec's analysis "by" key
// (specBy) when the cells carry it, else the config when there are
// several, else the last sub-benchmark key with several values; the
// baseline value is the spec's (specBase) or the first in plan order.
func comparedPairs(cells []plan.Cell, specBy, specBase string) ([][2]int, string) {
	configs := map[string]bool{}
	values := map[string]map[string]bool{}
	var keys []string
	for _, c := range cells {
		configs[c.Config] = true
		for _, l := range c.Levels {
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				continue
			}
			if values[k] == nil {
				values[k] = map[string]bool{}
				keys = append(keys, k)
			}
			values[k][v] = true
		}
	}
	by := ""
	if specBy == "config" && len(configs) > 1 || specBy != "" && len(values[specBy]) > 1 {
		by = specBy
	} else {
		specBase = ""
	}
	if by == "" && len(configs) > 1 {
		by = "config"
	}
	for i := len(keys) - 1; i >= 0 && by == ""; i-- {
		if len(values[keys[i]]) > 1 {
			by = keys[i]
		}
	}
	if by == "" {
		return nil, ""
	}
	return pairsBy(cells, by, specBase), by
}

// pairsBy pairs each cell with the baseline cell of its group: same cell
// but for the value of key by (or the config); the baseline has value
// baseline, or is the group's first cell when baseline is empty.
func pairsBy(cells []plan.Cell, by, baseline string) [][2]int {
	group := func(c plan.Cell) (string, string) {
		if by == "config" {
			return c.Name(), c.Config
		}
		var rest []string
		val := ""
		for _, l := range c.Levels {
			if k, v, ok := strings.Cut(l, "="); ok && k == by {
				val = v
				continue
			}
			rest = append(rest, l)
		}
		return c.Bench + "/" + strings.Join(rest, "/") + "@" + c.Config, val
	}
	base := map[string]int{}
	for i, c := range cells {
		g, v := group(c)
		if _, ok := base[g]; v != "" && (v == baseline || baseline == "" && !ok) {
			base[g] = i
		}
	}
	var out [][2]int
	for i, c := range cells {
		g, v := group(c)
		if b, ok := base[g]; ok && v != "" && b != i {
			out = append(out, [2]int{i, b})
		}
	}
	return out
}

// pairLabel names a compared pair, e.g. "v=b/v=a" or "gogc-off/default @ BenchmarkX/n=1".
func pairLabel(num, den plan.Cell, by string) string {
	if by == "config" {
		return fmt.Sprintf("%s/%s %s", num.Config, den.Config, num.Name())
	}
	val := func(c plan.Cell) string {
		for _, l := range c.Levels {
			if k, v, ok := strings.Cut(l, "="); ok && k == by {
				return v
			}
		}
		return ""
	}
	rest := strings.Join(slices.DeleteFunc(slices.Clone(num.Levels), func(l string) bool { return strings.HasPrefix(l, by+"=") }), "/")
	name := num.Bench
	if rest != "" {
		name += "/" + rest
	}
	return fmt.Sprintf("%s %s=%s/%s", name, by, val(num), val(den))
}

// cpuNote says what cpu-sec/op measures, wherever a verdict rests on it.
// repeatNote says how a sequential run that decides on sec/op times its
// cells.
var repeatNote = fmt.Sprintf("after its first run each cell runs at a fixed iteration count, as %d back-to-back repetitions in one process; the process's value of each unit is the median of its repetitions; intervals are computed across rounds", repeats)

const cpuNote = "the benchmark process's CPU time (user + system, all threads) at a fixed iteration count, less that of a 2-iteration process of the same cell run just before it, per iteration; it excludes time the process was not running and includes garbage-collector work on other threads"
