package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/perflab/perflab/store"
)

// Rows the budget cannot hold.
//
// A sequential run's first intervals come at the end of its initial pass,
// so a pass the budget cannot finish decides nothing. Benchmarks differ a
// thousandfold in what a round of them costs (a set-up of a second against
// a few milliseconds), and the budget's probe, timed on a few cells before
// round 1, cannot see them all. So after each round of the pass from the
// second (once every cell has run a process at its fixed count), the run
// predicts what its remaining rounds cost, cell by cell. When they do not
// fit what is left of the budget, it first runs one repetition a process
// in the groups of compared cells whose repetitions cost more in set-up
// than they time (alloc.go), those it shortens most first, as few as make
// the pass fit. When that is not enough, it leaves out the groups whose
// rounds cost most, as few as make the rest fit, so that the
// others get their intervals: with every group costing one round each,
// dropping the dearest first keeps the most of them. A left-out cell runs
// no more; it is recorded as skipped with the reason, its comparisons stay
// undecided, and the run says what budget would have held them. When even
// the cheapest group alone does not fit, nothing is left out and the pass
// ends at the budget (initialPassSpent).

// cellCost is the predicted wall time of plan cell ci's next process: as
// its repetitions make it (alloc.go), else its last run's, else 0.
func (r *rounds) cellCost(ci int) time.Duration {
	if r.seq != nil {
		if c := r.seq.alloc.cost(r.plan.Cells[ci].String()); c > 0 {
			return c
		}
	}
	return r.lastWall[ci]
}

// predictedRound is the wall time of a round of the cells not left out,
// with what the last round took beside its cells (relinking, storing) or,
// before one has run, the relinking a round needs; ok is false while some
// cell's cost is unknown.
func (r *rounds) predictedRound() (d time.Duration, ok bool) {
	for ci := range r.plan.Cells {
		if r.left[ci] {
			continue
		}
		if _, built := r.bins[slot(r.plan.Cells[ci])]; !built {
			continue
		}
		c := r.cellCost(ci)
		if c <= 0 {
			return 0, false
		}
		d += c
	}
	return d + max(r.roundExtra, r.lay.perRound()), true
}

// leaveOut leaves out, after round of the initial pass, the groups of
// cells whose remaining rounds the budget cannot hold (see above), and
// records why.
func (r *rounds) leaveOut(ctx context.Context, round int) error {
	s := r.seq
	if s == nil || s.budget <= 0 || round < 2 || round >= r.plan.Rounds || s.alloc.groups == nil {
		return nil
	}
	rest := time.Duration(r.plan.Rounds - round)
	remaining := s.budget - time.Since(s.start) - r.profileReserve()
	whole, ok := r.predictedRound()
	if !ok || rest*whole <= remaining {
		return nil
	}
	if s.unit != UnitCPU && r.opt.Repeat != nil {
		var cut []string
		for _, g := range s.alloc.setupHeavy() {
			if rest*whole <= remaining {
				break
			}
			for _, key := range g {
				s.alloc.k[key] = 1
			}
			cut = append(cut, g...)
			whole, _ = r.predictedRound()
		}
		if len(cut) > 0 {
			fmt.Fprintf(r.progress, "perflab: the initial pass's remaining %d rounds do not fit the %s of the budget that remain: %d cells whose set-up costs more than their timed loop (%s) run one repetition a process from round %d\n",
				rest, remaining.Round(time.Second), len(cut), namesLine(cut), round+1)
		}
		if rest*whole <= remaining {
			return nil
		}
	}
	idx := indexOf(r.plan)
	type group struct {
		cells []int
		cost  time.Duration
	}
	var groups []group
	for _, g := range s.alloc.groups {
		var gr group
		for _, key := range g {
			ci, ok := idx[key]
			if !ok || r.left[ci] {
				continue
			}
			gr.cells = append(gr.cells, ci)
			gr.cost += r.cellCost(ci)
		}
		if len(gr.cells) > 0 {
			groups = append(groups, gr)
		}
	}
	slices.SortStableFunc(groups, func(a, b group) int { return int(b.cost - a.cost) })
	kept := whole
	n := 0
	for n < len(groups)-1 && rest*kept > remaining {
		kept -= groups[n].cost
		n++
	}
	if rest*kept > remaining {
		return nil // even the cheapest group alone does not fit
	}
	if r.left == nil {
		r.left = map[int]bool{}
	}
	var names []string
	cells := 0
	for _, g := range groups[:n] {
		for _, ci := range g.cells {
			r.left[ci] = true
			names = append(names, r.plan.Cells[ci].String())
			cells++
		}
	}
	// Rounded up, and more than the budget given: the prediction that
	// did not fit it is what this budget lacks.
	need := max(time.Since(s.start)+rest*whole+r.profileReserve(), s.budget+time.Second)
	need = (need + 10*time.Second - 1).Truncate(10 * time.Second)
	reason := fmt.Sprintf(store.LeftOutPrefix+"%d: the initial pass's remaining %d rounds of every cell need ≈%s and %s of the budget remain, and this cell's comparison is among those that cost most a round (≈%s or more each); a budget of about %s would have held the initial pass of every comparison",
		round, rest, (rest * whole).Round(time.Second), remaining.Round(time.Second), groups[n-1].cost.Round(time.Millisecond), need)
	which := fmt.Sprintf("the %d comparisons whose rounds cost most (%s; %d cells, ≈%s a round) run", n, namesLine(names), cells, (whole - kept).Round(time.Millisecond))
	if n == 1 {
		which = fmt.Sprintf("the comparison whose rounds cost most (%s; %d cells, ≈%s a round) runs", namesLine(names), cells, (whole - kept).Round(time.Millisecond))
	}
	fmt.Fprintf(r.progress, "perflab: the initial pass's remaining %d rounds need ≈%s and %s of the budget remain: %s no more, so that the other %d get their intervals; a budget of about %s would have held the initial pass of every one\n",
		rest, (rest * whole).Round(time.Second), remaining.Round(time.Second), which, len(groups)-n, need)
	for _, g := range groups[:n] {
		for _, ci := range g.cells {
			c := r.plan.Cells[ci]
			f := store.Failure{Round: round + 1, Config: c.Config, Cell: c.Name(), Reason: reason, Skip: true}
			if err := r.opt.DB.AddFailure(ctx, r.runID, f); err != nil {
				return err
			}
		}
	}
	return nil
}

// withoutLeft drops the cells left out from plan indexes.
func (r *rounds) withoutLeft(cells []int) []int {
	if len(r.left) == 0 {
		return cells
	}
	return slices.DeleteFunc(slices.Clone(cells), func(ci int) bool { return r.left[ci] })
}
