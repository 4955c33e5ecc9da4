package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// AxisPoint holds the samples of two series, A and B, at one value of a
// numeric axis.
type AxisPoint struct {
	X float64
	// A and B are the samples of each series at X. A point is used
	// only when both hold at least one finite value.
	A, B []float64
	// RA and RB are the same values keyed by round ([Sample.ByRound]);
	// nil when the samples carry no rounds. When every point has both,
	// the series are compared round by round.
	RA, RB map[int]float64
}

// Multiple-comparison rule and tests, as stated in the output.
const (
	CrossCorrection = "per-sign fallback sequences"
	crossTestPaired = "sign test on per-round log-ratios (median estimate)"
	crossTestU      = "Mann-Whitney U (unpaired: the samples carry no rounds)"
	crossResamples  = 200
)

// CrossPoint is the comparison of A with B at one axis value.
type CrossPoint struct {
	X float64 `json:"x"`
	// Ratio is A/B: paired, exp of the median of the per-round
	// log-ratios ln A_r − ln B_r (Options.PairedLogs); unpaired, median(A)/median(B)
	// (0 when a median is not positive).
	Ratio float64 `json:"ratio"`
	// Lo and Hi bound Ratio: the paired interval (sign test) at the options'
	// confidence (paired, at least 6 rounds); equal to Ratio when
	// HasInterval is false.
	Lo          float64 `json:"lo"`
	Hi          float64 `json:"hi"`
	HasInterval bool    `json:"has_interval"`
	// N is the number of rounds paired (paired) or the smaller sample
	// (unpaired).
	N int `json:"n"`
	// P is the point's two-sided p-value (sign test or U test). PAdj
	// is the smallest α at which the rule of [CompareAlong]
	// (CrossCorrection) decides the point; 1 when none up to 1 does.
	P    float64 `json:"p"`
	PAdj float64 `json:"p_adj"`
	// Sign is +1 when A is decided higher than B (PAdj < alpha), −1
	// when decided lower, 0 when undecided.
	Sign int `json:"sign"`

	effect float64 // ln(A/B) estimate (paired) or median(A) − median(B)
}

// Crossover is a place along an axis where one series overtakes the
// other: a significant difference between A and B changes sign.
type Crossover struct {
	// X is where the estimated difference (the per-point ln(A/B),
	// paired; median(A) − median(B), unpaired) crosses zero, by linear
	// interpolation between the adjacent points Lo and Hi.
	X  float64 `json:"x"`
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// SigLo and SigHi are the bracket: the innermost decided points on
	// each side, with opposite signs (SigLo ≤ Lo ≤ X ≤ Hi ≤ SigHi).
	SigLo float64 `json:"sig_lo"`
	SigHi float64 `json:"sig_hi"`
	// Before and After are the signs of A − B below and above the
	// crossing (at SigLo and SigHi, and at every decided point on that
	// side): −1 when A is lower (faster, for a time), +1 when A is
	// higher. After == −Before.
	Before int `json:"before"`
	After  int `json:"after"`
	// LowerBelow and LowerAbove name the series with the lower value
	// below and above the crossing: "a" or "b". Where lower is better
	// (a time, bytes), LowerAbove is the series that wins past X.
	LowerBelow string `json:"lower_below"`
	LowerAbove string `json:"lower_above"`
	// PBefore and PAfter are the adjusted p-values (CrossPoint.PAdj) at
	// SigLo and SigHi.
	PBefore float64 `json:"p_before"`
	PAfter  float64 `json:"p_after"`
	// XLo and XHi bound X: the percentile interval ([Quantile]) of the
	// crossing over resamples of rounds (whole clusters of rounds drawn
	// with replacement, [Options.Clusters]; every point re-estimated, the
	// crossing nearest X located again), at the options' confidence,
	// widened to hold [Lo, Hi] (between two sampled points, the place
	// of the zero rests on linear interpolation, so the interval is
	// never narrower than that grid step; a percentile bootstrap over 8
	// rounds alone is too narrow). A resample without a crossing of
	// this direction puts it at the end of the axis it lies beyond, so
	// the interval widens rather than drops it.
	XLo float64 `json:"x_lo"`
	XHi float64 `json:"x_hi"`
	// Support is the share of the Resamples that had such a crossing.
	Support   float64 `json:"support"`
	Resamples int     `json:"resamples"`
	// Test and Correction state how significance was decided.
	Test       string `json:"test"`
	Correction string `json:"correction"`
}

