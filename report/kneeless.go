package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/perflab/perflab/analysis"
)

// kneeless writes, folded, the series along the analysis axis that have no
// significant knee, with the best two-segment fit that was rejected, so
// that every series' knee (or its absence) is in the report.
func (m *md) kneeless() {
	s := m.in.Spec
	if s == nil || s.Analysis.Axis == "" {
		return
	}
	axis, unit := s.Analysis.Axis, m.in.mainUnit()
	found := map[string]bool{}
	for _, k := range m.in.Knees {
		if k.Unit == unit {
			found[k.Config+"\x00"+k.Series] = true
		}
	}
	type series struct {
		config, name string
		xs, ys       []float64
	}
	index := map[string]*series{}
	var all []*series
	for _, smp := range m.in.Samples {
		x, ok := smp.Num(axis)
		if smp.Unit != unit || !ok {
			continue
		}
		name := smp.Name.Without(axis)
		key := smp.Config + "\x00" + name
		if found[key] {
			continue
		}
		sr := index[key]
		if sr == nil {
			sr = &series{config: smp.Config, name: name}
			index[key] = sr
			all = append(all, sr)
		}
		sr.xs = append(sr.xs, x)
		sr.ys = append(sr.ys, analysis.Summarize(smp.Values, m.in.Opt).Center)
	}
	var lines []string
	for _, sr := range all {
		if len(sr.xs) < 4 {
			continue
		}
		k := analysis.FindKnee(sr.xs, sr.ys, analysis.KneeOptions{LogX: decadesApart(sr.xs)})
		name := sr.name
		if sr.config != "" && len(m.in.Configs) > 1 {
			name += " @" + sr.config
		}
		lines = append(lines, fmt.Sprintf("| %s | %d | %s |", esc(name), len(sr.xs), esc(k.Note)))
	}
	if len(lines) == 0 {
		return
	}
	slices.SortStableFunc(lines, analysis.CompareNames)
	m.p("<details><summary>%d series without a significant knee along %s (%s)</summary>\n\n", len(lines), esc(axis), esc(unit))
	m.p("| series | points | why no knee |\n|---|---|---|\n%s\n\n</details>\n\n", strings.Join(lines, "\n"))
}

// decadesApart reports whether positive xs span two decades, the rule by
// which analysis.Knees fits on a log axis.
func decadesApart(xs []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		if x <= 0 {
			return false
		}
		lo, hi = min(lo, x), max(hi, x)
	}
	return cmp.Compare(hi/lo, 100) >= 0
}
