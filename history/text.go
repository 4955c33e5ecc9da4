package history

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"
)

// Span names the runs of points [from, to): "runs 3–17 (15 runs)".
func (s *Series) Span(from, to int) string {
	if from >= to {
		return "no runs"
	}
	if to-from == 1 {
		return fmt.Sprintf("run %d (1 run)", s.Points[from].RunID)
	}
	return fmt.Sprintf("runs %d–%d (%d runs)", s.Points[from].RunID, s.Points[to-1].RunID, to-from)
}

// Describe is one line about a change point: where, from what to what,
// and the runs on each side.
func (s *Series) Describe(c ChangePoint) string {
	cls := benchunit.ClassOf(s.Unit)
	rel := ""
	if c.Before != 0 {
		rel = fmt.Sprintf(" (%+.1f%%)", (c.After/c.Before-1)*100)
	}
	return fmt.Sprintf("between run %d and run %d: median %s → %s%s, p=%.3g; before: %s, after: %s",
		s.Points[c.Index-1].RunID, s.Points[c.Index].RunID,
		benchunit.Scale(c.Before, cls), benchunit.Scale(c.After, cls), rel, c.P,
		s.Span(c.BeforeFrom, c.BeforeTo), s.Span(c.AfterFrom, c.AfterTo))
}

// WriteText prints the series, one run per line, with a line marking each
// change point, then the change points.
func (s *Series) WriteText(w io.Writer) error {
	cls := benchunit.ClassOf(s.Unit)
	fmt.Fprintf(w, "%s [%s] @%s over %d runs\n\n", s.Benchmark, s.Unit, s.Config, len(s.Points))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	several := strings.Contains(s.Config, ",")
	if several {
		fmt.Fprintln(tw, "RUN\tEXPERIMENT\tCONFIG\tSTARTED\tMEDIAN\t95% CI\tN\t")
	} else {
		fmt.Fprintln(tw, "RUN\tEXPERIMENT\tSTARTED\tMEDIAN\t95% CI\tN\t")
	}
	next := 0
	for i, p := range s.Points {
		if next < len(s.Changes) && s.Changes[next].Index == i {
			fmt.Fprintf(tw, "---\tchange point\t\t\t\t\t\n")
			next++
		}
		ci := "—"
		if p.N >= 6 && !math.IsNaN(p.Lo) {
			ci = fmt.Sprintf("[%s, %s]", benchunit.Scale(p.Lo, cls), benchunit.Scale(p.Hi, cls))
		}
		exp := p.Experiment
		if several {
			exp += "\t" + p.Config
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t\n", p.RunID, exp, p.Started.Local().Format("2006-01-02 15:04"), benchunit.Scale(p.Median, cls), ci, p.N)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	o := s.Opt.withDefaults()
	fmt.Fprintf(w, "\nchange points (E-divisive means, permutation test with %d permutations, α=%g, segments of at least %d runs):\n", o.Permutations, o.Alpha, o.MinSize)
	if len(s.Changes) == 0 {
		_, err := fmt.Fprintln(w, "  none")
		return err
	}
	for _, c := range s.Changes {
		fmt.Fprintf(w, "  %s\n", s.Describe(c))
	}
	return nil
}
