package engine

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// Budget limits.
const (
	minRounds = 6  // fewest rounds for which a median has a confidence interval
	maxRounds = 50 // more rounds than this add little; spend the budget elsewhere
)

// fitBudget chooses rounds and, if six rounds (a sequential run: its
// initial pass of seq rounds) do not fit, a shorter benchtime, so that
// the run ends within opt.Budget. It times one cell to
// learn what a cell costs on this machine, and says what it chose before the
// run starts.
func fitBudget(ctx context.Context, opt Options, whole time.Duration, seq int, p *plan.Plan, mode *spec.Mode, timeout time.Duration, bins map[string]string, meas *measurer, lay *layouts, probed *budgetProbe, progress io.Writer) error {
	var probe plan.Cell
	cells := 0
	for _, c := range p.Cells {
		if _, ok := bins[slot(c)]; ok {
			if cells == 0 {
				probe = c
			}
			cells++
		}
	}
	if cells == 0 {
		return nil
	}
	if probed.cell == 0 {
		start := time.Now()
		r := &rounds{opt: opt, mode: *mode, timeout: timeout, meas: meas}
		if _, err := r.runCell(ctx, bins[slot(probe)], probe, 0); err != nil && ctx.Err() == nil {
			return fmt.Errorf("timing one cell to fit the budget: %w", err)
		} else if ctx.Err() != nil {
			return ctx.Err()
		}
		probed.cell = time.Since(start)
		_ = meas.drain() // a failure of the probe's instructions shows again in round 1
	}
	cell := probed.cell
	ncpu := max(1, len(mode.CPU))
	bench := benchDuration(mode.Benchtime) * time.Duration(ncpu)
	f := Fit{Budget: opt.Budget, Whole: whole, Cells: cells, Cell: cell, Benchtime: mode.Benchtime, Relink: lay.perRound(),
		Sequential: seq > 0 && meas == nil, Bench: bench, Rounds: seq}
	// What a process costs beyond its benchmark's timed loops: start-up,
	// the benchmark's own set-up (run once for each repetition, and for
	// go test's first one-iteration run of each) and exit, timed by
	// running cells at one iteration as a later process runs them, with
	// its repetitions. Set-up differs from benchmark to benchmark, so up
	// to nine cells spread over the plan are timed and their mean is
	// taken. The rest of the probe is the benchmark with go test's
	// ramp-up to the benchtime, which a shorter benchtime shortens too.
	f.Overhead = max(5*time.Millisecond, cell-bench)
	if meas == nil && bench > 0 {
		count := 1
		if seq > 0 && opt.Repeat != nil && opt.Unit != UnitCPU {
			count = repeats
		}
		if probed.fixed == nil {
			probed.fixed = map[int]time.Duration{}
		}
		sum, ok := probed.fixed[count]
		n := 0
		if ok {
			n = 1 // timed by an earlier fit of this run
		}
		for _, c := range spread(p.Cells, bins, 9) {
			if ok {
				break
			}
			re, err := gotest.BenchRegex(c.Bench, c.Levels)
			if err != nil {
				continue
			}
			config, _ := splitSlot(slot(c))
			ostart := time.Now()
			_, err = gotest.Run(ctx, gotest.Invocation{Binary: bins[slot(c)], Dir: opt.packageDirOf(slot(c)), Bench: re, Benchtime: "1x", Count: count,
				CPU: mode.CPU, Env: configNamed(opt.Spec, config).ExecEnv(), Timeout: timeout})
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err == nil {
				sum += time.Since(ostart)
				n++
			}
		}
		if n > 0 {
			f.Overhead = max(time.Millisecond, sum/time.Duration(n))
			probed.fixed[count] = f.Overhead
			f.Cell = max(f.Cell, f.Overhead+bench)
		}
	}
	if bench == 0 { // an iteration count: the probe's time is all we know
		f.Overhead = cell / 2
	}
	if !opt.NoProfile && mode.Profile != "off" {
		pb := benchDuration(mode.ProfileBenchtime) * time.Duration(ncpu)
		// Two passes (profiles, then the trace) of each cell at the
		// profile's benchtime, with its set-up (as profileReserve).
		f.Profile = time.Duration(cells) * (2*pb + f.Overhead)
		if mode.Profile == "cell" {
			f.Profile += time.Duration(2*cells) * f.Overhead
		}
	}
	rounds, benchtime, est, err := f.Solve()
	if err != nil && whole > f.Budget {
		// The initial pass does not fit half the budget even at the
		// shortest benchtime: let it take up to nine tenths, leaving
		// later rounds the rest.
		g := f
		g.Budget = whole * 9 / 10
		if r2, bt2, est2, err2 := g.Solve(); err2 == nil {
			rounds, benchtime, est, err, f = r2, bt2, est2, nil, g
		}
	}
	if err != nil && whole > 0 && meas == nil {
		// The least budget whose nine tenths hold the rounds at the
		// shortest benchtime, rounded up to 10s.
		least := (f.shortest()*10/9 + 10*time.Second - 1).Truncate(10 * time.Second)
		err = &BudgetError{msg: fmt.Sprintf("%v; --budget %s or more would run it", err, least), Least: least}
	}
	if err != nil && meas != nil {
		return fmt.Errorf("%w (one cell took %s, most of it its two runs under valgrind)", err, cell.Round(time.Millisecond))
	}
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%d rounds × %d cells at benchtime %s fit", rounds, cells, cmpOr(benchtime, "default"))
	if whole > opt.Budget {
		what = fmt.Sprintf("an initial pass of %d rounds × %d cells at benchtime %s fits %s of it; the rest goes to the rows it leaves undecided", rounds, cells, cmpOr(benchtime, "default"), f.Budget.Round(time.Second))
	}
	fmt.Fprintf(progress, "perflab: budget %s: %s (≈%s estimated; a cell's first process ≈ %s, of which %s to start, set up and exit)\n",
		whole.Round(time.Second), what, est.Round(time.Second), cell.Round(time.Millisecond), f.Overhead.Round(time.Millisecond))
	mode.Rounds, mode.Benchtime = rounds, benchtime
	return nil
}

