package analysis

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"
)

// crossLines returns points at xs whose A and B samples are fa(x) and
// fb(x) plus seeded uniform noise in [−noise, +noise], n samples each.
func crossLines(xs []float64, n int, noise float64, seed uint64, fa, fb func(float64) float64) []AxisPoint {
	r := rand.New(rand.NewPCG(seed, 2))
	pts := make([]AxisPoint, len(xs))
	for i, x := range xs {
		pts[i] = AxisPoint{X: x, A: make([]float64, n), B: make([]float64, n)}
		for j := 0; j < n; j++ {
			pts[i].A[j] = fa(x) + noise*(2*r.Float64()-1)
			pts[i].B[j] = fb(x) + noise*(2*r.Float64()-1)
		}
	}
	return pts
}

// crossSteady returns n samples spread evenly over [c−0.5, c+0.5].
func crossSteady(c float64, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = c - 0.5 + float64(i)/float64(n-1)
	}
	return s
}

// crossFixed returns points whose 6 samples a side are fa(x), fb(x)
// spread deterministically by ±0.5.
func crossFixed(xs []float64, fa, fb func(float64) float64) []AxisPoint {
	return crossFixedN(xs, 6, fa, fb)
}

// crossFixedN is crossFixed with n samples a side.
func crossFixedN(xs []float64, n int, fa, fb func(float64) float64) []AxisPoint {
	pts := make([]AxisPoint, len(xs))
	for i, x := range xs {
		pts[i] = AxisPoint{X: x, A: crossSteady(fa(x), n), B: crossSteady(fb(x), n)}
	}
	return pts
}

func crossAxis(lo, hi, step float64) []float64 {
	var xs []float64
	for x := lo; x <= hi; x += step {
		xs = append(xs, x)
	}
	return xs
}

// crossWant is what a test expects of one crossover; a zero tolerance
// means exact.
type crossWant struct {
	x, xTol       float64
	lo, hi        float64
	sigLo, sigHi  float64
	before, after int
}

