package engine

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// Budget limits.
const (
	minRounds = 6  // fewest rounds for which a median has a confidence interval
	maxRounds = 50 // more rounds than this add little; spend the budget elsewhere
)

// fitBudget chooses rounds and, if six rounds do not fit, a shorter
// benchtime, so that the run ends within opt.Budget. It times one cell to
// learn what a cell costs on this machine, and says what it chose before the
// run starts.
func fitBudget(ctx context.Context, opt Options, p *plan.Plan, mode *spec.Mode, timeout time.Duration, bins map[string]string, meas *measurer, lay *layouts, progress io.Writer) error {
	start := time.Now()
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
	r := &rounds{opt: opt, mode: *mode, timeout: timeout, meas: meas}
	if _, err := r.runCell(ctx, bins[slot(probe)], probe, 0); err != nil && ctx.Err() == nil {
		return fmt.Errorf("timing one cell to fit the budget: %w", err)
	} else if ctx.Err() != nil {
		return ctx.Err()
	}
	cell := time.Since(start)
	_ = meas.drain() // a failure of the probe's instructions shows again in round 1
	ncpu := max(1, len(mode.CPU))
	bench := benchDuration(mode.Benchtime) * time.Duration(ncpu)
	overhead := max(5*time.Millisecond, cell-bench)
	if bench == 0 { // an iteration count: the probe's time is all we know
		overhead = cell / 2
	}
	f := Fit{Budget: opt.Budget, Cells: cells, Cell: cell, Overhead: overhead, Benchtime: mode.Benchtime, Relink: lay.perRound()}
	if !opt.NoProfile && mode.Profile != "off" {
		pb := benchDuration(mode.ProfileBenchtime) * time.Duration(ncpu)
		f.Profile = time.Duration(2*cells) * pb
		if mode.Profile == "cell" {
			f.Profile += time.Duration(2*cells) * overhead
		}
	}
	rounds, benchtime, est, err := f.Solve()
	if err != nil && meas != nil {
		return fmt.Errorf("%w (one cell took %s, most of it its two runs under valgrind)", err, cell.Round(time.Millisecond))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(progress, "perflab: budget %s: %d rounds × %d cells at benchtime %s fit (≈%s estimated; one cell ≈ %s)\n",
		opt.Budget, rounds, cells, cmpOr(benchtime, "default"), est.Round(time.Second), cell.Round(time.Millisecond))
	mode.Rounds, mode.Benchtime = rounds, benchtime
	return nil
}

// Fit is the arithmetic of a time budget.
type Fit struct {
	Budget    time.Duration // the whole budget
	Cells     int           // cells per round
	Cell      time.Duration // measured time of one cell at Benchtime
	Overhead  time.Duration // the part of Cell that does not scale with benchtime
	Benchtime string
	Profile   time.Duration // estimated profiling pass
	Relink    time.Duration // relinking random layouts, per round (layout.go)
}

// Solve returns the rounds and benchtime that fit, and the estimated time.
func (f Fit) Solve() (rounds int, benchtime string, estimate time.Duration, err error) {
	avail := f.Budget - f.Profile
	perRound := time.Duration(f.Cells)*f.Cell + f.Relink
	if perRound <= 0 {
		return minRounds, f.Benchtime, f.Profile, nil
	}
	if n := int(avail / perRound); n >= minRounds {
		n = min(n, maxRounds)
		return n, f.Benchtime, time.Duration(n)*perRound + f.Profile, nil
	}
	// Six rounds do not fit: shorten the part of each cell that benchtime drives.
	fixed := time.Duration(minRounds*f.Cells)*f.Overhead + minRounds*f.Relink
	scalable := time.Duration(minRounds*f.Cells) * (f.Cell - f.Overhead)
	if avail <= fixed || scalable <= 0 {
		need := fixed + f.Profile
		return 0, "", 0, fmt.Errorf("a budget of %s is too small for %d cells × %d rounds: even the shortest benchtime needs about %s; raise --budget or run fewer cells", f.Budget, f.Cells, minRounds, need.Round(time.Second))
	}
	scale := float64(avail-fixed) / float64(scalable)
	bt := scaleBenchtime(f.Benchtime, scale)
	est := fixed + time.Duration(float64(scalable)*scale) + f.Profile
	return minRounds, bt, est, nil
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