// budgetProbe holds what fitting a run's budget timed on this machine, so
// that fitting it again with other rounds, layouts or repetitions does
// not run the probes again.
type budgetProbe struct {
	cell  time.Duration         // the probe cell's first process at the benchtime; 0 until timed
	fixed map[int]time.Duration // a process's fixed cost by its repetitions
}

// A BudgetError is a budget too small for a run's first rounds even at
// the shortest benchtime: nothing was run or stored. Least, when not 0,
// is the least budget that would run them.
type BudgetError struct {
	msg   string
	Least time.Duration
}

func (e *BudgetError) Error() string { return e.msg }

// Fit is the arithmetic of a time budget.
type Fit struct {
	Budget    time.Duration // the part of the budget to fit
	Whole     time.Duration // the whole budget, for messages (0: Budget)
	Cells     int           // cells per round
	Cell      time.Duration // measured time of a cell's first process at Benchtime
	Overhead  time.Duration // the part of Cell that does not scale with benchtime: the process's start and exit
	Benchtime string
	Bench     time.Duration // Benchtime as a duration × CPUs (0 for an iteration count)
	Profile   time.Duration // estimated profiling pass
	Relink    time.Duration // relinking random layouts, per round (layout.go)
	// Sequential: after its first process, a cell runs at a fixed
	// iteration count (adaptive.go), so later processes last about
	// Overhead + Bench instead of the first's ramp-up.
	Sequential bool
	// Rounds is how many rounds must fit (0: six). A sequential run's
	// initial pass is exactly its rounds; a fixed run fills the budget
	// with up to 50.
	Rounds int
}

