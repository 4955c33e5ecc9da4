package report

import (
	"fmt"
	"html/template"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/unit"
)

// span names the runs of points [from, to): "runs 3–17 (15 runs)".
func span(h *findings.History, from, to int) string {
	if from >= to {
		return "no runs"
	}
	if to-from == 1 {
		return fmt.Sprintf("run %d (1 run)", h.Points[from].RunID)
	}
	return fmt.Sprintf("runs %d–%d (%d runs)", h.Points[from].RunID, h.Points[to-1].RunID, to-from)
}

// describeChange is one line about a change point: where, from what to
// what, and the runs on each side.
func describeChange(h *findings.History, i int) string {
	c := h.Changes[i]
	rel := ""
	if c.Before != 0 {
		rel = fmt.Sprintf(" (%+.1f%%)", (c.After/c.Before-1)*100)
	}
	return fmt.Sprintf("between run %d and run %d: median %s → %s%s, p=%.3g; before: %s, after: %s",
		h.Points[c.Index-1].RunID, h.Points[c.Index].RunID,
		humanValue(c.Before, h.Unit), humanValue(c.After, h.Unit), rel, c.P,
		span(h, c.BeforeFrom, c.BeforeTo), span(h, c.AfterFrom, c.AfterTo))
}

// pointCI is a point's interval, "[1.70µs, 1.80µs]", or "—" without one.
func pointCI(h *findings.History, p findings.Point) string {
	if !p.Interval {
		return "—"
	}
	return fmt.Sprintf("[%s, %s]", humanValue(p.Lo, h.Unit), humanValue(p.Hi, h.Unit))
}

// HistoryText writes a benchmark's history for a terminal: one run per
// line, a line marking each change point, then the change points.
func HistoryText(w io.Writer, h *findings.History) error {
	fmt.Fprintf(w, "%s [%s] @%s over %d runs\n\n", h.Benchmark, h.Unit, h.Config, len(h.Points))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	conf := fmt.Sprintf("%.0f%% CI", h.Confidence*100)
	if h.Several() {
		fmt.Fprintf(tw, "RUN\tEXPERIMENT\tCONFIG\tSTARTED\tMEDIAN\t%s\tN\t\n", conf)
	} else {
		fmt.Fprintf(tw, "RUN\tEXPERIMENT\tSTARTED\tMEDIAN\t%s\tN\t\n", conf)
	}
	next := 0
	for i, p := range h.Points {
		if next < len(h.Changes) && h.Changes[next].Index == i {
			fmt.Fprintf(tw, "---\tchange point\t\t\t\t\t\n")
			next++
		}
		exp := p.Experiment
		if h.Several() {
			exp += "\t" + p.Config
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%d\t\n", p.RunID, exp, p.Started.Local().Format("2006-01-02 15:04"), humanValue(p.Median, h.Unit), pointCI(h, p), p.N)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nchange points (E-divisive means, permutation test with %d permutations, α=%g, segments of at least %d runs):\n", h.Opt.Permutations, h.Opt.Alpha, h.Opt.MinSize)
	if len(h.Changes) == 0 {
		_, err := fmt.Fprintln(w, "  none")
		return err
	}
	for i := range h.Changes {
		fmt.Fprintf(w, "  %s\n", describeChange(h, i))
	}
	return nil
}

// HistoryChart draws the history by run, oldest first, with each change
// point marked between the runs it separates.
func HistoryChart(h *findings.History) *Chart {
	c := &Chart{
		ID:     "history",
		Title:  fmt.Sprintf("%s @%s", h.Benchmark, h.Config),
		XLabel: "run",
		YLabel: h.Unit,
		YClass: unit.Class(h.Unit),
	}
	series := ChartSeries{Label: "median"}
	step := max(1, len(h.Points)/12)
	for i, p := range h.Points {
		x := float64(i + 1)
		series.Points = append(series.Points, ChartPoint{X: x, Y: p.Median, Lo: p.Lo, Hi: p.Hi,
			Tip: fmt.Sprintf("run %d (%s): median %s %s, n=%d", p.RunID, p.Started.Local().Format("2006-01-02 15:04"),
				humanValue(p.Median, h.Unit), pointCI(h, p), p.N)})
		if i%step == 0 || i == len(h.Points)-1 {
			c.XTicks = append(c.XTicks, x)
		}
	}
	c.XTickLabel = func(x float64) string {
		i := int(x) - 1
		if i < 0 || i >= len(h.Points) {
			return ""
		}
		return strconv.FormatInt(h.Points[i].RunID, 10)
	}
	c.Series = []ChartSeries{series}
	for i, ch := range h.Changes {
		c.Markers = append(c.Markers, ChartMarker{Kind: MarkChange, X: float64(ch.Index) + 0.5, Series: -1,
			Label: fmt.Sprintf("change after run %d", h.Points[ch.Index-1].RunID), Tip: describeChange(h, i)})
	}
	return c
}

// HistorySections is a history as report sections: the chart (HTML
// only), the change points, and the runs, the first run after each
// change point classed "change".
func HistorySections(h *findings.History, runHref func(id int64) string) []Section {
	intro := Section{ID: "series", Title: fmt.Sprintf("%s [%s] @%s over %d runs", h.Benchmark, h.Unit, h.Config, len(h.Points))}
	intro.Blocks = append(intro.Blocks,
		para(fmt.Sprintf("The median of each run that measured it, oldest first, with its confidence interval. Change points come from E-divisive means with a permutation test (%d permutations, α=%g, segments of at least %d runs); each is drawn between the runs it separates.", h.Opt.Permutations, h.Opt.Alpha, h.Opt.MinSize)),
		Block{HTML: template.HTML("<figure>" + HistoryChart(h).SVG() + "</figure>")})
	changes := Section{ID: "changes", Title: "Change points"}
	if len(h.Changes) == 0 {
		changes.Blocks = append(changes.Blocks, para("None found."))
	} else {
		t := &Table{Class: "changes", Head: []string{"change point"}}
		for i := range h.Changes {
			t.Rows = append(t.Rows, Row{Cells: cells(describeChange(h, i))})
		}
		changes.Blocks = append(changes.Blocks, Block{Table: t})
	}
	runs := Section{ID: "runs", Title: "Runs"}
	head := []string{"run", "experiment", "started", "median", "CI", "n"}
	if h.Several() {
		head = []string{"run", "experiment", "config", "started", "median", "CI", "n"}
	}
	t := &Table{Head: head}
	for i, p := range h.Points {
		run := Cell{Text: Plain(fmt.Sprintf("run %d", p.RunID))}
		if runHref != nil {
			run.Href = runHref(p.RunID)
		}
		row := Row{Cells: []Cell{run, cell(p.Experiment)}}
		if h.Several() {
			row.Cells = append(row.Cells, cell(p.Config))
		}
		row.Cells = append(row.Cells, cell(p.Started.Local().Format("2006-01-02 15:04")), num(humanValue(p.Median, h.Unit)), num(pointCI(h, p)), num(strconv.Itoa(p.N)))
		for _, c := range h.Changes {
			if c.Index == i {
				row.Class = "change"
			}
		}
		t.Rows = append(t.Rows, row)
	}
	runs.Blocks = append(runs.Blocks, Block{Table: t})
	return []Section{intro, changes, runs}
}

// HistoryHTML is the history as HTML sections, for a page.
func HistoryHTML(h *findings.History, runHref func(id int64) string) template.HTML {
	return htmlSections(HistorySections(h, runHref))
}
