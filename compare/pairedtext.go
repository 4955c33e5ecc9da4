package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
)

// FormatRatio prints a new/old ratio as a signed change, "+3.1%".
func FormatRatio(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return FormatDelta(x - 1)
}

// FormatRatioCI prints a ratio's interval as changes, "[+2.8%, +3.4%]",
// or why there is none.
func FormatRatioCI(r PairedRow) string {
	return formatInterval(r.Ratio.HasInterval(), r.Ratio.N, r.Ratio.Lo, r.Ratio.Hi)
}

func formatInterval(has bool, n int, lo, hi float64) string {
	if !has {
		return fmt.Sprintf("none (%d rounds)", n)
	}
	return "[" + FormatDelta(lo-1) + ", " + FormatDelta(hi-1) + "]"
}

// VerdictText is the row's verdict with the precision reached: "slower",
// or "no difference (±0.8%)" — no change was detected, and the interval's
// half-width says how small a change could have been missed.
func (p PairedRow) VerdictText() string {
	if p.Verdict != "no difference" {
		return p.Verdict
	}
	if p.Same {
		return "no difference (identical)"
	}
	if !p.Ratio.HasInterval() {
		if p.Ratio.N == 0 {
			return "no difference (no paired rounds)"
		}
		return "no difference (too few rounds for an interval)"
	}
	return fmt.Sprintf("no difference (±%.1f%%)", p.Ratio.HalfWidth()*100)
}

func failMarks(fails []Failure) map[string][]string {
	m := map[string][]string{}
	for _, f := range fails {
		k := f.Row.Name + "\x00" + f.Row.Unit
		m[k] = append(m[k], f.Threshold.Text)
	}
	return m
}