// shortest is the least time the rounds take: every process at the
// shortest benchtime, and the profiling pass.
func (f Fit) shortest() time.Duration {
	least := cmp.Or(f.Rounds, minRounds)
	return time.Duration(least)*(time.Duration(f.Cells)*f.Overhead+f.Relink) + f.Profile
}

// Solve returns the rounds and benchtime that fit, and the estimated time.
func (f Fit) Solve() (rounds int, benchtime string, estimate time.Duration, err error) {
	avail := f.Budget - f.Profile
	cells := time.Duration(f.Cells)
	first := cells * f.Cell // round 1, at scale 1
	later := first          // each later round, at scale 1
	if f.Sequential && f.Bench > 0 && f.Bench < f.Cell-f.Overhead {
		later = cells * (f.Overhead + f.Bench)
	}
	if first <= 0 {
		return minRounds, f.Benchtime, f.Profile, nil
	}
	least := cmp.Or(f.Rounds, minRounds)
	total := func(n int) time.Duration { return first + time.Duration(n-1)*later + time.Duration(n)*f.Relink }
	if total(least) <= avail {
		n := least
		for !f.Sequential && n < maxRounds && total(n+1) <= avail {
			n++
		}
		return n, f.Benchtime, total(n) + f.Profile, nil
	}
	// The rounds do not fit: shorten the part of each process that
	// benchtime drives.
	fixed := time.Duration(least) * (cells*f.Overhead + f.Relink)
	scalable := total(least) - time.Duration(least)*f.Relink - time.Duration(least)*cells*f.Overhead
	if avail <= fixed || scalable <= 0 {
		need := fixed + f.Profile
		budget := f.Budget.Round(time.Second).String()
		if f.Whole > f.Budget {
			budget = fmt.Sprintf("%s (whose initial pass gets half, %s)", f.Whole.Round(time.Second), f.Budget.Round(time.Second))
		}
		return 0, "", 0, &BudgetError{msg: fmt.Sprintf("a budget of %s is too small for %d cells × %d rounds: even the shortest benchtime needs about %s (each process takes ≈%s to start, set up and exit); raise --budget or select fewer benchmarks", budget, f.Cells, least, need.Round(time.Second), f.Overhead.Round(time.Millisecond))}
	}
	scale := float64(avail-fixed) / float64(scalable)
	bt := scaleBenchtime(f.Benchtime, scale)
	est := fixed + time.Duration(float64(scalable)*scale) + f.Profile
	return least, bt, est, nil
}

// benchDuration is a benchtime's duration, or 0 for an iteration count.
func benchDuration(bt string) time.Duration {
	if bt == "" {
		return time.Second // go test's default
	}
	if strings.HasSuffix(bt, "x") {
		return 0
	}
	d, err := time.ParseDuration(bt)
	if err != nil {
		return 0
	}
	return d
}

// scaleBenchtime multiplies a benchtime by f (0 < f < 1), keeping its form:
// durations stay durations (at least 1ms), iteration counts stay counts (at least 1x).
func scaleBenchtime(bt string, f float64) string {
	if n, ok := strings.CutSuffix(bt, "x"); ok {
		if v, err := strconv.Atoi(n); err == nil {
			return strconv.Itoa(max(1, int(math.Floor(float64(v)*f)))) + "x"
		}
	}
	d := benchDuration(bt)
	if d == 0 {
		d = time.Second
	}
	return max(time.Millisecond, time.Duration(float64(d)*f)).Round(time.Millisecond).String()
}

// spread picks up to n cells with a binary, spread evenly over cells.
func spread(cells []plan.Cell, bins map[string]string, n int) []plan.Cell {
	var with []plan.Cell
	for _, c := range cells {
		if _, ok := bins[slot(c)]; ok {
			with = append(with, c)
		}
	}
	if len(with) <= n {
		return with
	}
	out := make([]plan.Cell, n)
	for i := range out {
		out[i] = with[i*(len(with)-1)/(n-1)]
	}
	return out
}