func TestCompareAlongCrossovers(t *testing.T) {
	axis := crossAxis(0, 100, 10)
	overlap := func(shift float64) ([]float64, []float64) {
		// Interleaved samples: the U test finds no difference, while
		// the medians differ by shift.
		a := []float64{10, 12, 14, 16, 18, 20}
		b := make([]float64, len(a))
		for i := range a {
			b[i] = a[i] - shift
		}
		return a, b
	}
	gapA1, gapB1 := overlap(-1) // A lower by 1, not significant
	gapA2, gapB2 := overlap(+1) // A higher by 1, not significant
	tests := []struct {
		name  string
		pts   []AxisPoint
		alpha float64
		want  []crossWant
	}{
		{"noisy lines crossing at 37.5",
			crossLines(axis, 8, 1, 1, func(x float64) float64 { return 50 + x }, func(x float64) float64 { return 12.5 + 2*x }),
			0.05,
			[]crossWant{{x: 37.5, xTol: 5.5, lo: 30, hi: 40, sigLo: 30, sigHi: 40, before: +1, after: -1}}},
		{"noise-free lines crossing at a sampled point",
			crossFixed(axis, func(x float64) float64 { return x }, func(x float64) float64 { return 100 - x }),
			0.05,
			[]crossWant{{x: 50, lo: 40, hi: 50, sigLo: 40, sigHi: 60, before: -1, after: +1}}},
		{"never cross",
			crossLines(axis, 8, 1, 2, func(x float64) float64 { return 10 + x }, func(x float64) float64 { return 20 + 2*x }),
			0.05, nil},
		{"equal within noise",
			crossLines(axis, 8, 5, 3, func(x float64) float64 { return 100 + x }, func(x float64) float64 { return 100 + x }),
			0.05, nil},
		// Six samples a side: the U test's smallest p lets each sequence
		// spread its α over every pair, so the middle stretch is reached.
		{"double crossing",
			crossFixed(axis, func(x float64) float64 { return (x - 30) * (x - 70) / 10 }, func(float64) float64 { return 0 }),
			0.05,
			[]crossWant{
				{x: 30, lo: 20, hi: 30, sigLo: 20, sigHi: 40, before: +1, after: -1},
				{x: 70, lo: 60, hi: 70, sigLo: 60, sigHi: 80, before: -1, after: +1},
			}},
		// Four samples a side: only the pair at each end can reach α, the
		// sequences stop at the ends' sign, and the middle stretch is
		// never reached.
		{"double crossing out of reach",
			crossFixedN(axis, 4, func(x float64) float64 { return (x - 30) * (x - 70) / 10 }, func(float64) float64 { return 0 }),
			0.05, nil},
		{"gap of non-significant points",
			[]AxisPoint{
				{X: 1, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 2, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 3, A: gapA1, B: gapB1},
				{X: 4, A: gapA1, B: gapB1},
				{X: 5, A: gapA2, B: gapB2},
				{X: 6, A: crossSteady(30, 6), B: crossSteady(20, 6)},
				{X: 7, A: crossSteady(30, 6), B: crossSteady(20, 6)},
			},
			0.05,
			// Median differences −1 at x=4 and +1 at x=5: zero at 4.5.
			[]crossWant{{x: 4.5, lo: 4, hi: 5, sigLo: 2, sigHi: 6, before: -1, after: +1}}},
		{"one decided point on a side is not a side",
			[]AxisPoint{
				{X: 1, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 2, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 3, A: gapA1, B: gapB1},
				{X: 4, A: gapA2, B: gapB2},
				{X: 5, A: crossSteady(30, 6), B: crossSteady(20, 6)},
			},
			0.05, nil},
		{"one point of the other sign cannot make a crossover",
			[]AxisPoint{
				{X: 1, A: crossSteady(30, 6), B: crossSteady(20, 6)},
				{X: 2, A: crossSteady(30, 6), B: crossSteady(20, 6)},
				{X: 3, A: gapA2, B: gapB2},
				{X: 4, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 5, A: gapA2, B: gapB2},
				{X: 6, A: crossSteady(30, 6), B: crossSteady(20, 6)},
				{X: 7, A: crossSteady(30, 6), B: crossSteady(20, 6)},
			},
			0.05, nil},
		{"unsorted points",
			[]AxisPoint{
				{X: 30, A: crossSteady(40, 6), B: crossSteady(20, 6)},
				{X: 10, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 20, A: crossSteady(25, 6), B: crossSteady(20, 6)},
				{X: 5, A: crossSteady(8, 6), B: crossSteady(20, 6)},
			},
			0.05,
			// Differences −10 at 10 and +5 at 20: zero at 10 + 10·10/15.
			[]crossWant{{x: 10 + 100.0/15, xTol: 1e-9, lo: 10, hi: 20, sigLo: 10, sigHi: 20, before: -1, after: +1}}},
		{"three points decide point by point",
			[]AxisPoint{
				{X: 30, A: crossSteady(40, 6), B: crossSteady(20, 6)},
				{X: 10, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 20, A: crossSteady(25, 6), B: crossSteady(20, 6)},
			},
			0.05,
			[]crossWant{{x: 10 + 100.0/15, xTol: 1e-9, lo: 10, hi: 20, sigLo: 10, sigHi: 20, before: -1, after: +1}}},
		{"unusable points ignored",
			[]AxisPoint{
				{X: 0.5, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 1, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: math.NaN(), A: crossSteady(99, 6), B: crossSteady(1, 6)},
				{X: 1.5, A: nil, B: crossSteady(1, 6)},
				{X: 1.7, A: []float64{math.NaN(), math.Inf(1)}, B: crossSteady(1, 6)},
				{X: 2, A: append(crossSteady(30, 6), math.NaN()), B: crossSteady(20, 6)},
				{X: 3, A: crossSteady(30, 6), B: crossSteady(20, 6)},
			},
			0.05,
			[]crossWant{{x: 1.5, xTol: 1e-9, lo: 1, hi: 2, sigLo: 1, sigHi: 2, before: -1, after: +1}}},
		{"alpha too strict for 6 samples",
			crossFixed(axis, func(x float64) float64 { return x }, func(x float64) float64 { return 100 - x }),
			0.001, nil},
		{"invalid alpha means 0.05",
			crossFixed(axis, func(x float64) float64 { return x }, func(x float64) float64 { return 100 - x }),
			0,
			[]crossWant{{x: 50, lo: 40, hi: 50, sigLo: 40, sigHi: 60, before: -1, after: +1}}},
		{"no points", nil, 0.05, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CompareAlong(tt.pts, Options{Alpha: tt.alpha, Confidence: 0.95}).Crossovers
			if got == nil {
				t.Fatal("CompareAlong returned nil crossovers, want a non-nil slice")
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d crossovers, want %d: %+v", len(got), len(tt.want), got)
			}
			for i, w := range tt.want {
				c := got[i]
				if math.Abs(c.X-w.x) > w.xTol || c.Lo != w.lo || c.Hi != w.hi || c.SigLo != w.sigLo ||
					c.SigHi != w.sigHi || c.Before != w.before || c.After != w.after {
					t.Errorf("crossover %d = %+v, want %+v", i, c, w)
				}
				crossCheckInvariants(t, c, tt.alpha)
			}
		})
	}
}