// CrossAnalysis is the comparison of two series along an axis: every
// point and every crossover.
type CrossAnalysis struct {
	// Paired reports whether the points were compared round by round.
	Paired     bool    `json:"paired"`
	Test       string  `json:"test"`
	Correction string  `json:"correction"`
	Alpha      float64 `json:"alpha"`
	// Points are the usable points, sorted by X.
	Points     []CrossPoint `json:"points"`
	Crossovers []Crossover  `json:"crossovers"`
}

// CompareAlong compares series A with B at every point along an axis and
// finds where one overtakes the other.
//
// At each point, when every point carries rounds, the per-round
// log-ratios ln A_r − ln B_r are summarised by [Options.PairedLogs]
// (estimate, interval and two-sided p-value); otherwise the samples are
// compared by the Mann-Whitney U test.
//
// Which points are decided (CrossCorrection) controls the family-wise
// error within each sign: the statements "A < B here" form one family,
// "A > B here" another, and each family is tested at α, so a false
// decision of either sign has probability at most α whatever the number
// of points, and so has a crossover where the difference never changes
// sign (it needs a decision of the sign that is absent). Benjamini–
// Hochberg, which controlled the false discovery rate instead, let one
// false point of the other sign make a crossover.
//
// The unit of a decision is a pair of neighbouring points: "A < B at
// both" is rejected when both one-sided tests are (an intersection-union
// test, Berger 1982: the larger one-sided p-value, each half the
// two-sided p on the side of its estimate), so a side of a crossing is a
// stretch of the axis, never a single point. (An axis of fewer than four
// points, too short for two points on each side, decides point by
// point.) Each family runs two
// fallback sequences (Wiens 2003), α/2 each, over the pairs in order
// from one end of the axis inward (the ends, where two series that cross
// differ most, first): α/2 is spread evenly over the first k pairs, and
// a rejected pair passes its level on to the next. k is as large as
// keeps every step able to decide a pair whose rounds all agree but c,
// the c contrary ones the largest (rounds a burst hit), c as large as
// the test allows at α/2 alone, else all rounds agreeing (crossSpread):
// with 8 rounds and a sign test, all 8 must agree and k
// is 6; with 6 rounds k is 1, a fixed sequence from each end. A stretch
// more than k pairs from both ends is reached only through decided
// pairs, so two crossings that put the same series ahead at both ends
// may go unseen, and so does a crossing with fewer than two sampled
// points on a side.
//
// A crossover lies between consecutive decided points of opposite signs
// (the bracket SigLo, SigHi); X is where the estimated difference first
// changes sign there, interpolated linearly, and its interval comes from
// resampling whole clusters of rounds (a layout cluster, a machine's
// cluster; each round its own without clustering).
//
// Points with a non-finite X or without finite samples on both sides
// are ignored, and the caller's slices are not modified. Crossovers and
// Points are empty, not nil, when there are none.
func CompareAlong(pts []AxisPoint, opt Options) CrossAnalysis {
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		opt.Alpha = 0.05
	}
	if !(opt.Confidence > 0 && opt.Confidence < 1) {
		opt.Confidence = 0.95
	}
	use := make([]AxisPoint, 0, len(pts))
	paired := true
	for _, pt := range pts {
		a, b := crossFinite(pt.A), crossFinite(pt.B)
		if math.IsNaN(pt.X) || math.IsInf(pt.X, 0) || len(a) == 0 || len(b) == 0 {
			continue
		}
		pt.A, pt.B = a, b
		if pt.RA == nil || pt.RB == nil || len(LogRatios(pt.RA, pt.RB)) == 0 {
			paired = false
		}
		use = append(use, pt)
	}
	sort.SliceStable(use, func(i, j int) bool { return use[i].X < use[j].X })
	out := CrossAnalysis{Paired: paired && len(use) > 0, Correction: CrossCorrection, Alpha: opt.Alpha, Points: []CrossPoint{}, Crossovers: []Crossover{}}
	out.Test = crossTestU
	if out.Paired {
		out.Test = crossTestPaired
	}
	step := 0.0
	steps := map[[2]int]float64{} // by sample size: points mostly share one
	for _, pt := range use {
		out.Points = append(out.Points, crossPoint(pt, out.Paired, opt))
		size := [2]int{len(pt.A), len(pt.B)}
		if out.Paired {
			size = [2]int{len(opt.LogRatios(pt.RA, pt.RB))}
		}
		p, ok := steps[size]
		if !ok {
			p = crossStepP(pt, out.Paired, opt)
			steps[size] = p
		}
		step = math.Max(step, p)
	}
	u := crossUnit(len(use))
	crossDecide(out.Points, opt.Alpha, u, crossSpread(opt.Alpha, step, len(use)-u+1))
	last := -1 // index of the last significant point
	for i, p := range out.Points {
		if p.Sign == 0 {
			continue
		}
		if last >= 0 && p.Sign != out.Points[last].Sign {
			c := crossBetween(out.Points, last, i)
			c.Test, c.Correction = out.Test, out.Correction
			crossResample(&c, use, out.Points, out.Paired, opt)
			out.Crossovers = append(out.Crossovers, c)
		}
		last = i
	}
	return out
}

