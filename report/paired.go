package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

// pairedVerdict is the row's verdict in words that match its printed
// interval: "slower" (the interval excludes no change), "median within
// ±1%" (it lies within the equivalence band: the median change, no more —
// a minority of rounds or layouts may change by more), or "undecided
// (±8.0%)" with the half-width reached, or why it has none.
func pairedVerdict(p findings.PairedRow, band float64) string {
	switch {
	case p.WorkUnchanged:
		return string(p.Verdict) + ", instructions/op unchanged"
	case p.Zero:
		return "no difference (0 on both sides)"
	case p.Same:
		return "no difference (identical)"
	case p.Verdict == findings.NoDifference:
		return fmt.Sprintf("median within ±%s", pctBand(band))
	case p.Verdict != findings.Undecided:
		return string(p.Verdict)
	case p.LeftOut:
		return "undecided (left out for the budget)"
	case p.Ratio.N == 0:
		return "undecided (no paired rounds)"
	case !p.Ratio.HasInterval():
		return "undecided (too few rounds for an interval)"
	}
	return fmt.Sprintf("undecided (±%.1f%%)", p.Ratio.HalfWidth()*100)
}

func pctBand(b float64) string { return strconv.FormatFloat(100*b, 'g', 3, 64) + "%" }

// levelCI heads a unit's interval column: "95% CI" for a unit of one
// row, "98.33% CI (m=3)" for one of three, each interval at 1 − α/m for
// the unit's m rows, as the footer says (pairedLevels), so two units'
// columns of one comparison show why their levels differ.
func levelCI(r *findings.PairedResult, unit string) string {
	l, ok := r.Levels[unit]
	if !ok {
		l = 1 - r.Alpha
	}
	head := strconv.FormatFloat(100*l, 'g', 4, 64) + "% CI"
	if m := unitRows(r, unit); m > 1 {
		head += fmt.Sprintf(" (m=%d)", m)
	}
	return head
}

// unitRows counts the rows of unit.
func unitRows(r *findings.PairedResult, unit string) int {
	m := 0
	for _, row := range r.Rows {
		if row.Unit == unit {
			m++
		}
	}
	return m
}

// PairedSource is where a paired comparison came from: the heading of
// its Markdown summary, each side's label, the run and how many rounds it
// ran, and the run's environment (its CPU and noise estimates are quoted).
type PairedSource struct {
	Title    string     `json:"title,omitempty"`
	Old, New string     `json:"-"`
	RunID    int64      `json:"run,omitempty"`
	Rounds   int        `json:"rounds_run,omitempty"`
	Env      []store.KV `json:"-"`
}