// TestCrossoverAdjustedP checks the decision rule on U-test p-values.
// Six points, A lower on the first three, higher on the last three, the
// middle point of each side with one pair of samples out of order (a
// larger p). With six samples a side each sequence spreads α/2 over all
// k = 5 pairs, and every pair of one sign holds an overlapping point, so
// each point is decided at any α above k times that point's two-sided p
// (a one-sided p of half that against a level of α/(2k)): that is its
// PAdj, PBefore and PAfter are those of the bracket, and a point is
// decided exactly when PAdj < α.
func TestCrossoverAdjustedP(t *testing.T) {
	const alpha = 0.05
	a0, b0 := []float64{3, 1, 2, 6, 5, 4}, []float64{11, 12, 10, 15, 13, 14}
	a1, b1 := []float64{1, 2, 3, 4, 5, 7}, []float64{6, 8, 9, 10, 11, 12} // A lower, one pair out of order: a larger p
	pts := []AxisPoint{
		{X: 1, A: a0, B: b0},
		{X: 2, A: a1, B: b1},
		{X: 3, A: a0, B: b0},
		{X: 4, A: b0, B: a0},
		{X: 5, A: b1, B: a1},
		{X: 6, A: b0, B: a0},
	}
	raw := make([]float64, len(pts))
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	for i, pt := range pts {
		a := benchmath.NewSample(slices.Clone(pt.A), th)
		b := benchmath.NewSample(slices.Clone(pt.B), th)
		raw[i] = benchmath.AssumeNothing.Compare(a, b).P
	}
	const k = 5
	if got := crossSpread(alpha, crossStepP(pts[0], false, DefaultOptions()), len(pts)-1); got != k {
		t.Fatalf("spread over %d pairs, want %d (every pair)", got, k)
	}
	if !(raw[1] > raw[0] && k*raw[1] < alpha) {
		t.Fatalf("test data: want the overlapping point's p above the others' and %d times it below α: %v", k, raw)
	}
	want := k * raw[1]
	an := CompareAlong(pts, Options{Alpha: alpha, Confidence: 0.95})
	if an.Paired || an.Correction != CrossCorrection || len(an.Crossovers) != 1 {
		t.Fatalf("got %d crossovers (paired %v, correction %q), want 1, unpaired, %s: %+v", len(an.Crossovers), an.Paired, an.Correction, CrossCorrection, an.Crossovers)
	}
	for i, p := range an.Points {
		if p.P != raw[i] || math.Abs(p.PAdj-want) > 1e-12 || (p.Sign != 0) != (p.PAdj < alpha) {
			t.Errorf("point %g: P %g, PAdj %g, sign %d; want P %g, PAdj %g, decided when PAdj < α", p.X, p.P, p.PAdj, p.Sign, raw[i], want)
		}
	}
	c := an.Crossovers[0]
	if c.PBefore != an.Points[2].PAdj || c.PAfter != an.Points[3].PAdj || c.SigLo != 3 || c.SigHi != 4 || c.LowerBelow != "a" || c.LowerAbove != "b" {
		t.Errorf("crossover %+v: want bracket [3, 4], PBefore and PAfter its points' PAdj, A lower below, B lower above", c)
	}
	// Just below PAdj, no pair passes: nothing is decided and nothing
	// crosses.
	strict := CompareAlong(pts, Options{Alpha: want * (1 - 1e-6), Confidence: 0.95})
	if len(strict.Crossovers) != 0 {
		t.Errorf("α just below PAdj: got %+v, want no crossover", strict.Crossovers)
	}
	for _, p := range strict.Points {
		if p.Sign != 0 {
			t.Errorf("α just below PAdj: point %g decided (%+v), want none", p.X, p)
		}
	}
}