// crossUnit is how many neighbouring points a decision covers on an axis
// of n points: two, or one where the axis is too short (under four
// points) for two on each side of a crossing.
func crossUnit(n int) int {
	if n < 4 {
		return 1
	}
	return 2
}

// crossDecide sets every point's Sign (at level alpha) and PAdj by the
// rule of [CompareAlong]: units of u neighbouring points, each sequence
// spreading its α/2 over its first k units.
func crossDecide(pts []CrossPoint, alpha float64, u, k int) {
	for i := range pts {
		pts[i].PAdj = 1
		pts[i].Sign = 0
	}
	if len(pts) < 2 {
		return
	}
	// The decisions at level a grow with a, and change only where a
	// unit's p-value meets its level: at p·2k/j for j weights carried.
	var cands []float64
	for i := 0; i+u <= len(pts); i++ {
		for _, s := range []int{-1, 1} {
			p := crossPairP(pts, i, i+u-1, s)
			if p >= 0.5 {
				continue
			}
			for j := 1; j <= k; j++ {
				if c := p * float64(2*k) / float64(j); c < 1 {
					cands = append(cands, c)
				}
			}
		}
	}
	slices.Sort(cands)
	cands = slices.Compact(cands)
	left := len(pts)
	for _, c := range cands {
		signs := crossDecideAt(pts, c*(1+1e-9), u, k)
		for i, s := range signs {
			if s != 0 && pts[i].PAdj == 1 {
				pts[i].PAdj = c
				left--
			}
		}
		if left == 0 {
			break
		}
	}
	for i, s := range crossDecideAt(pts, alpha, u, k) {
		pts[i].Sign = s
	}
}

// crossDecideAt returns each point's decided sign at level alpha: four
// fallback sequences, one per sign and end of the axis, each over the
// units of u neighbouring points from its end inward, with α/2 spread
// evenly over its first k units; a rejected unit passes its level on to
// the next.
func crossDecideAt(pts []CrossPoint, alpha float64, u, k int) []int {
	n := len(pts)
	signs := make([]int, n)
	for _, s := range []int{-1, 1} {
		for _, fromRight := range []bool{false, true} {
			at := func(j int) int {
				if fromRight {
					return n - 1 - j
				}
				return j
			}
			carried := 0.0
			for j := 0; j+u <= n; j++ {
				level := carried
				if j < k {
					level += alpha / float64(2*k)
				}
				if crossPairP(pts, at(j), at(j+u-1), s) < level {
					signs[at(j)], signs[at(j+u-1)] = s, s
					carried = level
				} else {
					carried = 0
				}
			}
		}
	}
	return signs
}

// crossPairP is the p-value of "A − B has sign s at both points i and
// j" (an intersection-union test: the larger of the two one-sided
// p-values, each half the two-sided p on the side of its estimate); with
// i == j, that point's one-sided p-value.
func crossPairP(pts []CrossPoint, i, j, s int) float64 {
	one := func(p CrossPoint) float64 {
		if crossSign(p.effect) != s {
			return 1
		}
		return p.P / 2
	}
	return math.Max(one(pts[i]), one(pts[j]))
}

// crossSpread is k, the number of units from each end over which each
// sequence spreads its α/2: as many as keep every step's level α/(2k)
// above step, the p-value a step must be able to reach (crossStepP); at
// least 1, at most the units there are.
func crossSpread(alpha, step float64, pairs int) int {
	k := 1
	if step > 0 {
		k = int(math.Ceil(alpha/2/step)) - 1
	}
	return max(1, min(k, pairs))
}

