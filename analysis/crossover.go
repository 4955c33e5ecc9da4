package analysis

import (
	"math"
	"sort"

	"golang.org/x/perf/benchmath"
)

// AxisPoint holds the raw samples of two series, A and B, at one value
// of a numeric axis.
type AxisPoint struct {
	X float64
	// A and B are the samples of each series at X. A point is used
	// only when both hold at least one finite value.
	A, B []float64
}

// Crossover is a place along an axis where one series overtakes the
// other: a significant difference between A and B changes sign.
type Crossover struct {
	// X is the interpolated axis value where median(A) − median(B)
	// crosses zero.
	X float64 `json:"x"`
	// Lo and Hi are the adjacent sampled x values bracketing X
	// (Lo ≤ X ≤ Hi).
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// SigLo is the x of the last significant point before the
	// change, SigHi the x of the first significant point after it.
	SigLo float64 `json:"sig_lo"`
	SigHi float64 `json:"sig_hi"`
	// Before and After are the signs of A − B on each side: −1 when
	// A is lower (faster, for a time), +1 when A is higher.
	Before int `json:"before"`
	After  int `json:"after"`
	// PBefore and PAfter are the Mann-Whitney U p-values at SigLo
	// and SigHi.
	PBefore float64 `json:"p_before"`
	PAfter  float64 `json:"p_after"`
}

// crossObs is what FindCrossovers measures at one axis point.
type crossObs struct {
	x    float64
	diff float64 // median(A) − median(B)
	p    float64 // U-test p-value
	sign int     // sign of diff where significant, else 0
}

// FindCrossovers returns every place along the axis where a
// statistically significant difference between A and B changes sign.
// A point is significant when the Mann-Whitney U test
// (benchmath.AssumeNothing.Compare) gives p < alpha and the medians
// differ; its sign is that of median(A) − median(B). Points are sorted
// by X; points in between two significant ones are skipped when they
// are not significant themselves.
//
// Between SigLo and SigHi, the crossover is placed on the first pair of
// adjacent points whose median difference changes sign or reaches zero,
// with X interpolated linearly in the difference. Should the medians
// not change sign there (only significance does), X is the midpoint of
// SigLo and SigHi and Lo, Hi are SigLo, SigHi.
//
// Alpha must lie in (0, 1); any other value means 0.05. Points with a
// non-finite X or without finite samples on both sides are ignored, and
// the caller's slices are not modified. The result is empty, not nil,
// when there is no crossover.
func FindCrossovers(pts []AxisPoint, alpha float64) []Crossover {
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.05
	}
	obs := crossObserve(pts, alpha)
	out := []Crossover{}
	last := -1 // index of the last significant point
	for i, o := range obs {
		if o.sign == 0 {
			continue
		}
		if last >= 0 && o.sign != obs[last].sign {
			out = append(out, crossBetween(obs, last, i))
		}
		last = i
	}
	return out
}

// crossObserve measures every usable point, sorted by X.
func crossObserve(pts []AxisPoint, alpha float64) []crossObs {
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	var obs []crossObs
	for _, pt := range pts {
		a, b := crossFinite(pt.A), crossFinite(pt.B)
		if math.IsNaN(pt.X) || math.IsInf(pt.X, 0) || len(a) == 0 || len(b) == 0 {
			continue
		}
		sa, sb := benchmath.NewSample(a, th), benchmath.NewSample(b, th)
		o := crossObs{
			x:    pt.X,
			diff: benchmath.AssumeNothing.Summary(sa, 0.95).Center - benchmath.AssumeNothing.Summary(sb, 0.95).Center,
			p:    benchmath.AssumeNothing.Compare(sa, sb).P,
		}
		if o.p < alpha {
			o.sign = crossSign(o.diff)
		}
		obs = append(obs, o)
	}
	sort.SliceStable(obs, func(i, j int) bool { return obs[i].x < obs[j].x })
	return obs
}

// crossBetween builds the crossover between the significant points lo
// and hi, whose signs differ.
func crossBetween(obs []crossObs, lo, hi int) Crossover {
	c := Crossover{
		SigLo: obs[lo].x, SigHi: obs[hi].x,
		Before: obs[lo].sign, After: obs[hi].sign,
		PBefore: obs[lo].p, PAfter: obs[hi].p,
		Lo: obs[lo].x, Hi: obs[hi].x,
		X: obs[lo].x/2 + obs[hi].x/2,
	}
	for j := lo; j < hi; j++ {
		d0, d1 := obs[j].diff, obs[j+1].diff
		if crossSign(d0) != c.Before || crossSign(d1) == c.Before {
			continue
		}
		c.Lo, c.Hi = obs[j].x, obs[j+1].x
		// d0 ≠ 0 and d1 is zero or of the other sign, so the fraction
		// lies in (0, 1]; it is NaN only when both differences are
		// infinite. Weighting the ends cannot overflow.
		f := d0 / (d0 - d1)
		if math.IsNaN(f) {
			f = 0.5
		}
		c.X = math.Min(math.Max(c.Lo*(1-f)+c.Hi*f, c.Lo), c.Hi)
		break
	}
	return c
}

// crossFinite returns a copy of the finite values of xs (benchmath
// sorts samples in place, and the caller's slices stay untouched).
func crossFinite(xs []float64) []float64 {
	out := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

// crossSign returns −1, 0 or +1 by the sign of d.
func crossSign(d float64) int {
	switch {
	case d < 0:
		return -1
	case d > 0:
		return 1
	}
	return 0
}