// TestCrossoverSpread checks, for paired and unpaired points of 2 to 24
// rounds or samples, that a step's p-value (crossStepP) is one the test
// reaches at or below α/2 whenever the test can reach α/2 at all, and
// that the spread k keeps α/(2k) above it with no room for one more pair.
func TestCrossoverSpread(t *testing.T) {
	opt := DefaultOptions()
	for n := 2; n <= 24; n++ {
		pt := AxisPoint{RA: map[int]float64{}, RB: map[int]float64{}}
		for r := 1; r <= n; r++ {
			pt.RA[r], pt.RB[r] = 2, 1
			pt.A, pt.B = append(pt.A, float64(r)), append(pt.B, float64(r+n))
		}
		for _, paired := range []bool{true, false} {
			step := crossStepP(pt, paired, opt)
			var reach float64 // the smallest one-sided p the test gives
			if paired {
				d := make([]float64, n)
				for i := range d {
					d[i] = 1 + float64(i)
				}
				reach = opt.PairedLogs(d).P / 2
			} else {
				reach = Compare(pt.A, pt.B, opt) / 2
			}
			if step < reach || reach <= opt.Alpha/2 && step > opt.Alpha/2 {
				t.Errorf("n %d, paired %v: step p %g, smallest p %g; want step between the smallest p and α/2", n, paired, step, reach)
			}
			for _, pairs := range []int{1, 10, 100} {
				k := crossSpread(opt.Alpha, step, pairs)
				if k < 1 || k > pairs || step <= opt.Alpha/2 && !(opt.Alpha/float64(2*k) > step) || k < pairs && opt.Alpha/float64(2*(k+1)) > step {
					t.Errorf("n %d, paired %v, %d pairs: k %d for step p %g", n, paired, pairs, k, step)
				}
			}
		}
	}
}

// TestCompareAlongKeepsInput checks that the caller's samples are not
// sorted or otherwise changed.
func TestCompareAlongKeepsInput(t *testing.T) {
	pts := []AxisPoint{
		{X: 2, A: []float64{30, 31, 29, 32, 28, 33}, B: []float64{20, 21, 19, 22, 18, 23}},
		{X: 1, A: []float64{10, 11, 9, 12, 8, 13}, B: []float64{20, 21, 19, 22, 18, 23}},
		{X: 3, A: []float64{30, 31, 29, 32, 28, 33}, B: []float64{20, 21, 19, 22, 18, 23}},
		{X: 0, A: []float64{10, 11, 9, 12, 8, 13}, B: []float64{20, 21, 19, 22, 18, 23}},
	}
	before := make([]AxisPoint, len(pts))
	for i, p := range pts {
		before[i] = AxisPoint{X: p.X, A: slices.Clone(p.A), B: slices.Clone(p.B)}
	}
	if got := CompareAlong(pts, DefaultOptions()).Crossovers; len(got) != 1 {
		t.Fatalf("got %d crossovers, want 1", len(got))
	}
	for i := range pts {
		if pts[i].X != before[i].X || !slices.Equal(pts[i].A, before[i].A) || !slices.Equal(pts[i].B, before[i].B) {
			t.Errorf("point %d changed: %+v, was %+v", i, pts[i], before[i])
		}
	}
}

