package report

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/findings"
)

// maxFuncCells bounds how many cells a comparison lists functions for.
const maxFuncCells = 10

// SideLabel names one input of a comparison: "run 7 (poolreuse, quick,
// 2026-03-01 10:00)" or the file's name.
func SideLabel(s *findings.Set) string {
	if r := s.Run; r != nil {
		return fmt.Sprintf("run %d (%s, %s, %s)", r.ID, r.Experiment, r.Mode, r.StartedAt.Local().Format("2006-01-02 15:04"))
	}
	return s.Name
}

// CompareVerdict is the one-word reading of a compared row: "better",
// "worse" or "~" (no significant difference).
func CompareVerdict(r findings.CompareRow) string {
	switch {
	case r.Better:
		return "better"
	case r.Worse:
		return "worse"
	}
	return "~"
}

func rowName(r findings.CompareRow) string {
	switch {
	case r.OldConfig != "":
		return r.Name + " @" + r.OldConfig + "→" + r.Config
	case r.Config != "":
		return r.Name + " @" + r.Config
	}
	return r.Name
}

// CompareText writes a comparison for a terminal: both sides and, for two
// runs, where their environments differ; one table per unit,
// benchstat-like, with the geomean of each unit and the gate's rulings
// (nil: no gate) in the verdict column (failures marked, undecided rows
// in words); what was in one side only; and the functions whose
// instructions changed most.
func CompareText(w io.Writer, c *findings.CompareResult, gate *compare.Gate) error {
	describeSides(w, c)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	byUnit(tw, c.Rows, func(r findings.CompareRow) string { return r.Unit },
		func(unit string) { fmt.Fprintf(tw, "%s\told\tnew\tΔ\t%.0f%% CI of Δ\tp\t\n", unit, (1-c.Alpha)*100) },
		func(row findings.CompareRow) {
			mark := gateOf(gate, row.Config, row.Name, row.Unit).verdict(CompareVerdict(row), compare.Threshold.String)
			o, n := FormatStats(row.Old, row.New, row.Unit)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.3g\t%s\n", rowName(row), o, n, FormatDelta(row.Delta), FormatCI(row), row.P, mark)
		},
		func(unit string) { geomeanLine(tw, c, unit) }, "\t\t\t\t\t\t")
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(c.Rows) == 0 {
		fmt.Fprintln(w, "no benchmark is in both sets")
	}
	if err := writeUnmatched(w, c); err != nil {
		return err
	}
	return writeFuncChanges(w, c.Funcs)
}

func geomeanLine(w io.Writer, c *findings.CompareResult, unit string) {
	for _, g := range c.Geomeans {
		if g.Unit == unit {
			fmt.Fprintf(w, "geomean over %d common\t\t\t%s\t\t\t\n", g.N, FormatDelta(g.Delta))
		}
	}
}

// describeSides names both inputs and, for stored runs, lists where their
// environments differ, warning when the calibration loop ran at a
// different speed: then part of every difference is the machine's.
func describeSides(w io.Writer, c *findings.CompareResult) {
	if c.Old == nil || c.New == nil {
		return
	}
	fmt.Fprintf(w, "old: %s\nnew: %s\n", SideLabel(c.Old), SideLabel(c.New))
	if len(c.EnvDiffs) > 0 {
		var lines []string
		for _, d := range c.EnvDiffs {
			lines = append(lines, fmt.Sprintf("  %-14s %s  →  %s", d.Key, d.Old, d.New))
		}
		fmt.Fprintf(w, "environment differences:\n%s\n", strings.Join(lines, "\n"))
	}
	for _, cal := range c.Calibrations {
		fmt.Fprintf(w, "warning: the calibration loop (%s) took %+.0f%% in new: the machine itself ran at a different speed, so part of every difference below is the machine's, not the code's\n", cal.Key, (cal.Ratio-1)*100)
	}
	fmt.Fprintln(w)
}

// configPairs lists the config pairing, "default (old) with go126 (new)".
func configPairs(c *findings.CompareResult) []string {
	var pairs []string
	for o, n := range c.ConfigMap {
		pairs = append(pairs, o+" (old) with "+n+" (new)")
	}
	slices.Sort(pairs)
	return pairs
}

