package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Follow-up rounds: a run of fixed rounds judged at two looks.
//
// After its planned rounds, a run of fixed rounds whose spec has counted
// claim checks (Rules.FirstLook) asks its Judge for them (perflab's judges
// them at the first look, at a third of α). The cells that the checks
// still undecided read then run follow-up rounds — shuffled, interleaved
// and paired by round like the planned ones — and the analysis judges
// those checks again on all their rounds (the second look, at the rest of
// α; claim.LookRule). A check near its threshold gets
// the precision of both looks' rounds instead of a coin toss at the
// planned few, so two runs of the same code agree on it far more often.
//
// The number of follow-up rounds is fixed before they start, from time
// alone, for each undecided check (allot): at most followUpFactor times
// the planned rounds, and together no more than fit the allowance at what
// the cells took per round. The allowance is followUpShare of the planned
// rounds' wall time, and at least followUpFloor (or the planned rounds'
// own time, if less), so that a short experiment's expensive check — a
// load step of seconds — still gets a few rounds. It never depends on an
// estimate. Checks usually read a few cells of a sweep, so follow-up
// rounds are cheap.
const (
	followUpFactor = 4
	followUpShare  = 0.2
	followUpFloor  = 30 * time.Second
)

// followUpAllowance is the time follow-up rounds may take after planned
// rounds that took planned.
func followUpAllowance(planned time.Duration) time.Duration {
	return max(time.Duration(followUpShare*float64(planned)), min(followUpFloor, planned))
}

// followsUp reports whether a new run of fixed rounds gets follow-up
// rounds: it has a judge and counted checks, and is neither sharded (each
// shard runs only its own rounds) nor told to run exactly its planned
// rounds.
func followsUp(opt Options, rules Rules) bool {
	return !opt.NoFollowUp && opt.Shard == nil && opt.Judge != nil && rules.FirstLook
}

// timeCell adds one run of plan cell ci to what follow-up rounds cost.
func (r *rounds) timeCell(ci int, d time.Duration) {
	if r.cellWall == nil {
		r.cellWall, r.cellRuns, r.lastWall = map[int]time.Duration{}, map[int]int{}, map[int]time.Duration{}
	}
	r.cellWall[ci] += d
	r.lastWall[ci] = d
	r.cellRuns[ci]++
}

// allot shares a time allowance among the undecided checks, each reading
// the cells checks[j], as numbers of follow-up rounds: max-min fair, so
// that one expensive check (a sweep's crossover) does not hold a cheap one
// (a single cell's ratio) to the rounds it can afford itself. Rounds are
// handed out one at a time to the check with the fewest so far that is not
// yet at most and whose next round still fits; a cell that several checks
// read runs as many rounds as the most of them (cell), and costs once per
// round. A check reading a cell of unknown cost gets none. The result
// depends on the costs and on which checks are open, never on an estimate.
func allot(checks [][]int, cost map[int]time.Duration, allowance time.Duration, most int) (rounds []int, cell map[int]int) {
	rounds, cell = make([]int, len(checks)), map[int]int{}
	done := make([]bool, len(checks))
	for j, cells := range checks {
		for _, ci := range cells {
			if cost[ci] <= 0 {
				done[j] = true
			}
		}
		done[j] = done[j] || len(cells) == 0 || most <= 0
	}
	var spent time.Duration
	for {
		j := -1
		for k := range checks {
			if !done[k] && (j < 0 || rounds[k] < rounds[j]) {
				j = k
			}
		}
		if j < 0 {
			return rounds, cell
		}
		var more time.Duration // what one more round of check j adds
		for _, ci := range checks[j] {
			if cell[ci] == rounds[j] {
				more += cost[ci]
			}
		}
		if spent+more > allowance {
			done[j] = true
			continue
		}
		spent += more
		rounds[j]++
		for _, ci := range checks[j] {
			cell[ci] = max(cell[ci], rounds[j])
		}
		done[j] = rounds[j] >= most
	}
}

// followUp takes the first look and runs the follow-up rounds.
func (r *rounds) followUp(ctx context.Context) error {
	n := r.firstLook
	if n <= 0 || r.seq != nil {
		return nil
	}
	if done, err := r.opt.DB.RoundsDone(ctx, r.runID); err != nil {
		return err
	} else if len(done) > 0 && slices.Max(done) > n {
		return nil // a resumed run that had begun its follow-up rounds keeps what it has
	}
	if r.opt.Judge == nil {
		return nil
	}
	st, err := r.opt.Judge.FirstLook(ctx, r.runID)
	if err != nil {
		return fmt.Errorf("first look after %d rounds: %w", n, err)
	}
	var (
		open  []string
		reads [][]int
	)
	idx := indexOf(r.plan)
	for _, it := range st.open() {
		var cells []int
		for _, ci := range idx.indexes(it.Cells) {
			if _, ok := r.bins[slot(r.plan.Cells[ci])]; ok {
				cells = append(cells, ci)
			}
		}
		if len(cells) > 0 {
			open = append(open, it.Label)
			reads = append(reads, cells)
		}
	}
	counted := len(st.Items)
	if len(open) == 0 {
		fmt.Fprintf(r.progress, "perflab: first look after %d rounds: all %d testable counted checks decided; no follow-up rounds\n", n, counted)
		return nil
	}
	cost := map[int]time.Duration{}
	for _, cells := range reads {
		for _, ci := range cells {
			if k := r.cellRuns[ci]; k > 0 {
				cost[ci] = r.cellWall[ci] / time.Duration(k)
			}
		}
	}
	allowance := followUpAllowance(r.plannedElapsed)
	perCheck, perCell := allot(reads, cost, allowance, followUpFactor*n)
	rounds := 0
	for _, k := range perCell {
		rounds = max(rounds, k)
	}
	head := fmt.Sprintf("perflab: first look after %d rounds: %d of %d testable counted checks undecided", n, len(open), counted)
	if rounds == 0 {
		fmt.Fprintf(r.progress, "%s (%s); a round of any one's cells takes more than the follow-up allowance %s: no follow-up rounds\n",
			head, strings.Join(open, ", "), allowance.Round(time.Second))
		return nil
	}
	fmt.Fprintf(r.progress, "%s; follow-up rounds within %s: %s\n", head, allowance.Round(time.Second), allotment(open, perCheck))
	start := time.Now()
	for k := 1; k <= rounds; k++ {
		var cells []int
		for ci, m := range perCell {
			if m >= k {
				cells = append(cells, ci)
			}
		}
		slices.Sort(cells)
		round := n + k
		if err := r.runRound(ctx, round, r.plan.OrderOf(round, cells)); err != nil {
			return err
		}
		if r.opt.Verbose || !isTerminal(r.progress) || k == rounds {
			fmt.Fprintf(r.progress, "perflab: follow-up round %d/%d stored (round %d, %d cells), %s elapsed\n", k, rounds, round, len(cells), time.Since(start).Round(time.Second))
		}
	}
	r.res.RoundsTotal = n + rounds
	return nil
}

// allotment says how many follow-up rounds each open check gets, checks of
// the same number together: "12 for E2.1, E2.2; 3 for D5.3".
func allotment(open []string, rounds []int) string {
	by := map[int][]string{}
	for j, id := range open {
		by[rounds[j]] = append(by[rounds[j]], id)
	}
	ks := make([]int, 0, len(by))
	for k := range by {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	slices.Reverse(ks)
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%d for %s", k, strings.Join(by[k], ", "))
	}
	return strings.Join(parts, "; ")
}
