package report

import (
	"fmt"
	"io"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/findings"
)

// AnalyzeText writes an analysis for a terminal: the medians (as
// [ResultsTable]), every series' knee fit along the axis, each value's
// per-point ratio to the baseline with its geomean read in the unit's
// direction, and the crossovers.
func AnalyzeText(w io.Writer, a *findings.Analysis) error {
	if err := ResultsTable(w, a.Summaries, a.Confidence); err != nil {
		return err
	}
	conf := fmt.Sprintf("%.0f%%", a.Confidence*100)
	if a.Axis != "" {
		fmt.Fprintf(w, "\nknees along %s (a hinge must beat smooth curves by ΔAICc ≥ %g):\n", a.Axis, analysis.KneeMargin)
		if len(a.KneeFits) == 0 {
			fmt.Fprintln(w, "  no series with 4 or more points")
		}
		for _, k := range a.KneeFits {
			fmt.Fprintf(w, "  %s [%s]: %s\n", seriesLabel(k.Series, k.Config), k.Unit, k.Note)
		}
	}
	if a.By != "" && len(a.Ratios) > 0 {
		fmt.Fprintf(w, "\nratios to %s=%s, per point, paired within rounds (%s interval):\n", a.By, a.Baseline, conf)
		for _, c := range a.Ratios {
			for _, p := range c.Points {
				fmt.Fprintf(w, "  %s %s=%s [%s] %s: %s\n", seriesLabel(c.Series, c.Config), c.By, c.Value, c.Unit, orPoint(a.Axis, p.X), FmtRatio(p.Ratio))
			}
			fmt.Fprintf(w, "  %s %s=%s [%s] geomean: %s, %s\n", seriesLabel(c.Series, c.Config), c.By, c.Value, c.Unit, FmtRatio(c.Geomean.Ratio), reading(c.Unit, c.Geomean.Ratio, c.Better, c.Worse))
		}
		for _, g := range a.Geomeans {
			fmt.Fprintf(w, "  geomean %s=%s / %s=%s [%s] over %d points: %s, %s\n", a.By, seriesLabel(g.Value, g.Config), a.By, g.Baseline, g.Unit, g.Points, FmtRatio(g.Geomean.Ratio), reading(g.Unit, g.Geomean.Ratio, g.Better, g.Worse))
		}
	}
	if a.By != "" && a.Axis != "" {
		fmt.Fprintf(w, "\ncrossovers along %s between %s values:\n", a.Axis, a.By)
		if len(a.Crossovers) == 0 {
			fmt.Fprintln(w, "  none")
		}
		for _, c := range a.Crossovers {
			lower := func(side string) string {
				if side == "a" {
					return c.A
				}
				return c.B
			}
			fmt.Fprintf(w, "  %s vs %s [%s]: %s=%.3g [%.3g, %.3g] (between %g and %g; decided at %g and %g; lower below: %s, above: %s; %s, %s)\n",
				c.A, c.B, c.Unit, c.Axis, c.X, c.XLo, c.XHi, c.Lo, c.Hi, c.SigLo, c.SigHi, lower(c.LowerBelow), lower(c.LowerAbove), c.Test, c.Correction)
		}
	}
	return nil
}

func orPoint(axis, x string) string {
	switch {
	case x == "":
		return "(all)"
	case axis != "":
		return axis + "=" + x
	}
	return x
}

func seriesLabel(name, config string) string {
	if config == "" {
		return name
	}
	return name + " @" + config
}
