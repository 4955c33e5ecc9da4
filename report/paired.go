package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/findings"
)

// pairedVerdict is the row's verdict with the precision reached:
// "slower", or "no difference (±0.8%)" — no change was detected, and the
// interval's half-width says how small a change could have been missed.
func pairedVerdict(p findings.PairedRow) string {
	if p.Verdict != findings.NoDifference {
		return string(p.Verdict)
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

// PairedText writes a paired comparison for a terminal: one table per
// unit with the old and new medians, the paired new/old change with its
// interval, the paired (sign-test) p-value adjusted across rows, the verdict,
// gate failures, and the paired geomean; then the units identical on both
// sides and what ran on one side only.
func PairedText(w io.Writer, r *findings.PairedResult, fails []compare.Failure) error {
	failed := failures(fails, func(t compare.Threshold) string { return t.Text })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	conf := fmt.Sprintf("%.0f%% CI", (1-r.Alpha)*100)
	same := sameUnits(r)
	rows := slices.DeleteFunc(slices.Clone(r.Rows), func(row findings.PairedRow) bool { return slices.Contains(same, row.Unit) })
	byUnit(tw, rows, func(r findings.PairedRow) string { return r.Unit },
		func(unit string) { fmt.Fprintf(tw, "%s\told\tnew\tnew/old\t%s\tp (BH)\tverdict\t\n", unit, conf) },
		func(row findings.PairedRow) {
			mark := withFails(pairedVerdict(row), failed[failKey("", row.Name, row.Unit)])
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2g\t%s\t\n", row.Name, FormatStat(row.Old, row.Unit), FormatStat(row.New, row.Unit),
				FormatRatio(row.Ratio.Ratio), formatRatioCI(row.Ratio), row.PAdj, mark)
		},
		func(unit string) { pairedGeomeanText(tw, r, unit) }, "\t\t\t\t\t\t\t")
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

func pairedGeomeanText(w io.Writer, r *findings.PairedResult, unit string) {
	if g, ok := r.GeomeanFor(unit); ok {
		fmt.Fprintf(w, "geomean (%d)\t\t\t%s\t%s\t\t\t\n", g.N, FormatRatio(g.Ratio.Ratio), formatRatioCI(g.Ratio))
	}
}

// PairedMarkdown writes a paired comparison as GitHub-flavoured Markdown
// for a pull-request comment or $GITHUB_STEP_SUMMARY: a heading, the
// gate's outcome, the time table (every unit but sec/op folded away), the
// benchmarks on one side only, and footer lines (e.g. how it was
// measured).
func PairedMarkdown(w io.Writer, r *findings.PairedResult, title string, rules []compare.Threshold, fails []compare.Failure, footer []string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", esc(title))
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
		if imp := compare.Imprecise(r.Gate(), rules); len(imp) > 0 {
			fmt.Fprintf(&b, "⚠️ %d benchmark(s) measured less precisely than the limit (%s); a change that large could go unseen there. Give the run a larger budget.\n\n", len(imp), esc(impreciseList(imp)))
		}
	}
	failed := failures(fails, func(t compare.Threshold) string { return t.Text })
	unit := ""
	closeUnit := func() {
		if unit == "" {
			return
		}
		if g, ok := r.GeomeanFor(unit); ok {
			fmt.Fprintf(&b, "| **geomean** (%d) | | | **%s** | %s | | |\n", g.N, FormatRatio(g.Ratio.Ratio), formatRatioCI(g.Ratio))
		}
		if unit != "sec/op" {
			b.WriteString("\n</details>\n")
		}
		b.WriteString("\n")
	}
	same := sameUnits(r)
	for _, row := range r.Rows {
		if slices.Contains(same, row.Unit) {
			continue
		}
		if row.Unit != unit {
			closeUnit()
			unit = row.Unit
			if unit != "sec/op" {
				fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n", esc(unit))
			}
			fmt.Fprintf(&b, "| %s | old | new | new/old | %.0f%% CI | p (BH) | verdict |\n|---|--:|--:|--:|--:|--:|---|\n", esc(unit), (1-r.Alpha)*100)
		}
		v := pairedVerdict(row)
		switch row.Verdict {
		case findings.Slower, findings.Worse:
			v = "🔴 " + v
		case findings.Faster, findings.Better:
			v = "🟢 " + v
		}
		if fs := failed[failKey("", row.Name, row.Unit)]; len(fs) > 0 {
			v += " **FAIL** `" + strings.Join(fs, " ") + "`"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.2g | %s |\n", esc(row.Name), FormatStat(row.Old, unit), FormatStat(row.New, unit),
			FormatRatio(row.Ratio.Ratio), formatRatioCI(row.Ratio), row.PAdj, v)
	}
	closeUnit()
	if len(r.Rows) == 0 {
		b.WriteString("No benchmark ran on both sides.\n\n")
	}
	if len(same) > 0 {
		fmt.Fprintf(&b, "%s: every value identical on both sides.\n\n", esc(strings.Join(same, ", ")))
	}
	for _, side := range []struct {
		name string
		list []string
	}{{"old", r.OnlyOld}, {"new", r.OnlyNew}} {
		if len(side.list) > 0 {
			fmt.Fprintf(&b, "Only in %s (not compared): %s\n\n", side.name, esc(shortList(side.list)))
		}
	}
	for _, f := range footer {
		fmt.Fprintf(&b, "%s  \n", f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// sameUnits lists the units whose every row is identical on both sides,
// which the tables leave out.
func sameUnits(r *findings.PairedResult) []string {
	var out []string
	for _, row := range r.Rows {
		if r.SameUnit(row.Unit) && !slices.Contains(out, row.Unit) {
			out = append(out, row.Unit)
		}
	}
	return out
}

func impreciseList(rows []compare.Row) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, fmt.Sprintf("%s ±%.1f%%", r.Name, r.HalfWidth*100))
	}
	return shortList(parts)
}

// ImpreciseWarning is the warning a gate prints when rows were measured
// less precisely than its limits, or "" when none were.
func ImpreciseWarning(r *findings.PairedResult, rules []compare.Threshold) string {
	imp := compare.Imprecise(r.Gate(), rules)
	if len(imp) == 0 {
		return ""
	}
	return fmt.Sprintf("warning: %d benchmark(s) measured less precisely than the --fail-on limit (%s): a change that large could go unseen; raise --budget", len(imp), impreciseList(imp))
}

// shortList joins at most ten items and says how many more there are.
func shortList(xs []string) string {
	if len(xs) > 10 {
		return strings.Join(xs[:10], ", ") + fmt.Sprintf(", … (%d more)", len(xs)-10)
	}
	return strings.Join(xs, ", ")
}
