package analysis

import (
	"cmp"
	"math"
	"slices"
)

// SeriesKnee is a knee found in one series.
type SeriesKnee struct {
	Series string  `json:"series"` // name with the axis part removed
	Config string  `json:"config,omitempty"`
	Unit   string  `json:"unit"`
	Axis   string  `json:"axis"`
	X      float64 `json:"x"`
	KneeResult
}

// SeriesCrossover is a crossover between two series that differ in one key.
type SeriesCrossover struct {
	Unit   string `json:"unit"`
	Axis   string `json:"axis"`
	By     string `json:"by"`
	A      string `json:"a"` // series names, axis part removed
	B      string `json:"b"`
	Config string `json:"config,omitempty"`
	Crossover
}

// series is one line along an axis: the samples of one (config, unit, name
// without axis), sorted by axis value.
type series struct {
	name, config, unit string
	xs                 []float64
	samples            []*Sample
}

// seriesAlong groups samples that carry a numeric axis value into series.
func seriesAlong(samples []*Sample, axis string) []*series {
	type key struct{ config, unit, name string }
	index := map[key]*series{}
	var out []*series
	for _, s := range samples {
		x, ok := s.Num(axis)
		if !ok {
			continue
		}
		k := key{s.Config, s.Unit, s.Name.Without(axis)}
		sr := index[k]
		if sr == nil {
			sr = &series{name: k.name, config: k.config, unit: k.unit}
			index[k] = sr
			out = append(out, sr)
		}
		sr.xs = append(sr.xs, x)
		sr.samples = append(sr.samples, s)
	}
	for _, sr := range out {
		idx := make([]int, len(sr.xs))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(sr.xs[a], sr.xs[b]) })
		xs, ss := make([]float64, len(idx)), make([]*Sample, len(idx))
		for i, j := range idx {
			xs[i], ss[i] = sr.xs[j], sr.samples[j]
		}
		sr.xs, sr.samples = xs, ss
	}
	return out
}

// FoundKnees returns the fits of [KneeFits] that are knees, in order;
// never nil.
func FoundKnees(fits []SeriesKnee) []SeriesKnee {
	out := []SeriesKnee{}
	for _, k := range fits {
		if k.Found {
			out = append(out, k)
		}
	}
	return out
}

// KneeFits judges every series along axis with at least four points
// ([FitKnee]: medians per point, rounds resampled for the intervals),
// whatever the verdict: "knee", "smooth" or "undecided", each with its
// note; [FoundKnees] picks the knees among them. An axis whose positive
// values span two decades or more ([SpansDecades]) is fitted in log-log.
// It is the way in for the series of a set of samples; [FitKnee] judges
// one series.
func KneeFits(samples []*Sample, axis string, opt Options) []SeriesKnee {
	out := []SeriesKnee{}
	for _, sr := range seriesAlong(samples, axis) {
		if len(sr.xs) < kneeMinPoints {
			continue
		}
		k := FitKnee(sr.xs, sr.samples, KneeOptions{LogX: SpansDecades(sr.xs), Confidence: opt.Confidence, Rounds: opt})
		out = append(out, SeriesKnee{Series: sr.name, Config: sr.config, Unit: sr.unit, Axis: axis, X: k.X, KneeResult: k})
	}
	return out
}

// SpansDecades reports whether the values are all positive and finite
// and span two decades or more: an axis worth drawing and analysing on a
// log scale.
func SpansDecades(vs []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		if !(v > 0) || math.IsInf(v, 0) {
			return false
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return len(vs) > 0 && hi/lo >= 100
}

// SeriesComparison is the comparison of two series that differ in one
// key, point by point along an axis (see [CompareAlong]).
type SeriesComparison struct {
	Unit   string `json:"unit"`
	Axis   string `json:"axis"`
	By     string `json:"by"`
	A      string `json:"a"` // series names, axis part removed
	B      string `json:"b"`
	Config string `json:"config,omitempty"`
	CrossAnalysis
}

// Crossovers finds, along axis, every crossover between series that differ
// only in the value of key by (see [Comparisons]).
func Crossovers(samples []*Sample, axis, by string, opt Options) []SeriesCrossover {
	return CrossoversOf(Comparisons(samples, axis, by, opt))
}

// CrossoversOf lists the crossovers of comparisons, in order; never nil.
func CrossoversOf(comps []SeriesComparison) []SeriesCrossover {
	out := []SeriesCrossover{}
	for _, c := range comps {
		for _, x := range c.Crossovers {
			out = append(out, SeriesCrossover{Unit: c.Unit, Axis: c.Axis, By: c.By, A: c.A, B: c.B, Config: c.Config, Crossover: x})
		}
	}
	return out
}

// Comparisons compares, along axis, every pair of series that differ only
// in the value of key by: per point the paired ratio A/B with its
// interval and corrected p-value, and the crossovers. Pairs are taken in
// first-seen order of the by values; each pair is reported once (A first
// seen before B).
func Comparisons(samples []*Sample, axis, by string, opt Options) []SeriesComparison {
	type key struct{ config, unit, rest string }
	type member struct {
		value string
		sr    *series
	}
	groups := map[key][]member{}
	var order []key
	for _, sr := range seriesAlong(samples, axis) {
		v, ok := sr.samples[0].Value(by)
		if !ok {
			continue
		}
		k := key{sr.config, sr.unit, sr.samples[0].Name.Without(axis, by)}
		if by == "config" {
			k.config = ""
		}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], member{v, sr})
	}
	out := []SeriesComparison{}
	for _, k := range order {
		ms := groups[k]
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				a, b := ms[i].sr, ms[j].sr
				out = append(out, SeriesComparison{Unit: k.unit, Axis: axis, By: by, A: label(a, by), B: label(b, by), Config: k.config,
					CrossAnalysis: CompareAlong(pointsOf(a, b), opt)})
			}
		}
	}
	return out
}

func label(sr *series, by string) string {
	if by == "config" {
		return sr.name + " config=" + sr.config
	}
	return sr.name
}

// Points pairs the samples of two series at their common axis values.
func pointsOf(a, b *series) []AxisPoint {
	var pts []AxisPoint
	for i, x := range a.xs {
		for j, y := range b.xs {
			if x == y {
				pts = append(pts, AxisPoint{X: x, A: a.samples[i].Values, B: b.samples[j].Values, RA: a.samples[i].ByRound(), RB: b.samples[j].ByRound()})
			}
		}
	}
	return pts
}

// Along returns the points of two sample sets along an axis: for every axis
// value present in both, the values of a and b. Claims use it to test a
// crossover between two selected series.
func Along(a, b []*Sample, axis string) []AxisPoint {
	sa, sb := seriesAlong(a, axis), seriesAlong(b, axis)
	if len(sa) != 1 || len(sb) != 1 {
		return nil
	}
	return pointsOf(sa[0], sb[0])
}
