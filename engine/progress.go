package engine

import (
	"fmt"
	"io"
	"time"

	"github.com/perflab/perflab/store"
)

// roundStored reports a stored round. On a terminal one status line
// updates in place and roundsEnd sums up; with Verbose every round gets a
// line; in a log (no terminal) a round gets a line when it is the first
// or the last planned, when cells failed in it, or when the last line is
// logGate's interval old, so a long run's log stays short.
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
	if !r.opt.Verbose && !r.logGate().open(round == 1 || round == r.plan.Rounds || failed > 0) {
		return
	}
	fmt.Fprintf(r.progress, "perflab: %s\n", line)
}

// logGate is the interval between a log's progress lines: a tenth of the
// budget, at most logEvery.
func (r *rounds) logGate() *gate {
	if r.gate == nil {
		r.gate = newGate(r.opt.Budget)
	}
	return r.gate
}

// A gate lets a progress line through at most every so often.
type gate struct {
	last  time.Time
	every time.Duration
}

func newGate(budget time.Duration) *gate {
	g := &gate{last: time.Now(), every: logEvery}
	if budget > 0 {
		g.every = min(logEvery, budget/10)
	}
	return g
}

// open reports whether a line goes through now (always when must).
func (g *gate) open(must bool) bool {
	if !must && time.Since(g.last) < g.every {
		return false
	}
	g.last = time.Now()
	return true
}

// roundsEnd ends the updating status line with a summary of the rounds.
func (r *rounds) roundsEnd(tty bool, start time.Time) {
	if !tty || r.opt.Verbose {
		return
	}
	fmt.Fprintf(r.progress, "\r\033[Kperflab: %d/%d rounds stored, %d failed cell runs, %s\n",
		r.res.RoundsDone, r.plan.Rounds, r.failed, time.Since(start).Round(time.Second))
}

// seqProgress reports a sequential run's looks. On a terminal it keeps
// one updating line; in a log (no terminal) it writes a short line at
// most every tenth of the budget or every 30 s, whichever comes first,
// so a long run's log stays readable; with Verbose, every look's full
// line (each open item's estimate, interval and forecast).
type seqProgress struct {
	w       io.Writer
	tty     bool
	verbose bool
	s       *sequential
	gate    *gate
}

// logEvery bounds how often a log gets a progress line.
const logEvery = 30 * time.Second

func newSeqProgress(w io.Writer, verbose bool, s *sequential, g *gate) *seqProgress {
	return &seqProgress{w: w, tty: isTerminal(w), verbose: verbose, s: s, gate: g}
}

// look reports the look after round: which items are open, and the cells
// the next rounds run.
func (p *seqProgress) look(round int, st Status, cells, total int) {
	elapsed := time.Since(p.s.start).Round(time.Second)
	switch {
	case p.verbose:
		if p.tty {
			fmt.Fprint(p.w, "\r\033[K")
		}
		fmt.Fprintf(p.w, "perflab: after %d rounds (%s elapsed): %s; round %d runs %d of %d cells (sequential)\n",
			round, elapsed, openLine(st), round+1, cells, total)
	case p.tty:
		fmt.Fprintf(p.w, "\r\033[K[%s]", shortLine(round, elapsed, p.s.budget, st))
	case p.gate.open(false):
		fmt.Fprintf(p.w, "perflab: %s\n", shortLine(round, elapsed, p.s.budget, st))
	}
}

// end closes the updating line and says why sampling stopped, in a line.
func (p *seqProgress) end(round int, st Status, reason store.StopReason) {
	if p.tty && !p.verbose {
		fmt.Fprint(p.w, "\r\033[K")
	}
	open := len(st.open())
	fmt.Fprintf(p.w, "perflab: sampling stopped after %d rounds (%s): %d of %d open (%s)\n",
		round, time.Since(p.s.start).Round(time.Second), open, len(st.Items), reason)
}

// shortLine is a progress line of at most maxProgressLine characters:
// time spent, rounds, the items still open and the one nearest to being
// decided with the further rounds it likely needs.
func shortLine(round int, elapsed, budget time.Duration, st Status) string {
	spent := elapsed.String()
	if budget > 0 {
		spent += " of " + budget.Round(time.Second).String()
	}
	open := st.open()
	line := fmt.Sprintf("%s, %d rounds: %d of %d open", spent, round, len(open), len(st.Items))
	if len(open) == 0 {
		return line
	}
	near := open[0]
	for _, it := range open[1:] {
		if it.More >= 0 && (near.More < 0 || it.More < near.More) {
			near = it
		}
	}
	tail := ""
	if near.More >= 0 {
		tail = fmt.Sprintf(", ≈%d more rounds", near.More)
	}
	room := maxProgressLine - len("perflab: ") - len(line) - len("; nearest: ") - len(tail)
	label := []rune(near.Label)
	if len(label) > room && room > 1 {
		label = append(label[:room-1], '…')
	}
	return line + "; nearest: " + string(label) + tail
}

// maxProgressLine is the longest progress line a log gets, "perflab: "
// included.
const maxProgressLine = 160
