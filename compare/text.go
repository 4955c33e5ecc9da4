package compare

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"
)

// FormatDelta prints a relative change as a signed percentage: "+5.2%",
// "-0.3%", "0%", "+∞".
func FormatDelta(d float64) string {
	switch {
	case math.IsNaN(d):
		return "?"
	case math.IsInf(d, 1):
		return "+∞"
	case math.IsInf(d, -1):
		return "-∞"
	case d == 0:
		return "0%"
	}
	return fmt.Sprintf("%+.1f%%", d*100)
}

// FormatCI prints the interval of a change, or "n too small".
func FormatCI(r Row) string {
	if r.NoCI {
		return "n too small"
	}
	return "[" + FormatDelta(r.DeltaLo) + ", " + FormatDelta(r.DeltaHi) + "]"
}

// FormatStat prints a median with its interval as ±%.
func FormatStat(s Stat, unit string) string {
	cls := benchunit.ClassOf(unit)
	if s.N == 0 || math.IsNaN(s.Median) {
		return "—"
	}
	v := benchunit.Scale(s.Median, cls)
	if s.Median == 0 && s.Lo == 0 && s.Hi == 0 {
		return "0"
	}
	if s.N < 6 || s.Median == 0 {
		return fmt.Sprintf("%s (n=%d)", v, s.N)
	}
	sp := math.Max(s.Hi-s.Median, s.Median-s.Lo) / math.Abs(s.Median)
	return fmt.Sprintf("%s ±%.0f%%", v, sp*100)
}

// Verdict is the one-word reading of a row: "better", "worse" or "~"
// (no significant difference).
func (r Row) Verdict() string {
	switch {
	case r.Better:
		return "better"
	case r.Worse:
		return "worse"
	}
	return "~"
}

// WriteText prints the comparison as one table per unit, benchstat-like,
// with the geomean of each unit and the gate failures marked.
func (r *Result) WriteText(w io.Writer, fails []Failure) error {
	failed := map[string][]string{}
	for _, f := range fails {
		k := f.Row.Config + "\x00" + f.Row.Name + "\x00" + f.Row.Unit
		failed[k] = append(failed[k], f.Threshold.String())
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	unit := ""
	for _, row := range r.Rows {
		if row.Unit != unit {
			if unit != "" {
				r.geomeanLine(tw, unit)
				fmt.Fprintln(tw, "\t\t\t\t\t\t")
			}
			unit = row.Unit
			fmt.Fprintf(tw, "%s\told\tnew\tΔ\t%.0f%% CI of Δ\tp\t\n", unit, (1-r.Opt.Alpha)*100)
		}
		name := row.Name
		switch {
		case row.OldConfig != "":
			name += " @" + row.OldConfig + "→" + row.Config
		case row.Config != "":
			name += " @" + row.Config
		}
		mark := row.Verdict()
		if fs := failed[row.Config+"\x00"+row.Name+"\x00"+row.Unit]; len(fs) > 0 {
			mark += "  FAIL " + strings.Join(fs, " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.3g\t%s\n", name, FormatStat(row.Old, unit), FormatStat(row.New, unit), FormatDelta(row.Delta), FormatCI(row), row.P, mark)
	}
	if unit != "" {
		r.geomeanLine(tw, unit)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Rows) == 0 {
		fmt.Fprintln(w, "no benchmark is in both sets")
	}
	return r.WriteUnmatched(w)
}

func (r *Result) geomeanLine(w io.Writer, unit string) {
	for _, g := range r.Geomeans {
		if g.Unit == unit {
			fmt.Fprintf(w, "geomean over %d common\t\t\t%s\t\t\t\n", g.N, FormatDelta(g.Delta))
		}
	}
}
