package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
)

// ChangePoint is where a series' distribution changes (E-divisive means):
// Index is the first point of the new segment.
type ChangePoint struct {
	Index  int     `json:"index"`
	Before float64 `json:"before"` // median of the segment before
	After  float64 `json:"after"`  // median of the segment after
	Q      float64 `json:"q"`      // the E-divisive statistic
	P      float64 `json:"p"`      // permutation-test p-value
	// The segment on each side, as point indexes [From, To).
	BeforeFrom, BeforeTo int `json:"-"`
	AfterFrom, AfterTo   int `json:"-"`
}

// EDivisiveOptions tunes [EDivisive].
type EDivisiveOptions struct {
	Alpha        float64 // significance of the permutation test; default 0.05
	Permutations int     // per test; default 199
	MinSize      int     // smallest segment; default 3
	Seed         uint64  // permutation seed; default 1 (results are reproducible)
}

// WithDefaults returns the options with every unset field at its default.
func (o EDivisiveOptions) WithDefaults() EDivisiveOptions {
	if !(o.Alpha > 0 && o.Alpha < 1) {
		o.Alpha = 0.05
	}
	if o.Permutations <= 0 {
		o.Permutations = 199
	}
	if o.MinSize < 2 {
		o.MinSize = 3
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	return o
}

// EDivisive finds change points in xs by E-divisive means (Matteson and
// James, 2014; exponent 1, the method MongoDB's performance signal
// processing uses): it repeatedly splits the segment whose best split has
// the largest energy statistic q̂, and keeps the split when a permutation
// test (the values permuted within each current segment) finds q̂
// significant at Alpha. It stops at the first split that is not
// significant. Non-finite values are ignored for the statistic but keep
// their places. Change points are returned in order of Index.
func EDivisive(xs []float64, opt EDivisiveOptions) []ChangePoint {
	opt = opt.WithDefaults()
	// Work on the finite values; map indexes back at the end.
	var vals []float64
	var at []int
	for i, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			vals = append(vals, x)
			at = append(at, i)
		}
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x9e3779b97f4a7c15))
	bounds := []int{0, len(vals)} // segment edges, sorted
	type found struct{ p, q float64 }
	cuts := map[int]found{}
	for {
		best, bestQ := -1, 0.0
		for si := 0; si+1 < len(bounds); si++ {
			tau, q := bestSplit(vals[bounds[si]:bounds[si+1]], opt.MinSize)
			if tau >= 0 && q > bestQ {
				best, bestQ = bounds[si]+tau, q
			}
		}
		if best < 0 {
			break
		}
		// Permutation test: shuffle within every current segment and
		// take the largest statistic over all of them.
		exceed := 0
		perm := slices.Clone(vals)
		for r := 0; r < opt.Permutations; r++ {
			maxQ := 0.0
			for si := 0; si+1 < len(bounds); si++ {
				seg := perm[bounds[si]:bounds[si+1]]
				rng.Shuffle(len(seg), func(i, j int) { seg[i], seg[j] = seg[j], seg[i] })
				if _, q := bestSplit(seg, opt.MinSize); q > maxQ {
					maxQ = q
				}
			}
			if maxQ >= bestQ {
				exceed++
			}
		}
		p := float64(exceed+1) / float64(opt.Permutations+1)
		if p >= opt.Alpha {
			break
		}
		cuts[best] = found{p, bestQ}
		bounds = append(bounds, best)
		slices.Sort(bounds)
	}
	out := []ChangePoint{}
	for bi := 1; bi+1 < len(bounds); bi++ {
		c := bounds[bi]
		prev, next := bounds[bi-1], bounds[bi+1]
		cp := ChangePoint{
			Index:  at[c],
			Before: Median(vals[prev:c]),
			After:  Median(vals[c:next]),
			Q:      cuts[c].q,
			P:      cuts[c].p,
		}
		cp.BeforeFrom, cp.BeforeTo = at[prev], at[c]
		cp.AfterFrom, cp.AfterTo = at[c], len(xs)
		if next < len(vals) {
			cp.AfterTo = at[next]
		}
		out = append(out, cp)
	}
	return out
}

// bestSplit returns the split τ of z (the first index of the second part,
// each part at least minSize long) that maximises the E-divisive
// statistic
//
//	q̂(τ) = τ(n−τ)/n · [ 2/(τ(n−τ)) Σ|xᵢ−yⱼ| − 1/C(τ,2) Σ|xᵢ−xₖ| − 1/C(n−τ,2) Σ|yⱼ−yₖ| ]
//
// and that maximum; τ is −1 when z is too short to split. It runs in
// O(n²) by updating the three sums as τ moves.
func bestSplit(z []float64, minSize int) (int, float64) {
	n := len(z)
	if n < 2*minSize {
		return -1, 0
	}
	// Start with τ = 0: every pair is within the right part.
	var within, left, between float64
	for j := 0; j < n; j++ {
		for k := j + 1; k < n; k++ {
			within += math.Abs(z[j] - z[k])
		}
	}
	best, bestQ := -1, math.Inf(-1)
	for tau := 1; tau <= n-minSize; tau++ {
		// Move point t = tau−1 from the right part to the left one.
		t := tau - 1
		var toLeft, toRight float64
		for i := 0; i < t; i++ {
			toLeft += math.Abs(z[i] - z[t])
		}
		for k := t + 1; k < n; k++ {
			toRight += math.Abs(z[t] - z[k])
		}
		left += toLeft
		within -= toRight
		between += toRight - toLeft
		if tau < minSize {
			continue
		}
		a, b := float64(tau), float64(n-tau)
		e := 2/(a*b)*between - left/(a*(a-1)/2) - within/(b*(b-1)/2)
		q := a * b / float64(n) * e
		if q > bestQ {
			best, bestQ = tau, q
		}
	}
	if best < 0 {
		return -1, 0
	}
	return best, bestQ
}
