package report

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchmetrics"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/findings"
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
	for _, u := range findings.UnitsOf(samples) {
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

// stagesSection is one table of the per-stage times of every cell that
// reports at least two stages, beside its end-to-end time, latency
// percentiles, GC cycles and allocations. Runs whose benchmarks report no
// stages get none.
func stagesSection(f *findings.Run) *Section {
	units := stageUnits(f.Samples)
	if len(units) < 2 {
		return nil
	}
	type row struct {
		config, name string
		cells        map[string]*analysis.Sample
	}
	var rows []*row
	index := map[string]*row{}
	for _, s := range f.Samples {
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
		if slices.ContainsFunc(f.Samples, func(s *analysis.Sample) bool { return s.Unit == u }) {
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
		return cmp.Or(benchname.Compare(a.name, b.name), strings.Compare(a.config, b.config))
	})
	sec := &Section{ID: "stages", Title: "Stages"}
	sec.Blocks = append(sec.Blocks, para(fmt.Sprintf("Median time of each stage per operation, with its %.0f%% confidence interval as ±%%; an empty cell means the variant has no such stage.", f.Opt.Confidence*100)))
	t := &Table{Head: append([]string{"cell", "config"}, cols...)}
	for _, r := range rows {
		tr := Row{Cells: cells(r.name, r.config)}
		for _, c := range cols {
			s := r.cells[c]
			if s == nil {
				tr.Cells = append(tr.Cells, cell(""))
				continue
			}
			tr.Cells = append(tr.Cells, cell(fmtSummary(f.Summary(s), benchunit.ClassOf(c))))
		}
		t.Rows = append(t.Rows, tr)
	}
	sec.Blocks = append(sec.Blocks, Block{Table: t})
	return sec
}