// writeUnmatched prints what was compared with what, and what was in one
// side only as a short table (per side and config) rather than a list of
// every name; with no common benchmark it says how to pair configs.
func writeUnmatched(w io.Writer, c *findings.CompareResult) error {
	if pairs := configPairs(c); len(pairs) > 0 {
		fmt.Fprintf(w, "configs compared: %s\n", strings.Join(pairs, ", "))
	}
	if len(c.Unmatched) == 0 {
		return nil
	}
	fmt.Fprintln(w, "\nin one side only (not compared, not in the geomeans):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  side\tconfig\tbenchmarks\tunits\te.g.")
	for _, u := range c.Unmatched {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\n", u.Side, cmp.Or(u.Config, "–"), u.Benchmarks, strings.Join(u.Units, ", "), strings.Join(u.Examples, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(c.Rows) == 0 {
		var oc, nc []string
		for _, u := range c.Unmatched {
			if u.Side == "old" && !slices.Contains(oc, u.Config) {
				oc = append(oc, u.Config)
			} else if u.Side == "new" && !slices.Contains(nc, u.Config) {
				nc = append(nc, u.Config)
			}
		}
		if len(oc) > 0 && len(nc) > 0 && !slices.ContainsFunc(oc, func(c string) bool { return slices.Contains(nc, c) }) {
			fmt.Fprintf(w, "no config is in both sides (old: %s; new: %s): pair them with --map %s=%s\n",
				strings.Join(oc, ", "), strings.Join(nc, ", "), oc[0], nc[0])
		}
	}
	return nil
}

// writeFuncChanges lists, for the cells whose instructions per op changed
// most between two runs that both measured them, the functions whose
// counts changed most and their share of the cell's change.
func writeFuncChanges(w io.Writer, fc *findings.FuncChanges) error {
	if fc == nil {
		return nil
	}
	if len(fc.Cells) == 0 {
		_, err := fmt.Fprintln(w, "\nfunctions: no cell's instructions/op changed by more than 0.1%")
		return err
	}
	fmt.Fprintf(w, "\nfunctions whose instructions/op changed most (medians over rounds; share = the function's change ÷ the cell's change)\n")
	for i, c := range fc.Cells {
		if i == maxFuncCells {
			fmt.Fprintf(w, "\n(%d more cells changed; see each run's report)\n", len(fc.Cells)-maxFuncCells)
			break
		}
		name := c.Name
		if c.Config != "" {
			name += " @" + c.Config
		}
		fmt.Fprintf(w, "\n%s: %.6g → %.6g instructions/op (%+.2f%%)\n", name, c.Diff.OldTotal, c.Diff.NewTotal, 100*(c.Diff.NewTotal/c.Diff.OldTotal-1))
		for _, f := range c.Diff.Changes {
			fmt.Fprintf(w, "  %-50s %10.4g → %-10.4g %+10.4g  %4.0f%%\n", f.Func, f.Old, f.New, f.Delta, 100*f.Share)
		}
	}
	return nil
}

// byUnit writes rows that come grouped by unit: head before each unit's
// first row, foot after its last, and the blank line between units.
func byUnit[R any](w io.Writer, rows []R, unitOf func(R) string, head func(unit string), line func(R), foot func(unit string), blank string) {
	unit := ""
	for _, row := range rows {
		if u := unitOf(row); u != unit {
			if unit != "" {
				foot(unit)
				fmt.Fprintln(w, blank)
			}
			unit = u
			head(unit)
		}
		line(row)
	}
	if unit != "" {
		foot(unit)
	}
}

// CompareJSON writes a comparison and its gate's rulings (nil: no gate)
// as JSON: the rows, the gate's outcome in one word, the rulings that
// break a rule ("fails") and those that could not decide ("undecided").
// See [JSON] for how numbers are written.
func CompareJSON(w io.Writer, c *findings.CompareResult, gate *compare.Gate) error {
	return JSON(w, struct {
		*findings.CompareResult
		gateJSON
	}{c, gateJSONOf(gate)})
}

// ruleNames lists a gate's rules as written, comma-separated.
func ruleNames(g *compare.Gate) string {
	var names []string
	for _, t := range g.Rules {
		names = append(names, cmp.Or(t.Text, t.String()))
	}
	return strings.Join(names, ",")
}