// crossCheckInvariants checks what must hold for any crossover.
func crossCheckInvariants(t *testing.T, c Crossover, alpha float64) {
	t.Helper()
	if !(alpha > 0 && alpha < 1) {
		alpha = 0.05
	}
	if !(c.SigLo <= c.Lo && c.Lo <= c.X && c.X <= c.Hi && c.Hi <= c.SigHi) {
		t.Errorf("want SigLo ≤ Lo ≤ X ≤ Hi ≤ SigHi: %+v", c)
	}
	if c.Before == 0 || c.After != -c.Before {
		t.Errorf("want opposite non-zero signs: %+v", c)
	}
	if c.LowerBelow != crossLower(c.Before) || c.LowerAbove != crossLower(c.After) || c.LowerBelow == c.LowerAbove {
		t.Errorf("want the lower series named on each side (a where A − B < 0): %+v", c)
	}
	if !(c.PBefore < alpha && c.PAfter < alpha) {
		t.Errorf("want p-values below alpha %g: %+v", alpha, c)
	}
	if !(c.XLo <= c.X && c.X <= c.XHi) || c.Resamples == 0 || !(c.Support >= 0 && c.Support <= 1) {
		t.Errorf("want XLo ≤ X ≤ XHi from resamples: %+v", c)
	}
	if _, err := json.Marshal(c); err != nil {
		t.Errorf("crossover does not encode as JSON: %v", err)
	}
}

