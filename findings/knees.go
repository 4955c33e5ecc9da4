package findings

import (
	"slices"

	"github.com/perflab/perflab/analysis"
)

// KneeFit is a main-unit series along the analysis axis that has no
// significant knee, with the best two-segment fit that was rejected and
// why.
type KneeFit struct {
	Config, Series string
	Points         int
	Fit            analysis.KneeResult
}

// kneeless fits every main-unit series without a significant knee, so
// every series' knee, or its absence, can be shown.
func (f *Run) kneeless() []KneeFit {
	axis, unit := f.Axis, f.MainUnit
	found := map[string]bool{}
	for _, k := range f.Knees {
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
	for _, s := range f.Samples {
		x, ok := s.Num(axis)
		if s.Unit != unit || !ok {
			continue
		}
		name := s.Name.Without(axis)
		key := s.Config + "\x00" + name
		if found[key] {
			continue
		}
		sr := index[key]
		if sr == nil {
			sr = &series{config: s.Config, name: name}
			index[key] = sr
			all = append(all, sr)
		}
		sr.xs = append(sr.xs, x)
		sr.ys = append(sr.ys, f.Summary(s).Center)
	}
	var out []KneeFit
	for _, sr := range all {
		if len(sr.xs) < 4 {
			continue
		}
		k := analysis.FindKnee(sr.xs, sr.ys, analysis.KneeOptions{LogX: analysis.SpansDecades(sr.xs), Alpha: f.Opt.Alpha})
		out = append(out, KneeFit{Config: sr.config, Series: sr.name, Points: len(sr.xs), Fit: k})
	}
	slices.SortStableFunc(out, func(a, b KneeFit) int { return analysis.CompareNames(a.Series+"@"+a.Config, b.Series+"@"+b.Config) })
	return out
}
