package analysis

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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

// crossFixed returns points whose samples are fa(x), fb(x) spread
// deterministically by ±0.5.
func crossFixed(xs []float64, fa, fb func(float64) float64) []AxisPoint {
	pts := make([]AxisPoint, len(xs))
	for i, x := range xs {
		pts[i] = AxisPoint{X: x, A: crossSteady(fa(x), 6), B: crossSteady(fb(x), 6)}
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

func TestFindCrossovers(t *testing.T) {
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
		{"double crossing",
			crossFixed(axis, func(x float64) float64 { return (x - 30) * (x - 70) / 10 }, func(float64) float64 { return 0 }),
			0.05,
			[]crossWant{
				{x: 30, lo: 20, hi: 30, sigLo: 20, sigHi: 40, before: +1, after: -1},
				{x: 70, lo: 60, hi: 70, sigLo: 60, sigHi: 80, before: -1, after: +1},
			}},
		{"gap of non-significant points",
			[]AxisPoint{
				{X: 1, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 2, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 3, A: gapA1, B: gapB1},
				{X: 4, A: gapA1, B: gapB1},
				{X: 5, A: gapA2, B: gapB2},
				{X: 6, A: crossSteady(30, 6), B: crossSteady(20, 6)},
			},
			0.05,
			// Median differences −1 at x=4 and +1 at x=5: zero at 4.5.
			[]crossWant{{x: 4.5, lo: 4, hi: 5, sigLo: 2, sigHi: 6, before: -1, after: +1}}},
		{"unsorted points",
			[]AxisPoint{
				{X: 30, A: crossSteady(40, 6), B: crossSteady(20, 6)},
				{X: 10, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: 20, A: crossSteady(25, 6), B: crossSteady(20, 6)},
			},
			0.05,
			// Differences −10 at 10 and +5 at 20: zero at 10 + 10·10/15.
			[]crossWant{{x: 10 + 100.0/15, xTol: 1e-9, lo: 10, hi: 20, sigLo: 10, sigHi: 20, before: -1, after: +1}}},
		{"unusable points ignored",
			[]AxisPoint{
				{X: 1, A: crossSteady(10, 6), B: crossSteady(20, 6)},
				{X: math.NaN(), A: crossSteady(99, 6), B: crossSteady(1, 6)},
				{X: 1.5, A: nil, B: crossSteady(1, 6)},
				{X: 1.7, A: []float64{math.NaN(), math.Inf(1)}, B: crossSteady(1, 6)},
				{X: 2, A: append(crossSteady(30, 6), math.NaN()), B: crossSteady(20, 6)},
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
			got := FindCrossovers(tt.pts, Options{Alpha: tt.alpha, Confidence: 0.95})
			if got == nil {
				t.Fatal("FindCrossovers returned nil, want a non-nil slice")
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

// TestFindCrossoversPValues checks that PBefore and PAfter are the U-test
// p-values benchmath gives at SigLo and SigHi, corrected by
// Benjamini–Hochberg across the points.
func TestFindCrossoversPValues(t *testing.T) {
	const alpha = 0.05
	pts := []AxisPoint{
		{X: 1, A: []float64{3, 1, 2, 6, 5, 4}, B: []float64{11, 12, 10, 15, 13, 14}},
		{X: 2, A: []float64{20, 22, 21, 15, 25, 24}, B: []float64{13, 11, 16, 14, 10, 9}},
	}
	raw := make([]float64, len(pts))
	th := &benchmath.Thresholds{CompareAlpha: alpha}
	for i, pt := range pts {
		a := benchmath.NewSample(slices.Clone(pt.A), th)
		b := benchmath.NewSample(slices.Clone(pt.B), th)
		raw[i] = benchmath.AssumeNothing.Compare(a, b).P
	}
	want := BH(raw)
	an := CompareAlong(pts, Options{Alpha: alpha, Confidence: 0.95})
	got := an.Crossovers
	if len(got) != 1 || an.Paired || an.Correction != CrossCorrection {
		t.Fatalf("got %d crossovers (paired %v, correction %q), want 1, unpaired, %s: %+v", len(got), an.Paired, an.Correction, CrossCorrection, got)
	}
	if got[0].PBefore != want[0] || got[0].PAfter != want[1] || an.Points[0].P != raw[0] {
		t.Errorf("PBefore, PAfter = %g, %g; want BH of benchmath's %g, %g: %g, %g", got[0].PBefore, got[0].PAfter, raw[0], raw[1], want[0], want[1])
	}
}

// TestFindCrossoversKeepsInput checks that the caller's samples are not
// sorted or otherwise changed.
func TestFindCrossoversKeepsInput(t *testing.T) {
	pts := []AxisPoint{
		{X: 2, A: []float64{30, 31, 29, 32, 28, 33}, B: []float64{20, 21, 19, 22, 18, 23}},
		{X: 1, A: []float64{10, 11, 9, 12, 8, 13}, B: []float64{20, 21, 19, 22, 18, 23}},
	}
	before := make([]AxisPoint, len(pts))
	for i, p := range pts {
		before[i] = AxisPoint{X: p.X, A: slices.Clone(p.A), B: slices.Clone(p.B)}
	}
	if got := FindCrossovers(pts, DefaultOptions()); len(got) != 1 {
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

// FuzzFindCrossovers feeds arbitrary points (NaN, ±Inf, huge values,
// ties, empty samples) to FindCrossovers and checks that it neither
// panics nor breaks its invariants.
func FuzzFindCrossovers(f *testing.F) {
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
		got := FindCrossovers(pts, Options{Alpha: alpha, Confidence: 0.95})
		if got == nil {
			t.Fatal("nil result")
		}
		for i, c := range got {
			crossCheckInvariants(t, c, alpha)
			if i > 0 && got[i-1].SigHi != c.SigLo {
				t.Errorf("crossovers %d and %d do not share the significant point between them: %+v", i-1, i, got)
			}
		}
	})
}

// genPair draws A and B along xs over rounds: per sample a lognormal
// factor with σ = cv, per round a factor with σ = cv/2 that A and B
// share (drift within a round hits both), and one sample in twenty
// inflated by 10–40%.
func genPair(xs []float64, fa, fb func(float64) float64, rounds int, cv float64, rng *rand.Rand) []AxisPoint {
	pts := make([]AxisPoint, len(xs))
	for i, x := range xs {
		pts[i] = AxisPoint{X: x, RA: map[int]float64{}, RB: map[int]float64{}}
	}
	draw := func(v float64) float64 {
		v *= math.Exp(rng.NormFloat64() * cv)
		if rng.IntN(20) == 0 {
			v *= 1.1 + 0.3*rng.Float64()
		}
		return v
	}
	for r := 1; r <= rounds; r++ {
		rf := math.Exp(rng.NormFloat64() * cv / 2)
		for i, x := range xs {
			a, b := draw(fa(x)*rf), draw(fb(x)*rf)
			pts[i].A, pts[i].B = append(pts[i].A, a), append(pts[i].B, b)
			pts[i].RA[r], pts[i].RB[r] = a, b
		}
	}
	return pts
}

// TestCrossoverIdenticalSeries: two identical series of 11 and 21 points,
// CV up to 10%, 8 rounds: a crossover in at most 5% of seeds.
func TestCrossoverIdenticalSeries(t *testing.T) {
	for _, n := range []int{11, 21} {
		xs := crossAxis(0, float64(n-1), 1)
		for _, cv := range []float64{0.02, 0.05, 0.1} {
			rng := rand.New(rand.NewPCG(uint64(n), uint64(cv*100)))
			const seeds = 200
			crossed, sig := 0, 0
			for s := 0; s < seeds; s++ {
				f := func(x float64) float64 { return 100 + 3*x }
				an := CompareAlong(genPair(xs, f, f, 8, cv, rng), DefaultOptions())
				if !an.Paired {
					t.Fatal("rounds given, but the comparison is not paired")
				}
				if len(an.Crossovers) > 0 {
					crossed++
				}
				for _, p := range an.Points {
					if p.Sign != 0 {
						sig++
						break
					}
				}
			}
			t.Logf("%d points, CV %.0f%%: crossover in %d of %d seeds, a significant point in %d", n, 100*cv, crossed, seeds, sig)
			if crossed > seeds/20 {
				t.Errorf("%d points, CV %.0f%%: crossover in %d of %d seeds of identical series, want at most 5%%", n, 100*cv, crossed, seeds)
			}
		}
	}
}

// TestCrossoverPlanted: A/B = exp(g·(x − x*)), ±35% at the ends of the
// axis, crossing at x*: the crossover is found with x* inside its bracket
// [SigLo, SigHi] in at least 95% of seeds, and, of those, inside its
// resampling interval in at least 90%.
func TestCrossoverPlanted(t *testing.T) {
	total, inBracket, inInterval := 0, 0, 0
	for _, n := range []int{11, 21} {
		xs := crossAxis(0, float64(n-1), 1)
		span := float64(n - 1)
		for _, cv := range []float64{0.02, 0.05, 0.1} {
			rng := rand.New(rand.NewPCG(uint64(n)+7, uint64(cv*100)))
			for s := 0; s < 20; s++ {
				star := span * (0.3 + 0.4*float64(s%5)/4) // 30%…70% of the axis
				star += 0.37                              // between sampled points
				g := math.Log(1.35) / (span / 2)
				fb := func(x float64) float64 { return 100 + 3*x }
				fa := func(x float64) float64 { return fb(x) * math.Exp(g*(x-star)) }
				got := FindCrossovers(genPair(xs, fa, fb, 8, cv, rng), DefaultOptions())
				total++
				ok := false
				for _, c := range got {
					if c.SigLo <= star && star <= c.SigHi && c.Before == -1 {
						ok = true
						if c.XLo <= star && star <= c.XHi {
							inInterval++
						}
					}
				}
				if ok {
					inBracket++
				} else {
					t.Logf("%d points, CV %.0f%%, crossing at %.2f: got %+v", n, 100*cv, star, got)
				}
			}
		}
	}
	t.Logf("planted crossings: in the bracket in %d of %d, in the resampling interval in %d", inBracket, total, inInterval)
	if float64(inBracket) < 0.95*float64(total) {
		t.Errorf("planted crossing inside the bracket in %d of %d seeds, want at least 95%%", inBracket, total)
	}
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
	_ = fmt.Sprint()
}