// WriteText prints one table per unit: the old and new medians, the paired
// new/old change with its interval, the signed-rank p-value adjusted
// across rows, the verdict, gate failures, and the paired geomean.
func (r *PairedResult) WriteText(w io.Writer, fails []Failure) error {
	failed := failMarks(fails)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	unit := ""
	conf := fmt.Sprintf("%.0f%% CI", (1-r.Alpha)*100)
	var same []string
	for _, row := range r.Rows {
		if sameUnit(r.Rows, row.Unit) {
			if !slices.Contains(same, row.Unit) {
				same = append(same, row.Unit)
			}
			continue
		}
		if row.Unit != unit {
			if unit != "" {
				r.geomeanText(tw, unit)
				fmt.Fprintln(tw, "\t\t\t\t\t\t\t")
			}
			unit = row.Unit
			fmt.Fprintf(tw, "%s\told\tnew\tnew/old\t%s\tp (BH)\tverdict\t\n", unit, conf)
		}
		mark := row.VerdictText()
		if fs := failed[row.Name+"\x00"+row.Unit]; len(fs) > 0 {
			mark += "  FAIL " + strings.Join(fs, " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2g\t%s\t\n", row.Name, FormatStat(row.Old, unit), FormatStat(row.New, unit),
			FormatRatio(row.Ratio.Ratio), FormatRatioCI(row), row.PAdj, mark)
	}
	if unit != "" {
		r.geomeanText(tw, unit)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Rows) == 0 {
		fmt.Fprintln(w, "no benchmark ran on both sides")
	}
	if len(same) > 0 {
		fmt.Fprintf(w, "\n%s: every value identical on both sides\n", strings.Join(same, ", "))
	}
	if n := len(r.OnlyOld); n > 0 {
		fmt.Fprintf(w, "\n%d only in old (not compared): %s\n", n, shortList(r.OnlyOld))
	}
	if n := len(r.OnlyNew); n > 0 {
		fmt.Fprintf(w, "\n%d only in new (not compared): %s\n", n, shortList(r.OnlyNew))
	}
	return nil
}

func (r *PairedResult) geomean(unit string) (PairedGeomean, bool) {
	for _, g := range r.Geomeans {
		if g.Unit == unit {
			return g, true
		}
	}
	return PairedGeomean{}, false
}

func (r *PairedResult) geomeanText(w io.Writer, unit string) {
	if g, ok := r.geomean(unit); ok {
		fmt.Fprintf(w, "geomean (%d)\t\t\t%s\t%s\t\t\t\n", g.N, FormatRatio(g.Ratio.Ratio), formatInterval(g.Ratio.HasInterval(), g.Ratio.N, g.Ratio.Lo, g.Ratio.Hi))
	}
}

// WriteMarkdown writes the comparison as GitHub-flavoured Markdown for a
// pull-request comment or $GITHUB_STEP_SUMMARY: a heading, the gate's
// outcome, the time table (every unit but sec/op folded away), the
// benchmarks on one side only, and footer lines (e.g. how it was measured).
func (r *PairedResult) WriteMarkdown(w io.Writer, title string, rules []Threshold, fails []Failure, footer []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", title)
	if len(rules) > 0 {
		var names []string
		for _, t := range rules {
			names = append(names, "`"+t.Text+"`")
		}
		if len(fails) > 0 {
			fmt.Fprintf(&b, "**Gate %s: failed** — %d significant change(s) beyond the limit.\n\n", strings.Join(names, ", "), len(fails))
		} else {
			fmt.Fprintf(&b, "**Gate %s: passed.**\n\n", strings.Join(names, ", "))
		}
		if imp := r.Imprecise(rules); len(imp) > 0 {
			fmt.Fprintf(&b, "⚠️ %d benchmark(s) measured less precisely than the limit (%s); a change that large could go unseen there. Give the run a larger budget.\n\n", len(imp), mdEscape(impreciseList(imp)))
		}
	}
	failed := failMarks(fails)
	unit := ""
	closeUnit := func() {
		if unit == "" {
			return
		}
		if g, ok := r.geomean(unit); ok {
			fmt.Fprintf(&b, "| **geomean** (%d) | | | **%s** | %s | | |\n", g.N, FormatRatio(g.Ratio.Ratio), formatInterval(g.Ratio.HasInterval(), g.Ratio.N, g.Ratio.Lo, g.Ratio.Hi))
		}
		if unit != "sec/op" {
			b.WriteString("\n</details>\n")
		}
		b.WriteString("\n")
	}
	var same []string
	for _, row := range r.Rows {
		if sameUnit(r.Rows, row.Unit) {
			if !slices.Contains(same, row.Unit) {
				same = append(same, row.Unit)
			}
			continue
		}
		if row.Unit != unit {
			closeUnit()
			unit = row.Unit
			if unit != "sec/op" {
				fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n", mdEscape(unit))
			}
			fmt.Fprintf(&b, "| %s | old | new | new/old | %.0f%% CI | p (BH) | verdict |\n|---|--:|--:|--:|--:|--:|---|\n", mdEscape(unit), (1-r.Alpha)*100)
		}
		v := row.VerdictText()
		switch row.Verdict {
		case "slower", "worse":
			v = "🔴 " + v
		case "faster", "better":
			v = "🟢 " + v
		}
		if fs := failed[row.Name+"\x00"+row.Unit]; len(fs) > 0 {
			v += " **FAIL** `" + strings.Join(fs, " ") + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.2g | %s |\n", mdEscape(row.Name), FormatStat(row.Old, unit), FormatStat(row.New, unit),
			FormatRatio(row.Ratio.Ratio), FormatRatioCI(row), row.PAdj, v)
	}
	closeUnit()
	if len(r.Rows) == 0 {
		b.WriteString("No benchmark ran on both sides.\n\n")
	}
	if len(same) > 0 {
		fmt.Fprintf(&b, "%s: every value identical on both sides.\n\n", mdEscape(strings.Join(same, ", ")))
	}
	for _, side := range []struct {
		name string
		list []string
	}{{"old", r.OnlyOld}, {"new", r.OnlyNew}} {
		if len(side.list) > 0 {
			fmt.Fprintf(&b, "Only in %s (not compared): %s\n\n", side.name, mdEscape(shortList(side.list)))
		}
	}
	for _, f := range footer {
		fmt.Fprintf(&b, "%s  \n", f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdEscape keeps table cells intact.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}

func impreciseList(rows []PairedRow) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("%s ±%.1f%%", r.Name, r.Ratio.HalfWidth()*100))
	}
	return shortList(parts)
}

// WriteImprecise prints the rows Imprecise returns, if any, as a warning.
func (r *PairedResult) WriteImprecise(w io.Writer, ths []Threshold) {
	if imp := r.Imprecise(ths); len(imp) > 0 {
		fmt.Fprintf(w, "warning: %d benchmark(s) measured less precisely than the --fail-on limit (%s): a change that large could go unseen; raise --budget\n", len(imp), impreciseList(imp))
	}
}

// shortList joins at most ten items and says how many more there are.
func shortList(xs []string) string {
	if len(xs) > 10 {
		return strings.Join(xs[:10], ", ") + fmt.Sprintf(", … (%d more)", len(xs)-10)
	}
	return strings.Join(xs, ", ")
}
