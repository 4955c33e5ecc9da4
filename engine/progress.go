package engine

import (
	"fmt"
	"time"
)

// roundStored reports a stored round: a line of its own when the progress
// writer is not a terminal (logs, CI) or with Verbose; on a terminal the
// one updating status line carries it instead, and roundsEnd sums up.
func (r *rounds) roundStored(tty bool, round, results, failed int, start time.Time, cellsRun, total int) {
	r.failed += failed
	line := fmt.Sprintf("round %d/%d stored: %d results, %d failed cells, %s elapsed, %s",
		round, r.plan.Rounds, results, failed, time.Since(start).Round(time.Second), eta(start, cellsRun, total))
	if tty && !r.opt.Verbose {
		fmt.Fprintf(r.progress, "\r\033[K[%s]", line)
		return
	}
	if tty {
		fmt.Fprint(r.progress, "\r\033[K")
	}
	fmt.Fprintf(r.progress, "perflab: %s\n", line)
}

// roundsEnd ends the updating status line with a summary of the rounds.
func (r *rounds) roundsEnd(tty bool, start time.Time) {
	if !tty || r.opt.Verbose {
		return
	}
	fmt.Fprintf(r.progress, "\r\033[Kperflab: %d/%d rounds stored, %d failed cell runs, %s\n",
		r.res.RoundsDone, r.plan.Rounds, r.failed, time.Since(start).Round(time.Second))
}