// CompareSections is a comparison as report sections: how to read it,
// the gate's outcome (nil: no gate) with the rows it failed and those it
// could not decide, one table per unit (rows classed "better", "worse" or
// "undecided") with its geomean in the title, and what was in one side
// only.
func CompareSections(c *findings.CompareResult, gate *compare.Gate) []Section {
	about := Section{ID: "about", Title: "Comparison"}
	about.Blocks = append(about.Blocks, para(fmt.Sprintf("Δ is median(new)/median(old) − 1 with its %.0f%% distribution-free interval (Hodges–Lehmann on log values); p is the Mann-Whitney U test. A change is marked better or worse (in its unit's direction) only when p < %g. Geomeans cover only the benchmarks in both sides. A gate rule fails where a change is a Benjamini–Hochberg discovery at %g among all rows of its unit and its whole interval lies beyond the limit; it leaves a row undecided where the interval still holds the limit, or there is none.",
		(1-c.Alpha)*100, c.Alpha, c.Alpha)))
	if pairs := configPairs(c); len(pairs) > 0 {
		about.Blocks = append(about.Blocks, para("Configs compared: "+strings.Join(pairs, ", ")+" (each side has one config)."))
	}
	out := []Section{about}
	if gate != nil {
		out = append(out, gateSection(gate))
	}
	var t *Table
	for _, row := range c.Rows {
		if t == nil || row.Unit != t.Head[0] {
			title := row.Unit
			for _, g := range c.Geomeans {
				if g.Unit == row.Unit {
					title += fmt.Sprintf(" — geomean %s over %d common benchmarks", FormatDelta(g.Delta), g.N)
				}
			}
			t = &Table{Class: "compare", Head: []string{row.Unit, "old", "new", "Δ", fmt.Sprintf("%.0f%% CI of Δ", (1-c.Alpha)*100), "p", ""}}
			out = append(out, Section{ID: "unit-" + row.Unit, Title: title, Blocks: []Block{{Table: t}}})
		}
		o, n := FormatStats(row.Old, row.New, row.Unit)
		r := Row{Cells: []Cell{cell(rowName(row)), num(o), num(n), num(FormatDelta(row.Delta)), num(FormatCI(row)), num(fmt.Sprintf("%.3g", row.P)), cell(CompareVerdict(row))}}
		r.Class = "same"
		if row.Better || row.Worse {
			r.Class = CompareVerdict(row)
		}
		switch g := gateOf(gate, row.Config, row.Name, row.Unit); {
		case g.undecided != nil:
			r.Class, r.Cells[6].Text = "undecided", Plain(UndecidedWords(*g.undecided))
		case len(g.broken) > 0:
			r.Cells[6].Text = Plain(g.verdict(CompareVerdict(row), compare.Threshold.String))
			r.Cells[6].Strong = true
		}
		t.Rows = append(t.Rows, r)
	}
	if len(c.Rows) == 0 {
		out = append(out, Section{ID: "rows", Title: "No benchmark is in both sides", Blocks: []Block{para("Nothing to compare: check that both measured the same benchmarks, and pair differently named configs.")}})
	}
	if len(c.Unmatched) > 0 {
		s := Section{ID: "unmatched", Title: "In one side only"}
		s.Blocks = append(s.Blocks, para("Not compared, not in any geomean."))
		ut := &Table{Class: "unmatched", Head: []string{"side", "config", "benchmarks", "units", "e.g."}}
		for _, u := range c.Unmatched {
			ut.Rows = append(ut.Rows, Row{Cells: []Cell{cell(u.Side), cell(u.Config), num(fmt.Sprint(u.Benchmarks)), cell(strings.Join(u.Units, ", ")), cell(strings.Join(u.Examples, ", "))}})
		}
		s.Blocks = append(s.Blocks, Block{Table: ut})
		out = append(out, s)
	}
	return out
}

// num is a numeric cell, right-aligned in HTML.
func num(s string) Cell { return Cell{Text: Plain(s), Class: "num"} }

// maxGateLines bounds the rulings a gate section lists of each kind.
const maxGateLines = 20

// gateSection is a gate's outcome: passed, failed with the rows beyond a
// limit, and the rows it could not decide, each in words ([RulingLine]),
// and the rules no row reports.
func gateSection(gate *compare.Gate) Section {
	rules := ruleNames(gate)
	g := Section{ID: "gate", Title: "Gate " + rules}
	fails, undecided := gate.Fails(), gate.Undecided()
	lines := func(class string, rs []compare.Ruling) Block {
		t := &Table{Class: class, Head: []string{class}}
		for i, r := range rs {
			if i == maxGateLines {
				t.Rows = append(t.Rows, Row{Cells: cells(fmt.Sprintf("… and %d more, marked in the tables below", len(rs)-maxGateLines))})
				break
			}
			t.Rows = append(t.Rows, Row{Cells: cells(RulingLine(r))})
		}
		return Block{Table: t}
	}
	switch GateOutcome(gate) {
	case GatePassed:
		g.Blocks = append(g.Blocks, para("Gate passed: every gated row was decided, none beyond "+rules+"."))
	case GateFailed:
		g.Blocks = append(g.Blocks, para(fmt.Sprintf("Gate failed (%s): %d significant change(s) beyond the limit.", rules, len(fails))), lines("fails", fails))
	}
	if len(undecided) > 0 {
		g.Blocks = append(g.Blocks, para(fmt.Sprintf("Gate undecided (%s) on %d row(s): an interval still holds the limit, or there is none, so the gate cannot tell on which side of it the change lies; more samples narrow the intervals.", rules, len(undecided))),
			lines("undecided", undecided))
	}
	for _, u := range gate.Unmatched {
		g.Blocks = append(g.Blocks, para("No compared benchmark reports the unit of rule "+u.String()+"."))
	}
	return g
}

// CompareHTML is the comparison as HTML sections, for a page.
func CompareHTML(c *findings.CompareResult, gate *compare.Gate) template.HTML {
	return htmlSections(CompareSections(c, gate))
}
