package findings

import (
	"slices"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
)

// KneeFit is a main-unit series along the analysis axis that has no knee:
// its fit (smooth growth with its exponent, or undecided) and why.
type KneeFit struct {
	Config, Series string
	Points         int
	Fit            analysis.KneeResult
}

// knees judges every series along the axis once ([analysis.KneeFits]):
// the knees of every unit, and the main-unit series without one, so every
// series' knee, or its absence, can be shown.
func (f *Run) knees() {
	fits := analysis.KneeFits(f.Samples, f.Axis, f.Opt)
	f.Knees = analysis.FoundKnees(fits)
	points := map[string]int{}
	for _, s := range f.Samples {
		if _, ok := s.Num(f.Axis); ok && s.Unit == f.MainUnit {
			points[s.Config+"\x00"+s.Name.Without(f.Axis)]++
		}
	}
	for _, k := range fits {
		if k.Found || k.Unit != f.MainUnit {
			continue
		}
		f.NoKnees = append(f.NoKnees, KneeFit{Config: k.Config, Series: k.Series, Points: points[k.Config+"\x00"+k.Series], Fit: k.KneeResult})
	}
	slices.SortStableFunc(f.NoKnees, func(a, b KneeFit) int {
		return benchname.Compare(a.Series+"@"+a.Config, b.Series+"@"+b.Config)
	})
}