// FuzzCompareAlong feeds arbitrary points (NaN, ±Inf, huge values,
// ties, empty samples) to CompareAlong and checks that it neither
// panics nor breaks its invariants.
func FuzzCompareAlong(f *testing.F) {
	enc := func(vs ...float64) []byte {
		b := make([]byte, 8*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(enc(1, 1, 2, 3, 10, 11, 12, 2, 20, 21, 22, 10, 11, 12), uint8(3), 0.2, false)
	f.Add(enc(1, 1, 2, 3, 4, 5, 6, 9, 8, 7, 6, 5, 4, 2, 1, 1, 1, 9, 9, 9), uint8(1), 0.05, true)
	f.Add(enc(math.NaN(), 1, math.Inf(1), -math.MaxFloat64, math.MaxFloat64, 0, 5e-324), uint8(2), 0.0, true)
	f.Add(enc(0, -math.MaxFloat64, -math.MaxFloat64, math.MaxFloat64, math.MaxFloat64,
		1, math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64, -math.MaxFloat64), uint8(2), 0.5, false)
	f.Add(enc(1, 3, 2, 1, 9, 8, 7, 2, 5, 6, 7, 9, 8, 1, 3, 1, 2, 3, 9, 9, 9), uint8(3), 0.05, true)
	f.Fuzz(func(t *testing.T, data []byte, per uint8, alpha float64, rounds bool) {
		n := int(per%8) + 1 // samples per side
		var vs []float64
		for i := 0; i+8 <= len(data); i += 8 {
			vs = append(vs, math.Float64frombits(binary.LittleEndian.Uint64(data[i:])))
		}
		var pts []AxisPoint
		for i := 0; i+1+2*n <= len(vs) && len(pts) < 50; i += 1 + 2*n {
			pt := AxisPoint{X: vs[i], A: vs[i+1 : i+1+n], B: vs[i+1+n : i+1+2*n]}
			if rounds {
				pt.RA, pt.RB = map[int]float64{}, map[int]float64{}
				for r := range n {
					pt.RA[r+1], pt.RB[r+1] = pt.A[r], pt.B[r]
				}
			}
			pts = append(pts, pt)
		}
		got := CompareAlong(pts, Options{Alpha: alpha, Confidence: 0.95}).Crossovers
		if got == nil {
			t.Fatal("nil result")
		}
		if len(got) > 1 {
			t.Errorf("got %d crossovers; the walks from the two ends give at most one: %+v", len(got), got)
		}
		for _, c := range got {
			crossCheckInvariants(t, c, alpha)
		}
	})
}

// noisyPair draws A and B along xs over rounds: per round a lognormal
// factor (σ = cv/2) that every cell of the round shares (drift within a
// round hits both, and the paired ratio cancels it), per sample the
// noise nz at coefficient of variation cv.
func noisyPair(xs []float64, fa, fb func(float64) float64, rounds int, cv float64, nz noise, rng *rand.Rand) []AxisPoint {
	pts := make([]AxisPoint, len(xs))
	for i, x := range xs {
		pts[i] = AxisPoint{X: x, RA: map[int]float64{}, RB: map[int]float64{}}
	}
	for r := 1; r <= rounds; r++ {
		rf := math.Exp(rng.NormFloat64() * cv / 2)
		for i, x := range xs {
			a, b := fa(x)*rf*nz.factor(cv, rng), fb(x)*rf*nz.factor(cv, rng)
			pts[i].A, pts[i].B = append(pts[i].A, a), append(pts[i].B, b)
			pts[i].RA[r], pts[i].RB[r] = a, b
		}
	}
	return pts
}

// bhCrosses is the rule CompareAlong replaced, kept as the baseline the
// tests compare with: the points' p-values corrected by
// Benjamini–Hochberg at α, a crossover wherever two consecutive
// significant points have opposite signs. It reports whether any
// crossover exists and the sign of A − B below the first.
func bhCrosses(an CrossAnalysis) (bool, int) {
	ps := make([]float64, len(an.Points))
	for i, p := range an.Points {
		ps[i] = p.P
	}
	last := 0
	for i, q := range BH(ps) {
		if q >= an.Alpha {
			continue
		}
		s := crossSign(math.Log(an.Points[i].Ratio))
		if last != 0 && s != 0 && s != last {
			return true, last
		}
		if s != 0 {
			last = s
		}
	}
	return false, 0
}

// crossNoises are the noises the crossover simulations run under.
var crossNoises = []noise{gaussian, bursts5, bursts20}

// TestCrossoverNoSignChange: series whose difference never changes sign
// — A 6% slower on one half of the axis and equal on the other, A 2%, 4%
// or 6% slower throughout, identical series — with 11 and 21 points, 8
// rounds, CV 2%, 5% and 10%, Gaussian noise and one-sided bursts in 5%
// and 20% of samples: no crossover in any of 200 seeds per setting. The
// log compares the Benjamini–Hochberg rule this replaced on the same
// data.
func TestCrossoverNoSignChange(t *testing.T) {
	seeds := 200
	if testing.Short() {
		seeds = 40
	}
	type shape struct {
		name  string
		ratio func(x, mid float64) float64 // A/B
	}
	shapes := []shape{
		{"A 6% slower above the middle, equal below", func(x, mid float64) float64 {
			if x > mid {
				return 1.06
			}
			return 1
		}},
		{"A 6% slower below the middle, equal above", func(x, mid float64) float64 {
			if x < mid {
				return 1.06
			}
			return 1
		}},
		{"A 2% slower throughout", func(float64, float64) float64 { return 1.02 }},
		{"A 4% slower throughout", func(float64, float64) float64 { return 1.04 }},
		{"A 6% slower throughout", func(float64, float64) float64 { return 1.06 }},
		{"identical", func(float64, float64) float64 { return 1 }},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-42s %3s %4s %-10s  %s\n", "series", "n", "CV", "noise", "crossovers (Benjamini–Hochberg before → now)")
	totalBH := 0
	for si, sh := range shapes {
		for _, n := range []int{11, 21} {
			xs := crossAxis(0, float64(n-1), 1)
			mid := float64(n-1) / 2
			for _, cv := range []float64{0.02, 0.05, 0.1} {
				for ni, nz := range crossNoises {
					rng := rand.New(rand.NewPCG(uint64(si*100+n), uint64(cv*1000)+uint64(ni)<<16))
					crossed, bh := 0, 0
					for s := 0; s < seeds; s++ {
						fb := func(x float64) float64 { return 100 + 3*x }
						fa := func(x float64) float64 { return fb(x) * sh.ratio(x, mid) }
						an := CompareAlong(noisyPair(xs, fa, fb, 8, cv, nz, rng), DefaultOptions())
						if !an.Paired {
							t.Fatal("rounds given, but the comparison is not paired")
						}
						if len(an.Crossovers) > 0 {
							crossed++
						}
						if c, _ := bhCrosses(an); c {
							bh++
						}
					}
					totalBH += bh
					fmt.Fprintf(&table, "%-42s %3d %3.0f%% %-10s  %3d → %d of %d\n", sh.name, n, 100*cv, nz.name, bh, crossed, seeds)
					if crossed > 0 {
						t.Errorf("%s, %d points, CV %.0f%%, %s: a crossover in %d of %d seeds, want none", sh.name, n, 100*cv, nz.name, crossed, seeds)
					}
				}
			}
		}
	}
	t.Logf("no sign change, 8 rounds, %d seeds per setting (Benjamini–Hochberg found %d in all):\n%s", seeds, totalBH, table.String())
}

// TestCrossoverPlanted: A/B = exp(g·(x − x*)), A faster below x* and
// slower above, ±20% or ±35% at the ends of the axis, x* between sampled
// points at 30%…70% of the axis; 11 and 21 points, CV 2%, 5% and 10%,
// Gaussian noise and one-sided bursts, 8 and 16 rounds (20 and 10 seeds
// per setting). Found means a
// crossover with A lower below it (Before −1, LowerBelow "a") whose
// bracket holds x*. The rates are logged per setting beside the rule this
// replaced; each (rounds, noise) rate over its settings has a floor, and
// the resampling interval holds x* in at least 90% of those found.
func TestCrossoverPlanted(t *testing.T) {
	seedsAt := map[int]int{8: 20, 16: 10} // the longer rounds cost more to resample
	if testing.Short() {
		seedsAt = map[int]int{8: 5, 16: 3}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%6s %4s %3s %4s %-10s  %s\n", "rounds", "ends", "n", "CV", "noise", "found with the right direction (Benjamini–Hochberg before → now)")
	floor := map[int]map[string]float64{
		8:  {gaussian.name: 0.55, bursts5.name: 0.3, bursts20.name: 0},
		16: {gaussian.name: 0.75, bursts5.name: 0.55, bursts20.name: 0.05},
	}
	inBracket, inInterval := 0, 0
	for _, rounds := range []int{8, 16} {
		seeds := seedsAt[rounds]
		for ni, nz := range crossNoises {
			found, foundBH, total := 0, 0, 0
			for _, end := range []float64{1.2, 1.35} {
				for _, n := range []int{11, 21} {
					xs := crossAxis(0, float64(n-1), 1)
					span := float64(n - 1)
					for _, cv := range []float64{0.02, 0.05, 0.1} {
						rng := rand.New(rand.NewPCG(uint64(n)+7, uint64(cv*1000)+uint64(ni)<<16+uint64(end*100)<<24+uint64(rounds)<<32))
						hit, hitBH := 0, 0
						for s := 0; s < seeds; s++ {
							star := span*(0.3+0.4*float64(s%5)/4) + 0.37
							g := math.Log(end) / (span / 2)
							fb := func(x float64) float64 { return 100 + 3*x }
							fa := func(x float64) float64 { return fb(x) * math.Exp(g*(x-star)) }
							an := CompareAlong(noisyPair(xs, fa, fb, rounds, cv, nz, rng), DefaultOptions())
							for _, c := range an.Crossovers {
								if c.SigLo <= star && star <= c.SigHi && c.Before == -1 && c.LowerBelow == "a" && c.LowerAbove == "b" {
									hit++
									inBracket++
									if c.XLo <= star && star <= c.XHi {
										inInterval++
									}
								}
							}
							if c, before := bhCrosses(an); c && before == -1 {
								hitBH++
							}
						}
						found += hit
						foundBH += hitBH
						total += seeds
						fmt.Fprintf(&table, "%6d ±%2.0f%% %3d %3.0f%% %-10s  %3d → %d of %d\n", rounds, 100*(end-1), n, 100*cv, nz.name, hitBH, hit, seeds)
					}
				}
			}
			t.Logf("%d rounds, %s: found in %d of %d (Benjamini–Hochberg: %d)", rounds, nz.name, found, total, foundBH)
			if f := floor[rounds][nz.name]; float64(found) < f*float64(total) || found == 0 && f > 0 {
				t.Errorf("%d rounds, %s: planted crossing found with its direction in %d of %d seeds, want at least %.0f%%", rounds, nz.name, found, total, 100*f)
			}
		}
	}
	t.Logf("planted crossings, %d seeds per setting at 8 rounds, %d at 16:\n%s", seedsAt[8], seedsAt[16], table.String())
	t.Logf("planted crossing inside the resampling interval in %d of %d found", inInterval, inBracket)
	if float64(inInterval) < 0.9*float64(inBracket) {
		t.Errorf("planted crossing inside the resampling interval in %d of %d found, want at least 90%%", inInterval, inBracket)
	}
}

// TestCrossoverPairedRemovesDrift: B is 5% above A in every round, while
// each round's drift moves both by ±15%: unpaired, the drift hides the
// difference; paired, every point is significant.
func TestCrossoverPairedRemovesDrift(t *testing.T) {
	xs := crossAxis(1, 11, 1)
	rng := rand.New(rand.NewPCG(5, 5))
	var pts []AxisPoint
	for _, x := range xs {
		pt := AxisPoint{X: x, RA: map[int]float64{}, RB: map[int]float64{}}
		for r := 1; r <= 8; r++ {
			drift := 1 + 0.15*(2*rng.Float64()-1)
			a, b := 100*drift, 105*drift*(1+0.002*rng.NormFloat64())
			pt.A, pt.B = append(pt.A, a), append(pt.B, b)
			pt.RA[r], pt.RB[r] = a, b
		}
		pts = append(pts, pt)
	}
	paired := CompareAlong(pts, DefaultOptions())
	for i := range pts {
		pts[i].RA, pts[i].RB = nil, nil
	}
	unpaired := CompareAlong(pts, DefaultOptions())
	count := func(an CrossAnalysis) (n int) {
		for _, p := range an.Points {
			if p.Sign == -1 {
				n++
			}
		}
		return n
	}
	if !paired.Paired || unpaired.Paired || count(paired) != len(xs) || count(unpaired) > 2 {
		t.Errorf("paired: %v, %d of %d points A<B; unpaired: %v, %d; want paired all, unpaired at most 2", paired.Paired, count(paired), len(xs), unpaired.Paired, count(unpaired))
	}
	p := paired.Points[0]
	if !(p.HasInterval && p.Lo < 1/1.05*1.01 && p.Hi > 1/1.05*0.99 && p.Hi < 1) {
		t.Errorf("paired point %+v: want a ratio interval around 1/1.05 below 1", p)
	}
}
