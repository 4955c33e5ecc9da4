package report

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/perflab/perflab/analysis"
)

// Rows shared by the Markdown and HTML reports.

type crossRow struct {
	Series, Vs, At, Bracket, Direction string
	Found                              bool
}

type kneeRow struct{ Series, Unit, X, Confidence, Note string }

// crossRows are the rows of the reports' crossover table: where
// each series crosses the baseline, and the pairs that never do.
func crossRows(in *Input) []crossRow {
	s := in.Spec
	if s == nil || s.Analysis.Axis == "" || s.Analysis.By == "" {
		return nil
	}
	a := s.Analysis
	unit := in.mainUnit()
	var rows []crossRow
	for _, c := range in.Crossovers {
		if c.Unit != unit {
			continue
		}
		other, base, ok := orient(c, a.By, a.Baseline)
		if !ok {
			continue
		}
		rows = append(rows, crossRow{Series: withConfig(in, other, c.Config), Vs: shortVs(base, a.By), At: fmt.Sprintf("%.3g", c.X), Bracket: fmt.Sprintf("%g – %g", c.Lo, c.Hi), Direction: direction(c, other == c.A), Found: true})
	}
	rows = append(rows, noCrossRows(in, unit)...)
	slices.SortStableFunc(rows, func(x, y crossRow) int { return analysis.CompareNames(x.Series+"|"+x.Vs, y.Series+"|"+y.Vs) })
	return rows
}

// noCrossRows lists the baseline pairs without a crossover, with how often
// the series is significantly faster or slower than the baseline.
func noCrossRows(in *Input, unit string) []crossRow {
	a := in.Spec.Analysis
	if a.Baseline == "" {
		return nil
	}
	crossed := map[string]bool{}
	for _, c := range in.Crossovers {
		if c.Unit == unit {
			crossed[c.Config+"\x00"+c.A+"\x00"+c.B] = true
			crossed[c.Config+"\x00"+c.B+"\x00"+c.A] = true
		}
	}
	var samples []*analysis.Sample
	for _, s := range in.Samples {
		if s.Unit == unit {
			samples = append(samples, s)
		}
	}
	type key struct{ config, rest string }
	bases := map[key]*analysis.Sample{}
	seriesOf := func(s *analysis.Sample) string { return s.Name.Without(a.Axis) }
	for _, s := range samples {
		if v, _ := s.Value(a.By); v == a.Baseline {
			bases[key{s.Config, s.Name.Without(a.Axis, a.By)}] = s
		}
	}
	var rows []crossRow
	done := map[string]bool{}
	for _, s := range samples {
		v, ok := s.Value(a.By)
		if !ok || v == a.Baseline {
			continue
		}
		base := bases[key{s.Config, s.Name.Without(a.Axis, a.By)}]
		name := seriesOf(s)
		if base == nil || done[name+"@"+s.Config] || crossed[s.Config+"\x00"+name+"\x00"+seriesOf(base)] {
			continue
		}
		done[name+"@"+s.Config] = true
		var mine, theirs []*analysis.Sample
		for _, t := range samples {
			if t.Config == s.Config && seriesOf(t) == name {
				mine = append(mine, t)
			}
			if t.Config == s.Config && seriesOf(t) == seriesOf(base) {
				theirs = append(theirs, t)
			}
		}
		pts := analysis.Along(mine, theirs, a.Axis)
		if len(pts) == 0 {
			continue
		}
		faster, slower := 0, 0
		for _, p := range pts {
			if analysis.Compare(p.A, p.B, in.Opt) >= in.Opt.Alpha {
				continue
			}
			if analysis.Summarize(p.A, in.Opt).Center < analysis.Summarize(p.B, in.Opt).Center {
				faster++
			} else {
				slower++
			}
		}
		rows = append(rows, crossRow{Series: withConfig(in, name, s.Config), Vs: shortVs(seriesOf(base), a.By), At: fmt.Sprintf("none in %g–%g", pts[0].X, pts[len(pts)-1].X),
			Direction: fmt.Sprintf("faster at %d, slower at %d, same at %d of %d points", faster, slower, len(pts)-faster-slower, len(pts))})
	}
	return rows
}

// kneeRows are the knees of the main unit, sorted by series.
func kneeRows(in *Input) []kneeRow {
	var rows []kneeRow
	for _, k := range in.Knees {
		if k.Unit != in.mainUnit() {
			continue
		}
		rows = append(rows, kneeRow{withConfig(in, k.Series, k.Config), k.Unit, strconv.FormatFloat(k.X, 'g', -1, 64), k.Confidence, k.Note})
	}
	slices.SortStableFunc(rows, func(a, b kneeRow) int { return analysis.CompareNames(a.Series, b.Series) })
	return rows
}

// withConfig labels a series with its config when the run has several.
func withConfig(in *Input, series, config string) string {
	if config != "" && len(in.Configs) > 1 {
		return series + " @" + config
	}
	return series
}
