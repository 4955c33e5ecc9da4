package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/compare"
)

// resultRow is one benchmark's summary in one unit, as the results table
// prints it. Other columns (e.g. ratios between levels) can be added to the
// row and the table together.
type resultRow struct {
	Bench, Config, Unit string
	Sum                 analysis.Summary
}

// resultRows summarises each sample (benchmark × config × unit).
func resultRows(samples []*analysis.Sample, opt analysis.Options) []resultRow {
	rows := make([]resultRow, 0, len(samples))
	for _, s := range samples {
		rows = append(rows, resultRow{Bench: s.Name.Full, Config: s.Config, Unit: s.Unit, Sum: analysis.Summarize(s.Values, opt)})
	}
	slices.SortStableFunc(rows, func(a, b resultRow) int {
		if c := analysis.CompareNames(a.Bench, b.Bench); c != 0 {
			return c
		}
		return strings.Compare(a.Config, b.Config)
	})
	return rows
}

// writeResultsTable prints one compact table per unit: benchmark, median
// and its 95% confidence interval. A unit whose every median is zero (B/op
// and allocs/op of benchmarks that do not allocate) gets one line instead
// of a table of zeros.
func writeResultsTable(w io.Writer, rows []resultRow) error {
	byUnit := map[string][]resultRow{}
	var units []string
	configs := map[string]bool{}
	for _, r := range rows {
		if byUnit[r.Unit] == nil {
			units = append(units, r.Unit)
		}
		byUnit[r.Unit] = append(byUnit[r.Unit], r)
		configs[r.Config] = true
	}
	slices.SortStableFunc(units, func(a, b string) int { return compare.UnitRank(a) - compare.UnitRank(b) })
	var zero []string
	for _, u := range units {
		rs := byUnit[u]
		if !slices.ContainsFunc(rs, func(r resultRow) bool { return r.Sum.Center != 0 || r.Sum.Hi != 0 }) {
			zero = append(zero, u)
			continue
		}
		cls := benchunit.ClassOf(u)
		fmt.Fprintf(w, "\n%s:\n", u)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "  benchmark\tmedian\t95% interval\tn")
		for _, r := range rs {
			name := r.Bench
			if len(configs) > 1 {
				name += " @" + r.Config
			}
			interval := "(n<6: no interval)"
			if r.Sum.N >= 6 {
				interval = fmt.Sprintf("[%s, %s]", scale(r.Sum.Lo, cls, u), scale(r.Sum.Hi, cls, u))
				if sp := r.Sum.Spread(); !math.IsNaN(sp) {
					interval += fmt.Sprintf(" ±%.1f%%", 100*sp)
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\n", name, scale(r.Sum.Center, cls, u), interval, r.Sum.N)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if len(zero) > 0 {
		fmt.Fprintf(w, "\n%s: 0 for every benchmark\n", strings.Join(zero, ", "))
	}
	return nil
}

// scale prints v in human units: 1.74µs for sec/op, 4.00KiB for B/op.
func scale(v float64, cls benchunit.Class, unit string) string {
	s := benchunit.Scale(v, cls)
	switch unit {
	case "sec/op":
		return s + "s"
	case "B/op":
		return s + "B"
	}
	return s
}