// crossStepP is the one-sided p-value a step of the sequences must be
// able to reach: that of the point's test when all its rounds but c show
// the same sign and the c others the opposite sign at the largest
// magnitudes (one-sided bursts: a round a spell hit), c as large as
// keeps it at or below α/2; with c = 0 (every round agrees) when even
// one such round would leave it above α/2. Unpaired, the c largest of
// one sample lie above the other sample.
func crossStepP(pt AxisPoint, paired bool, opt Options) float64 {
	var p func(c int) float64
	var n int
	if paired {
		n = len(opt.LogRatios(pt.RA, pt.RB))
		d := make([]float64, n)
		p = func(c int) float64 {
			for i := range d {
				d[i] = 1 + float64(i)
				if i >= n-c {
					d[i] = -d[i]
				}
			}
			return opt.PairedLogs(d).P / 2
		}
	} else {
		na, nb := len(pt.A), len(pt.B)
		n = na
		a, b := make([]float64, na), make([]float64, nb)
		for i := range b {
			b[i] = float64(na + i)
		}
		p = func(c int) float64 {
			for i := range a {
				a[i] = float64(i)
				if i >= na-c {
					a[i] += float64(na + nb)
				}
			}
			return Compare(a, b, opt) / 2
		}
	}
	best := p(0)
	for c := 1; c < n; c++ {
		pc := p(c)
		if !(pc <= opt.Alpha/2) {
			break
		}
		best = pc
	}
	return best
}

// crossPoint compares A with B at one point.
func crossPoint(pt AxisPoint, paired bool, opt Options) CrossPoint {
	cp := CrossPoint{X: pt.X}
	if paired {
		d := opt.LogRatios(pt.RA, pt.RB)
		r := opt.PairedLogs(d)
		cp.Ratio, cp.N, cp.P = r.Ratio, r.N, r.P
		cp.effect = math.Log(r.Ratio)
		cp.Lo, cp.Hi, cp.HasInterval = r.Lo, r.Hi, r.HasInterval()
	} else {
		ma, mb := Median(pt.A), Median(pt.B)
		cp.effect = ma - mb
		if ma > 0 && mb > 0 {
			cp.Ratio = ma / mb
		}
		cp.N = min(len(pt.A), len(pt.B))
		cp.P = Compare(pt.A, pt.B, opt)
	}
	if !cp.HasInterval {
		cp.Lo, cp.Hi = cp.Ratio, cp.Ratio
	}
	if !kneeFinite(cp.effect) {
		cp.effect = 0
	}
	for _, p := range []*float64{&cp.Ratio, &cp.Lo, &cp.Hi} {
		*p = finiteOr0(*p)
	}
	return cp
}

// crossBetween builds the crossover between the significant points lo
// and hi, whose signs differ.
func crossBetween(pts []CrossPoint, lo, hi int) Crossover {
	c := Crossover{
		SigLo: pts[lo].X, SigHi: pts[hi].X,
		Before: pts[lo].Sign, After: pts[hi].Sign,
		LowerBelow: crossLower(pts[lo].Sign), LowerAbove: crossLower(pts[hi].Sign),
		PBefore: pts[lo].PAdj, PAfter: pts[hi].PAdj,
	}
	effects := make([]float64, len(pts))
	xs := make([]float64, len(pts))
	for i, p := range pts {
		effects[i], xs[i] = p.effect, p.X
	}
	x, l, h, ok := crossingIn(xs[lo:hi+1], effects[lo:hi+1], c.Before)
	if !ok {
		// The estimates do not change sign there (only significance
		// does): the middle of the bracket.
		x, l, h = pts[lo].X/2+pts[hi].X/2, pts[lo].X, pts[hi].X
	}
	c.X, c.Lo, c.Hi = x, l, h
	c.XLo, c.XHi = l, h
	return c
}

// crossLower names the lower series where A − B has the given sign.
func crossLower(sign int) string {
	if sign < 0 {
		return "a"
	}
	return "b"
}

// crossingIn finds the first pair of adjacent points where the effect
// leaves the sign before (reaching zero or the other sign) and returns
// the interpolated zero and the pair's x values.
func crossingIn(xs, effects []float64, before int) (x, lo, hi float64, ok bool) {
	for j := 0; j+1 < len(xs); j++ {
		d0, d1 := effects[j], effects[j+1]
		if crossSign(d0) != before || crossSign(d1) == before {
			continue
		}
		// d0 ≠ 0 and d1 is zero or of the other sign, so the fraction
		// lies in (0, 1]; weighting the ends cannot overflow.
		f := d0 / (d0 - d1)
		if math.IsNaN(f) {
			f = 0.5
		}
		return math.Min(math.Max(xs[j]*(1-f)+xs[j+1]*f, xs[j]), xs[j+1]), xs[j], xs[j+1], true
	}
	return 0, 0, 0, false
}