// PairedText writes a paired comparison for a terminal: both sides, then
// one table per unit with the old and new medians, the paired new/old
// change with its interval, the p-value adjusted across rows, the verdict
// under the gate (nil: no gate; failures marked, undecided rows in
// words), and the paired geomean; then the units identical on both sides
// and what ran on one side only.
func PairedText(w io.Writer, r *findings.PairedResult, src PairedSource, gate *compare.Gate) error {
	if src.Old != "" || src.New != "" {
		fmt.Fprintf(w, "\nold: %s\nnew: %s\n%d interleaved rounds, paired new/old\n\n", src.Old, src.New, src.Rounds)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	same := sameUnits(r)
	rows := slices.DeleteFunc(slices.Clone(r.Rows), func(row findings.PairedRow) bool { return slices.Contains(same, row.Unit) })
	layoutHead, gap := "", "\t\t\t\t\t\t\t"
	if r.Layout != nil {
		layoutHead, gap = "\tlayout", gap+"\t"
	}
	pkg := ""
	byUnit(tw, rows, func(r findings.PairedRow) string { return r.Unit },
		func(unit string) {
			fmt.Fprintf(tw, "%s\told\tnew\tnew/old\t%s\tp (adj)%s\tverdict\t\n", unit, levelCI(r, unit), layoutHead)
			pkg = ""
		},
		func(row findings.PairedRow) {
			if row.Package != pkg {
				pkg = row.Package
				fmt.Fprintf(tw, "pkg: %s%s\n", pkg, gap)
			}
			mark := gateOf(gate, "", row.FullName(), row.Unit).verdict(pairedVerdict(row, r.Band), ruleText)
			lay := ""
			if r.Layout != nil {
				lay = "\t" + layoutSpread(row)
			}
			c := pairedCellsOf(row)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s%s\t%s\t\n", row.Name, c.old, c.new, c.change, c.ci, c.p, lay, mark)
		},
		func(unit string) { pairedGeomeanText(tw, r, unit) }, gap)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s\n%s\n", pairedLevels(r), layoutWords(r.Layout))
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

// pairedCells are a paired row's printed medians, change, interval and
// adjusted p.
type pairedCells struct{ old, new, change, ci, p string }

// pairedCellsOf prints a paired row: its medians with the digits that
// tell them apart (FormatStats); its change, interval and p only beside
// medians that read differently or a change of none. A row whose medians
// are equal but whose paired rounds are not (0 on both sides, with a few
// rounds above 0) has no change to print, nor a row without paired
// rounds: "—".
func pairedCellsOf(row findings.PairedRow) pairedCells {
	c := pairedCells{change: FormatRatio(row.Ratio.Ratio), ci: formatRatioCI(row.Ratio), p: fmt.Sprintf("%.2g", row.PAdj)}
	c.old, c.new = FormatStats(row.Old, row.New, row.Unit)
	if row.Zero || row.Ratio.N == 0 || !showsChange(c.old, c.new, row.Ratio.Ratio) {
		c.change, c.ci, c.p = "—", "—", "—"
	}
	return c
}

// ruleText is a rule as the user wrote it.
func ruleText(t compare.Threshold) string { return t.Text }

func pairedGeomeanText(w io.Writer, r *findings.PairedResult, unit string) {
	if g, ok := r.GeomeanFor(unit); ok {
		gap := "\t\t\t"
		if r.Layout != nil {
			gap += "\t"
		}
		fmt.Fprintf(w, "geomean (%d)\t\t\t%s\t%s%s\n", g.N, FormatRatio(g.Ratio.Ratio), formatRatioCI(g.Ratio), gap)
	}
}

// layoutSpread is a row's spread from link layout alone, what one side's
// layout moves the benchmark by in 95% of layouts (1.96 standard
// deviations): "±9.1%" when the run tells layout from noise (the F-test
// of a layout effect rejects at 5%, so the lower bound of its standard
// deviation is above 0), "<±4.0%" (its upper bound) when it cannot, "?"
// without enough layouts.
func layoutSpread(row findings.PairedRow) string {
	l := row.Layout
	if l == nil {
		return "?"
	}
	pct := func(sd float64) float64 { return 100 * math.Expm1(1.96*sd) }
	if l.Lo > 0 {
		return fmt.Sprintf("±%.1f%%", pct(l.SD))
	}
	return fmt.Sprintf("<±%.1f%%", pct(l.Hi))
}

// layoutWords says how a paired comparison's builds were linked, and so
// what its verdicts are about: the source over layouts, or binaries. A
// side that kept one fixed layout in a run that sampled layouts is named
// with why, and the verdicts are worded for its binary.
func layoutWords(l *findings.PairedLayout) string {
	if l == nil {
		return "link layout: fixed (each side linked once): the verdicts hold for these two binaries only; --layout random samples layouts so they hold for the source"
	}
	if len(l.Fixed) > 0 {
		return fixedLayoutWords(l) + pinnedWords(l)
	}
	every := "every " + everyRounds(l.PerLayout)
	if l.Schedule != "" {
		every = l.Schedule
	}
	if l.PerLayout == 1 && !strings.Contains(l.Schedule, ",") {
		return fmt.Sprintf("link layouts: sampled (-ldflags=-randlayout), a fresh one for each side every round, %d per side; intervals count layouts, so the verdicts hold for the source over layouts%s; \"layout\" reads \"?\": telling layout from noise needs rounds that share a layout", l.Layouts, pinnedWords(l))
	}
	return fmt.Sprintf("link layouts: sampled (-ldflags=-randlayout), a fresh one for each side %s, %d per side; intervals count layouts, so the verdicts hold for the source over layouts%s; \"layout\" is what one side's layout alone moves a benchmark by (95%% of layouts; \"<\" an upper bound where the rounds cannot tell layout from noise)",
		every, l.Layouts, pinnedWords(l))
}

// pinnedWords says what a comparison's layouts kept fixed: function
// entries pinned to N bytes on both sides (-funcalign), so the verdicts
// are about the source at that alignment; "" for the linker's default.
func pinnedWords(l *findings.PairedLayout) string {
	if l.FuncAlign <= 0 {
		return ""
	}
	return fmt.Sprintf(" with every function's entry pinned to %d bytes on both sides (-ldflags=-funcalign=%d: what is sampled is the order of functions, not where a loop falls in its cache line)", l.FuncAlign, l.FuncAlign)
}

// fixedLayoutWords is layoutWords for a run in which some side kept one
// fixed layout: which, from when and why, and what the verdicts then hold
// for.
func fixedLayoutWords(l *findings.PairedLayout) string {
	var kept []string
	for _, f := range l.Fixed {
		when := ""
		if f.From > 1 {
			when = fmt.Sprintf(" from round %d on", f.From)
		}
		kept = append(kept, fmt.Sprintf("%s kept one fixed link layout%s (%s)", f.Config, when, f.Why))
	}
	head := "link layouts: sampled (-ldflags=-randlayout) for every side that could be relinked, a fresh one every " + everyRounds(l.PerLayout) + "; " + strings.Join(kept, "; ")
	if len(l.Fixed) >= 2 && l.OneBinary(l.Fixed[0].Config) && l.OneBinary(l.Fixed[1].Config) {
		return head + ": every round ran the same two binaries, so the verdicts hold for these two binaries only, not for their source over layouts"
	}
	var names []string
	for _, f := range l.Fixed {
		names = append(names, f.Config)
	}
	side := strings.Join(names, " and ")
	clusters := "the clusters of rounds share"
	if len(l.Fixed) == 1 && l.Fixed[0].From > 1 {
		clusters = fmt.Sprintf("the clusters from round %d on share", l.Fixed[0].From)
	}
	return head + ": " + clusters + " " + side + "'s one layout, so each interval holds the change plus that binary's own layout bias, and the verdicts hold for " + side + "'s binary against the other side's source over layouts, not for the change of source; \"layout\" is what the sampled side's layouts move a benchmark by (95% of layouts; \"<\" an upper bound)"
}

// everyRounds is "round" or "N rounds".
func everyRounds(n int) string {
	if n == 1 {
		return "round"
	}
	return fmt.Sprintf("%d rounds", n)
}

// PairedJSON writes a paired comparison and its gate's rulings (nil: no
// gate) as JSON: where it came from, the rows and geomeans, the gate's
// outcome in one word, the rulings that break a rule ("fails") and those
// that could not decide ("undecided"). See [JSON] for how numbers are
// written.
func PairedJSON(w io.Writer, r *findings.PairedResult, src PairedSource, gate *compare.Gate) error {
	return JSON(w, struct {
		Source PairedSource `json:"source"`
		*findings.PairedResult
		gateJSON
	}{src, r, gateJSONOf(gate)})
}

// PairedMarkdown writes a paired comparison as GitHub-flavoured Markdown
// for a pull-request comment or $GITHUB_STEP_SUMMARY: a heading, the
// gate's outcome (nil: no gate) with the rows it could not decide, the
// time table (every unit but sec/op folded away), the benchmarks on one
// side only, and a footer saying where it was measured and how each
// change is estimated ([analysis.PairedMethod]).
func PairedMarkdown(w io.Writer, r *findings.PairedResult, src PairedSource, gate *compare.Gate) error {
	var b strings.Builder
	fmt.Fprintf(&b, "### %s\n\n", esc(src.Title))
	pairedGateMarkdown(&b, gate)
	unit := ""
	closeUnit := func() {
		if unit == "" {
			return
		}
		if g, ok := r.GeomeanFor(unit); ok {
			gap := ""
			if r.Layout != nil {
				gap = " |"
			}
			fmt.Fprintf(&b, "| **geomean** (%d) | | | **%s** | %s | |%s |\n", g.N, FormatRatio(g.Ratio.Ratio), formatRatioCI(g.Ratio), gap)
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
			if r.Layout != nil {
				fmt.Fprintf(&b, "| %s | old | new | new/old | %s | p (adj) | layout | verdict |\n|---|--:|--:|--:|--:|--:|--:|---|\n", esc(unit), levelCI(r, unit))
			} else {
				fmt.Fprintf(&b, "| %s | old | new | new/old | %s | p (adj) | verdict |\n|---|--:|--:|--:|--:|--:|---|\n", esc(unit), levelCI(r, unit))
			}
		}
		g := gateOf(gate, "", row.FullName(), row.Unit)
		v := pairedVerdict(row, r.Band)
		switch {
		case g.undecided != nil:
			v = "🟡 " + UndecidedWords(*g.undecided)
		case row.Verdict == findings.Slower || row.Verdict == findings.Worse:
			v = "🔴 " + v
		case row.Verdict == findings.Faster || row.Verdict == findings.Better:
			v = "🟢 " + v
		}
		if len(g.broken) > 0 {
			var rules []string
			for _, t := range g.broken {
				rules = append(rules, ruleText(t))
			}
			v += " **FAIL** `" + strings.Join(rules, " ") + "`"
		}
		lay := ""
		if r.Layout != nil {
			lay = " " + layoutSpread(row) + " |"
		}
		c := pairedCellsOf(row)
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |%s %s |\n", esc(row.FullName()), c.old, c.new, c.change, c.ci, c.p, lay, esc(v))
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
	for _, f := range pairedFooter(r, src) {
		fmt.Fprintf(&b, "%s  \n", esc(f))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pairedGateMarkdown writes the gate's outcome: failed, undecided or
// passed, and the rows it could not decide, each with its change, its
// interval and why.
func pairedGateMarkdown(b *strings.Builder, gate *compare.Gate) {
	outcome := GateOutcome(gate)
	if outcome == "" {
		return
	}
	var names []string
	for _, t := range gate.Rules {
		names = append(names, "`"+ruleText(t)+"`")
	}
	rules := strings.Join(names, ", ")
	fails, undecided := gate.Fails(), gate.Undecided()
	switch outcome {
	case GateFailed:
		fmt.Fprintf(b, "**Gate %s: failed** — %d significant change(s) beyond the limit.", rules, len(fails))
		if len(undecided) > 0 {
			fmt.Fprintf(b, " It could not rule on %d more.", len(undecided))
		}
	case GateUndecided:
		fmt.Fprintf(b, "**Gate %s: undecided** — no change beyond the limit, but %d benchmark(s) could not be ruled on: an interval still holds the limit, or there is none. A larger budget narrows the intervals.", rules, len(undecided))
	default:
		fmt.Fprintf(b, "**Gate %s: passed** — every gated benchmark was decided within the limit.", rules)
	}
	b.WriteString("\n\n")
	for i, r := range undecided {
		if i == 10 {
			fmt.Fprintf(b, "- … (%d more)\n", len(undecided)-10)
			break
		}
		fmt.Fprintf(b, "- %s\n", esc(RulingLine(r)))
	}
	if len(undecided) > 0 {
		b.WriteString("\n")
	}
}

// pairedFooter says where a paired comparison was measured and how each
// change is estimated.
func pairedFooter(r *findings.PairedResult, src PairedSource) []string {
	var out []string
	if src.Old != "" || src.New != "" {
		out = append(out, "old: "+src.Old, "new: "+src.New)
	}
	how := fmt.Sprintf("%d interleaved rounds", src.Rounds)
	if r.Anytime {
		how += ", sampled sequentially"
	}
	if src.RunID != 0 {
		how = fmt.Sprintf("perflab run %d: %s", src.RunID, how)
	}
	out = append(out, fmt.Sprintf("%s. %s %s", how, pairedLevels(r), analysis.PairedMethod))
	out = append(out, layoutWords(r.Layout))
	for _, k := range []string{"cpu", "noise-before", "noise-after"} {
		for _, kv := range src.Env {
			if kv.Key == k && kv.Value != "" {
				out = append(out, k+": "+kv.Value)
			}
		}
	}
	return out
}

// pairedLevels says how the rows' intervals and verdict words are set,
// and which estimand each geomean is.
func pairedLevels(r *findings.PairedResult) string {
	levels := fmt.Sprintf("Each unit's intervals hold together at %.0f%% (each at 1 − α/m for the unit's m rows, p adjusted alike)", (1-r.Alpha)*100)
	if r.Anytime {
		levels = fmt.Sprintf("A unit's rows are decided by e-BH at α = %g, which holds under optional stopping and any dependence between rows: each interval is at 1 − α·k/m for the unit's m rows, k of them decided (1 − α/m when none is), so the decided rows are exactly those whose interval excludes no change, and the intervals of the decided rows hold at a false coverage rate of α (p adjusted by Benjamini–Hochberg, alike)", r.Alpha)
	}
	text := fmt.Sprintf("%s: a row is faster or slower when its interval excludes no change, \"median within ±%s\" when it lies within ±%s (the median change, no more: a change that slows a minority of rounds or layouts a lot moves the median little), undecided otherwise; the geomean is at %.0f%%.",
		levels, pctBand(r.Band), pctBand(r.Band), (1-r.Alpha)*100)
	var of []string
	for _, g := range r.Geomeans {
		if g.OfRows > 0 && !r.SameUnit(g.Unit) {
			of = append(of, fmt.Sprintf("%s %s", FormatRatio(g.OfRows), g.Unit))
		}
	}
	if len(of) > 0 {
		text += " A geomean is paired by round like the rows: the median over rounds of each round's geometric mean of its rows' ratios, not the geometric mean of the printed changes (" + strings.Join(of, ", ") + ")."
	}
	for _, g := range r.Geomeans {
		if g.LeftOut > 0 {
			text += fmt.Sprintf(" The geomeans leave out the %d rows of each unit whose benchmarks the budget left out after a few rounds.", g.LeftOut)
			break
		}
	}
	return text
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

// shortList joins at most ten items and says how many more there are.
func shortList(xs []string) string {
	if len(xs) > 10 {
		return strings.Join(xs[:10], ", ") + fmt.Sprintf(", … (%d more)", len(xs)-10)
	}
	return strings.Join(xs, ", ")
}
