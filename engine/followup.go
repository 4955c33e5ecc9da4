package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
)

// Follow-up rounds: a run of fixed rounds judged at two looks.
//
// After its planned rounds, a run of fixed rounds whose spec has counted
// claim checks judges them (the first look, at a third of α). The cells
// that the checks still undecided read then run follow-up rounds —
// shuffled, interleaved and paired by round like the planned ones — and
// the analysis judges those checks again on all their rounds (the second
// look, at the rest of α; claim.LookRule). A check near its threshold gets
// the precision of both looks' rounds instead of a coin toss at the
// planned few, so two runs of the same code agree on it far more often.
//
// The number of follow-up rounds is fixed before they start, from time
// alone: at most followUpFactor times the planned rounds, and no more
// than fit followUpShare of the planned rounds' wall time at what those
// cells took per round. It never depends on an estimate. Checks usually
// read a few cells of a sweep, so follow-up rounds are cheap.
const (
	followUpFactor = 2
	followUpShare  = 0.2
)

// followsUp reports whether a new run of fixed rounds gets follow-up
// rounds: it has counted checks, and is neither sharded (each shard runs
// only its own rounds) nor told to run exactly its planned rounds.
func followsUp(opt Options) bool {
	return !opt.NoFollowUp && opt.Shard == nil && len(countedChecks(opt.Spec)) > 0
}

// timeCell adds one run of plan cell ci to what follow-up rounds cost.
func (r *rounds) timeCell(ci int, d time.Duration) {
	if r.cellWall == nil {
		r.cellWall, r.cellRuns = map[int]time.Duration{}, map[int]int{}
	}
	r.cellWall[ci] += d
	r.cellRuns[ci]++
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
	results, err := r.opt.DB.Results(ctx, r.runID)
	if err != nil {
		return err
	}
	// Every stored round is a planned one here: the first look's options
	// judge them as the analysis will (claim.LookOptions).
	first, _ := claim.LookOptions(analysis.DefaultOptions())
	var open []string
	cells := map[int]bool{}
	counted := 0
	samples := analysis.Collect(results)
	for _, c := range claim.Evaluate(r.opt.Spec.Claims, samples, first) {
		sc := r.opt.Spec.Claims[claimIndex(r.opt.Spec.Claims, c.ID)]
		for i, cr := range c.Checks {
			if i >= len(sc.Checks) || !claim.Counted(sc.Checks[i]) || cr.Verdict == claim.NotTestable {
				continue
			}
			counted++
			if cr.Verdict == claim.Reproduced || cr.Verdict == claim.Contradicted {
				continue
			}
			dep := claim.DependsOn(sc.Checks[i], r.plan.Cells, samples)
			if len(dep) == 0 {
				continue
			}
			open = append(open, fmt.Sprintf("%s.%d", c.ID, i+1))
			for _, ci := range dep {
				if _, ok := r.bins[r.plan.Cells[ci].Config]; ok {
					cells[ci] = true
				}
			}
		}
	}
	if len(open) == 0 || len(cells) == 0 {
		fmt.Fprintf(r.progress, "perflab: first look after %d rounds: all %d testable counted checks decided; no follow-up rounds\n", n, counted)
		return nil
	}
	order := make([]int, 0, len(cells))
	var perRound time.Duration
	for ci := range cells {
		order = append(order, ci)
		if k := r.cellRuns[ci]; k > 0 {
			perRound += r.cellWall[ci] / time.Duration(k)
		}
	}
	slices.Sort(order)
	allowance := time.Duration(followUpShare * float64(r.plannedElapsed))
	rounds := followUpFactor * n
	if perRound > 0 {
		rounds = min(rounds, int(allowance/perRound))
	} else {
		rounds = 0 // no measured cost (every planned round was stored before a resume)
	}
	head := fmt.Sprintf("perflab: first look after %d rounds: %d of %d testable counted checks undecided (%s)", n, len(open), counted, strings.Join(open, ", "))
	if rounds == 0 {
		fmt.Fprintf(r.progress, "%s; a round of their %d cells takes %s, over the follow-up allowance %s (%.0f%% of the planned rounds): no follow-up rounds\n",
			head, len(order), perRound.Round(time.Millisecond), allowance.Round(time.Second), 100*followUpShare)
		return nil
	}
	fmt.Fprintf(r.progress, "%s: %d follow-up rounds of their %d cells (≈%s each)\n", head, rounds, len(order), perRound.Round(time.Millisecond))
	start := time.Now()
	for k := 1; k <= rounds; k++ {
		round := n + k
		if err := r.runRound(ctx, round, r.plan.OrderOf(round, order)); err != nil {
			return err
		}
		if r.opt.Verbose || !isTerminal(r.progress) || k == rounds {
			fmt.Fprintf(r.progress, "perflab: follow-up round %d/%d stored (round %d), %s elapsed\n", k, rounds, round, time.Since(start).Round(time.Second))
		}
	}
	r.res.RoundsTotal = n + rounds
	return nil
}