// crossResample sets the crossing's interval, Support and Resamples by
// resampling whole clusters of rounds (paired; [Options.Clusters], each
// round its own without clustering: every point re-estimated from the
// medians of the drawn clusters, as the points themselves are) or each
// point's samples (unpaired).
func crossResample(c *Crossover, use []AxisPoint, pts []CrossPoint, paired bool, opt Options) {
	rng := rand.New(rand.NewPCG(1, 0x63726f73))
	n := len(use)
	xs := make([]float64, n)
	for i, p := range pts {
		xs[i] = p.X
	}
	// byCluster[i][g] is point i's median log-ratio in cluster g; NaN
	// where the point has no round there.
	var byCluster [][]float64
	clusters := 0
	if paired {
		set := map[int]bool{}
		ds := make([]map[int]float64, n)
		for i, pt := range use {
			ds[i] = map[int]float64{}
			for r, a := range pt.RA {
				if b, ok := pt.RB[r]; ok && a > 0 && b > 0 {
					ds[i][r] = math.Log(a) - math.Log(b)
					set[r] = true
				}
			}
		}
		var rounds []int
		for r := range set {
			rounds = append(rounds, r)
		}
		slices.Sort(rounds)
		groups := opt.clusterGroups(rounds)
		clusters = len(groups)
		byCluster = make([][]float64, n)
		var cur []float64
		for i := range use {
			byCluster[i] = make([]float64, len(groups))
			for g, rs := range groups {
				cur = cur[:0]
				for _, r := range rs {
					if v, ok := ds[i][r]; ok {
						cur = append(cur, v)
					}
				}
				byCluster[i][g] = math.NaN()
				if s := sortedFinite(cur); len(s) > 0 {
					byCluster[i][g] = median(s)
				}
			}
		}
	}
	effects := make([]float64, n)
	var at []float64
	found := 0
	var buf, bufB []float64
	var draw []int
	for b := 0; b < crossResamples; b++ {
		if paired {
			draw = drawClusters(rng, clusters, draw)
			for i := range use {
				buf = buf[:0]
				for _, g := range draw {
					if v := byCluster[i][g]; !math.IsNaN(v) {
						buf = append(buf, v)
					}
				}
				effects[i] = pts[i].effect
				if len(buf) > 0 {
					// The point's own estimator, whatever it is.
					if e := math.Log(opt.PairedLogs(buf).Ratio); kneeFinite(e) {
						effects[i] = e
					}
				}
			}
		} else {
			for i, pt := range use {
				buf, bufB = buf[:0], bufB[:0]
				for range pt.A {
					buf = append(buf, pt.A[rng.IntN(len(pt.A))])
				}
				for range pt.B {
					bufB = append(bufB, pt.B[rng.IntN(len(pt.B))])
				}
				effects[i] = Median(buf) - Median(bufB)
			}
		}
		x, ok := crossNearest(xs, effects, c.Before, c.X)
		if ok {
			found++
		}
		at = append(at, x)
	}
	c.Resamples = len(at)
	c.Support = float64(found) / float64(len(at))
	a := (1 - opt.Confidence) / 2
	c.XLo, c.XHi = math.Min(Quantile(at, a), c.Lo), math.Max(Quantile(at, 1-a), c.Hi)
}

// crossNearest finds, in one resample, the crossing out of sign before
// that lies nearest to x0. Without one, it returns the end of the axis
// the crossing lies beyond: the first x when the effect has already left
// the sign before there, else the last.
func crossNearest(xs, effects []float64, before int, x0 float64) (float64, bool) {
	best, found := 0.0, false
	for j := 0; j+1 < len(xs); j++ {
		x, _, _, ok := crossingIn(xs[j:j+2], effects[j:j+2], before)
		if ok && (!found || math.Abs(x-x0) < math.Abs(best-x0)) {
			best, found = x, true
		}
	}
	if found {
		return best, true
	}
	if crossSign(effects[0]) != before {
		return xs[0], false
	}
	return xs[len(xs)-1], false
}

// crossFinite returns a copy of the finite values of xs (the caller's
// slices stay untouched).
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
