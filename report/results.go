package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/unit"
)

// ResultsTable writes medians for a terminal, one compact table per unit
// (sec/op first): benchmark, median and its interval (at confidence), n.
// A unit whose every median is zero (B/op and allocs/op of benchmarks that
// do not allocate) gets one line instead of a table of zeros; configs are
// named when there are several.
func ResultsTable(w io.Writer, rows []findings.SummaryRow, confidence float64) error {
	byUnit := map[string][]findings.SummaryRow{}
	var units []string
	configs := map[string]bool{}
	for _, r := range rows {
		if byUnit[r.Unit] == nil {
			units = append(units, r.Unit)
		}
		byUnit[r.Unit] = append(byUnit[r.Unit], r)
		configs[r.Config] = true
	}
	slices.SortStableFunc(units, func(a, b string) int { return unit.Rank(a) - unit.Rank(b) })
	var zero []string
	for _, u := range units {
		rs := byUnit[u]
		if !slices.ContainsFunc(rs, func(r findings.SummaryRow) bool { return r.Median != 0 || r.Hi != 0 }) {
			zero = append(zero, u)
			continue
		}
		fmt.Fprintf(w, "\n%s:\n", u)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintf(tw, "  benchmark\tmedian\t%.0f%% interval\tn\n", confidence*100)
		for _, r := range rs {
			name := r.Name
			if len(configs) > 1 {
				name += " @" + r.Config
			}
			interval := fmt.Sprintf("(n=%d: no interval)", r.N)
			if r.Interval {
				interval = fmt.Sprintf("[%s, %s]", humanValue(r.Lo, u), humanValue(r.Hi, u))
				if !math.IsNaN(r.Spread) {
					interval += fmt.Sprintf(" ±%.1f%%", 100*r.Spread)
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\n", name, humanValue(r.Median, u), interval, r.N)
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
