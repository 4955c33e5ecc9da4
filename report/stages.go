package report

import (
	"cmp"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchmetrics"
)

// stageUnit matches the per-stage time units a benchmark reports with
// b.ReportMetric, such as "parse-sec/op".
var stageUnit = regexp.MustCompile(`^[A-Za-z0-9_]+-sec/op$`)

// stageExtras are the units shown after the stage times when present.
var stageExtras = []string{"sec/op", "p50-sec", "p99-sec", "gc-cycles/op", "allocs/op", "B/op"}

// stageUnits returns the per-stage time units of samples: every unit named
// "<stage>-sec/op" except those benchmetrics reports. Stages come in name
// order, with "e2e-sec/op" and "total-sec/op" last.
func stageUnits(samples []*analysis.Sample) []string {
	var units []string
	for _, u := range analysis.Units(samples) {
		if stageUnit.MatchString(u) && !slices.ContainsFunc(benchmetrics.Units, func(m struct{ Unit, Better string }) bool { return m.Unit == u }) {
			units = append(units, u)
		}
	}
	last := func(u string) int { return boolInt(u == "e2e-sec/op" || u == "total-sec/op") }
	slices.SortStableFunc(units, func(a, b string) int {
		return cmp.Or(cmp.Compare(last(a), last(b)), strings.Compare(a, b))
	})
	return units
}

// stages writes one table of the per-stage times of every cell that
// reports at least two stages, beside its end-to-end time, latency
// percentiles, GC cycles and allocations. Nothing is written for runs
// whose benchmarks report no stages.
func (m *md) stages() {
	units := stageUnits(m.in.Samples)
	if len(units) < 2 {
		return
	}
	type row struct {
		config, name string
		cells        map[string]*analysis.Sample
	}
	var rows []*row
	index := map[string]*row{}
	for _, s := range m.in.Samples {
		k := s.Config + "\x00" + s.Name.Full
		r := index[k]
		if r == nil {
			r = &row{config: s.Config, name: s.Name.Without(), cells: map[string]*analysis.Sample{}}
			index[k] = r
			rows = append(rows, r)
		}
		r.cells[s.Unit] = s
	}
	cols := slices.Clone(units)
	for _, u := range stageExtras {
		if slices.ContainsFunc(m.in.Samples, func(s *analysis.Sample) bool { return s.Unit == u }) {
			cols = append(cols, u)
		}
	}
	rows = slices.DeleteFunc(rows, func(r *row) bool {
		n := 0
		for _, u := range units {
			if r.cells[u] != nil {
				n++
			}
		}
		return n < 2
	})
	slices.SortStableFunc(rows, func(a, b *row) int {
		return cmp.Or(analysis.CompareNames(a.name, b.name), strings.Compare(a.config, b.config))
	})
	m.p("## Stages\n\nMedian time of each stage per operation, with its %.0f%% confidence interval as ±%%; an empty cell means the variant has no such stage.\n\n", m.in.Opt.Confidence*100)
	m.p("| cell | config |")
	for _, c := range cols {
		m.p(" %s |", esc(c))
	}
	m.p("\n|---|---|%s\n", strings.Repeat("---|", len(cols)))
	for _, r := range rows {
		m.p("| %s | %s |", esc(r.name), esc(r.config))
		for _, c := range cols {
			s := r.cells[c]
			if s == nil {
				m.p(" |")
				continue
			}
			m.p(" %s |", fmtSummary(analysis.Summarize(s.Values, m.in.Opt), benchunit.ClassOf(c)))
		}
		m.p("\n")
	}
	m.p("\n")
}
