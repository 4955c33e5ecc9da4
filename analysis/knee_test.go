package analysis

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// smoothFamilies are cost curves without a regime change: power laws
// with k = 1.2…2 (with and without a constant), exponentials and
// quadratics.
func smoothFamilies() map[string]func(float64) float64 {
	fams := map[string]func(float64) float64{
		"1.2^x":          func(x float64) float64 { return math.Pow(1.2, x) },
		"3+1.3^x":        func(x float64) float64 { return 3 + math.Pow(1.3, x) },
		"5+2x+0.3x²":     func(x float64) float64 { return 5 + 2*x + 0.3*x*x },
		"20+x²":          func(x float64) float64 { return 20 + x*x },
		"100+10x+0.05x²": func(x float64) float64 { return 100 + 10*x + 0.05*x*x },
	}
	for _, k := range []float64{1.2, 1.4, 1.6, 1.8, 2} {
		fams[fmt.Sprintf("x^%g", k)] = func(x float64) float64 { return math.Pow(x, k) }
		fams[fmt.Sprintf("5+x^%g", k)] = func(x float64) float64 { return 5 + math.Pow(x, k) }
	}
	return fams
}

// TestKneeSmoothCurves: smooth curves of 12 points, 8 rounds, CV 2–6%
// must give no knee in at least 95% of series (and at least 90% in
// every family and CV).
func TestKneeSmoothCurves(t *testing.T) {
	xs := axis1to(12)
	total, knees := 0, 0
	for name, f := range smoothFamilies() {
		for _, cv := range []float64{0.02, 0.04, 0.06} {
			rng := rand.New(rand.NewPCG(uint64(len(name)), uint64(cv*1000)))
			const seeds = 40
			found := 0
			for s := 0; s < seeds; s++ {
				// The knee decision rests on the medians alone; the
				// resampling that only adds intervals is left out here
				// and exercised below.
				r := FitKnee(xs, genSeries("B", xs, f, 8, cv, rng), KneeOptions{Resamples: -1})
				if r.Found {
					found++
				}
			}
			total += seeds
			knees += found
			if found > seeds/10 {
				t.Errorf("%s, CV %.0f%%: knee in %d of %d series, want at most %d", name, 100*cv, found, seeds, seeds/10)
			}
		}
	}
	t.Logf("smooth curves: knee in %d of %d series (%.1f%%)", knees, total, 100*float64(knees)/float64(total))
	if float64(knees) > 0.05*float64(total) {
		t.Errorf("knee in %d of %d smooth series, want at most 5%%", knees, total)
	}
	// With resampling, a smooth power law reads as smooth growth with its
	// exponent and an interval. (A percentile bootstrap over 8 rounds is
	// narrow, so the test asks for the estimate within 0.05, not for
	// coverage.)
	rng := rand.New(rand.NewPCG(7, 7))
	r := FitKnee(xs, genSeries("B", xs, func(x float64) float64 { return math.Pow(x, 1.5) }, 8, 0.03, rng), KneeOptions{})
	if r.Verdict != KneeSmooth || math.Abs(r.Exponent-1.5) > 0.05 || !(r.ExponentLo < r.ExponentHi) || !strings.Contains(r.Note, "smooth growth, exponent k=") {
		t.Errorf("x^1.5: verdict %s, exponent %.2f [%.2f, %.2f], note %q; want smooth growth with exponent 1.5±0.05 and an interval", r.Verdict, r.Exponent, r.ExponentLo, r.ExponentHi, r.Note)
	}
}

// TestKneePlantedHinges: two-segment costs whose slope changes ×4 (CV
// 2–4%) or ×6 (CV 2–6%), and costs that flatten to a tenth of their
// slope (CV 2%), are found within one grid step of the planted break in at least
// 95% of series; with resampling, the breakpoint interval holds the
// planted break within a grid step.
func TestKneePlantedHinges(t *testing.T) {
	xs := axis1to(12)
	type plan struct {
		ratio float64
		cvs   []float64
	}
	total, within, covered, boots := 0, 0, 0, 0
	for _, p := range []plan{{4, []float64{0.02, 0.04}}, {6, []float64{0.02, 0.04, 0.06}}, {0.1, []float64{0.02}}} {
		for _, cv := range p.cvs {
			rng := rand.New(rand.NewPCG(uint64(p.ratio*10), uint64(cv*1000)))
			for s := 0; s < 50; s++ {
				k := float64(4 + s%5) // breaks at 4…8
				opt := KneeOptions{Resamples: -1}
				if s%10 == 0 {
					opt.Resamples = 0 // the default bootstrap, on every tenth series
				}
				y0 := 10.0
				if p.ratio < 1 {
					y0 = 1 // a cost that saturates
				}
				r := FitKnee(xs, genSeries("B", xs, hingeCurve(y0, 1, k, p.ratio), 8, cv, rng), opt)
				total++
				if r.Found && math.Abs(r.X-k) <= 1 {
					within++
				} else {
					t.Logf("×%g at %g, CV %.0f%%: %s", p.ratio, k, 100*cv, r.Note)
				}
				if r.Resamples > 0 {
					boots++
					if r.Found && r.Lo <= k+1 && r.Hi >= k-1 && r.Lo <= r.X && r.X <= r.Hi {
						covered++
					}
				}
			}
		}
	}
	t.Logf("planted hinges: found within one step in %d of %d; interval holds the break in %d of %d resampled", within, total, covered, boots)
	if float64(within) < 0.95*float64(total) {
		t.Errorf("planted hinges found within one grid step in %d of %d, want at least 95%%", within, total)
	}
	if float64(covered) < 0.9*float64(boots) {
		t.Errorf("breakpoint interval holds the planted break in %d of %d, want at least 90%%", covered, boots)
	}
}

// TestKneeLinearOverDecades: a cost proportional to the size (plus a
// constant) over sizes 4…4096 is one straight line in log-log: no knee,
// smooth growth with exponent near 1.
func TestKneeLinearOverDecades(t *testing.T) {
	var sizes []float64
	for s := 4.0; s <= 4096; s *= 2 {
		sizes = append(sizes, s)
	}
	if !SpansDecades(sizes) {
		t.Fatal("4…4096 must span decades")
	}
	for seed := uint64(0); seed < 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		cv := 0.02 + 0.04*float64(seed%3)/2
		f := func(x float64) float64 { return 2 * x }
		if seed%2 == 1 {
			f = func(x float64) float64 { return 30 + 2*x }
		}
		opt := KneeOptions{LogX: true, Resamples: -1}
		if seed < 3 {
			opt.Resamples = 0
		}
		r := FitKnee(sizes, genSeries("L", sizes, f, 8, cv, rng), opt)
		if r.Found || r.Scale != "log-log" {
			t.Errorf("seed %d: linear cost over 4…4096: verdict %s on scale %s: %s", seed, r.Verdict, r.Scale, r.Note)
		}
		if seed < 3 && (r.Verdict != KneeSmooth || math.Abs(r.Exponent-1) > 0.1) {
			t.Errorf("seed %d: want smooth growth with exponent ≈ 1, got %s: %s", seed, r.Verdict, r.Note)
		}
	}
}

// TestFindKnee checks exact inputs and bad ones.
func TestFindKnee(t *testing.T) {
	x12 := axis1to(12)
	hinge := make([]float64, 12)
	for i, x := range x12 {
		hinge[i] = hingeCurve(10, 1, 6, 5)(x)
	}
	line := make([]float64, 12)
	for i, x := range x12 {
		line[i] = 3 + 2*x
	}
	gentle := make([]float64, 12)
	for i, x := range x12 {
		gentle[i] = hingeCurve(10, 1, 6, 1.05)(x)
	}
	nan := math.NaN()
	tests := []struct {
		name    string
		xs, ys  []float64
		opt     KneeOptions
		verdict string
		x       float64 // checked when the verdict is a knee
		note    string
	}{
		{"exact hinge", x12, hinge, KneeOptions{}, KneeFound, 6, "knee at x=6"},
		{"exact line", x12, line, KneeOptions{}, KneeSmooth, 0, "smooth growth, exponent"},
		{"constant", x12, make([]float64, 12), KneeOptions{}, KneeSmooth, 0, "constant"},
		{"immaterial bend", x12, gentle, KneeOptions{}, KneeSmooth, 0, "less than 10%"},
		{"six points", x12[:6], hinge[:6], KneeOptions{}, KneeUndecided, 0, "too few"},
		{"three points", x12[:3], hinge[:3], KneeOptions{}, KneeUndecided, 0, "need at least 4"},
		{"lengths differ", x12, hinge[:5], KneeOptions{}, KneeUndecided, 0, "12 x values but 5 y values"},
		{"NaNs dropped", append([]float64{nan}, x12...), append([]float64{1}, hinge...), KneeOptions{}, KneeFound, 6, "knee"},
		{"log-log hinge", []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024},
			[]float64{10, 10.5, 11, 11.5, 12, 12.5, 25, 50, 100, 200, 400}, KneeOptions{LogX: true}, KneeFound, 32, "log-log hinge"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := findKnee(tt.xs, tt.ys, tt.opt)
			kneeCheckInvariants(t, r)
			if r.Verdict != tt.verdict || (tt.verdict == KneeFound && math.Abs(r.X-tt.x) > 0.5) || !strings.Contains(r.Note, tt.note) {
				t.Errorf("verdict %s at x=%g, note %q; want %s (x=%g), note containing %q", r.Verdict, r.X, r.Note, tt.verdict, tt.x, tt.note)
			}
		})
	}
}

// kneeCheckInvariants checks what must hold for any result.
func kneeCheckInvariants(t *testing.T, r KneeResult) {
	t.Helper()
	if r.Note == "" {
		t.Errorf("empty Note: %+v", r)
	}
	switch r.Verdict {
	case KneeFound, KneeSmooth, KneeUndecided:
	default:
		t.Errorf("unknown verdict %q", r.Verdict)
	}
	if r.Found != (r.Verdict == KneeFound) {
		t.Errorf("Found=%v with verdict %q", r.Found, r.Verdict)
	}
	if r.Found && r.DeltaAICc < r.Margin {
		t.Errorf("knee with ΔAICc %g below the margin %g", r.DeltaAICc, r.Margin)
	}
	if !(r.Lo <= r.X && r.X <= r.Hi) {
		t.Errorf("X=%g outside [%g, %g]", r.X, r.Lo, r.Hi)
	}
	if _, err := json.Marshal(r); err != nil {
		t.Errorf("result does not encode as JSON: %v", err)
	}
}

// FuzzFindKnee feeds arbitrary floats (including NaN, ±Inf, huge and
// tiny values) to findKnee and checks that it neither panics nor
// breaks its invariants.
func FuzzFindKnee(f *testing.F) {
	enc := func(vs ...float64) []byte {
		b := make([]byte, 8*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(enc(1, 10, 2, 11, 3, 12, 4, 20, 5, 30, 6, 40, 7, 50, 8, 60), false, 4.0)
	f.Add(enc(1, 1, 10, 2, 100, 3, 1000, 50, 1e4, 100), true, 0.0)
	f.Add(enc(math.NaN(), 1, 2, math.Inf(1), 3, 3, 4, 4, 5, 9), false, -1.0)
	f.Add(enc(-math.MaxFloat64, math.MaxFloat64, 0, -math.MaxFloat64, 1, 0, math.MaxFloat64, math.MaxFloat64), false, 1.0)
	f.Add(enc(5e-324, 1, 1e-323, 2, 1.5e-323, 1, 2e-323, 2), true, math.Inf(1))
	f.Add(enc(1, 1, 1, 2, 2, 3, 2, 4, 3, 0, 4, 0, 5, -1, 6, 7, 7, 1e300), false, math.NaN())
	f.Fuzz(func(t *testing.T, data []byte, logX bool, margin float64) {
		var xs, ys []float64
		for i := 0; i+16 <= len(data); i += 16 {
			xs = append(xs, math.Float64frombits(binary.LittleEndian.Uint64(data[i:])))
			ys = append(ys, math.Float64frombits(binary.LittleEndian.Uint64(data[i+8:])))
		}
		in := append([]float64(nil), xs...)
		r := findKnee(xs, ys, KneeOptions{LogX: logX, Margin: margin})
		kneeCheckInvariants(t, r)
		for i := range in {
			if math.Float64bits(in[i]) != math.Float64bits(xs[i]) {
				t.Fatalf("findKnee modified xs")
			}
		}
	})
}

// FuzzFitKnee feeds arbitrary per-round values (NaN, ±Inf, zeros,
// negative and huge costs, missing rounds) to FitKnee, resampling
// included, and checks that it neither panics nor breaks its invariants.
func FuzzFitKnee(f *testing.F) {
	enc := func(vs ...float64) []byte {
		b := make([]byte, 8*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(enc(1, 1.1, 2, 2.1, 3, 3.2, 4, 4.1, 5, 5.3, 6, 6.1, 9, 9.2, 12, 12.4, 15, 15.1, 18, 18.3), uint8(2), false, true)
	f.Add(enc(math.NaN(), 1, 0, -1, math.Inf(1), 5, 5, 5, 1e300, 1e-300, 7, 7, 7, 7), uint8(1), true, false)
	f.Fuzz(func(t *testing.T, data []byte, per uint8, logX, rounds bool) {
		n := int(per%4) + 1 // values per point
		var vs []float64
		for i := 0; i+8 <= len(data); i += 8 {
			vs = append(vs, math.Float64frombits(binary.LittleEndian.Uint64(data[i:])))
		}
		var xs []float64
		var cells []*Sample
		for i := 0; i+n <= len(vs) && len(cells) < 16; i += n {
			c := &Sample{Values: vs[i : i+n]}
			if rounds {
				for r := range n {
					c.Rounds = append(c.Rounds, r+1)
				}
			}
			xs = append(xs, float64(len(cells)+1))
			cells = append(cells, c)
		}
		r := FitKnee(xs, cells, KneeOptions{LogX: logX, Resamples: 20})
		kneeCheckInvariants(t, r)
	})
}

// TestKneeLogAxis: on sizes 4…4096 (log axis), smooth costs (power laws,
// n·log n, a line with a constant, a gentle quadratic) give no knee in at
// least 95% of series, while a cost per element that triples past 128 (a
// linear hinge) and a constant that turns into linear growth at 64 (a
// hinge in either family) are found within one grid step in at least 95%.
func TestKneeLogAxis(t *testing.T) {
	var sizes []float64
	for s := 4.0; s <= 4096; s *= 2 {
		sizes = append(sizes, s)
	}
	type fam struct {
		name  string
		f     func(float64) float64
		knee  float64 // 0: smooth
		hinge string  // the hinge family that must win; "" when both fit
		near  [2]float64
	}
	fams := []fam{
		{name: "50+x^1.5", f: func(x float64) float64 { return 50 + math.Pow(x, 1.5) }},
		{name: "x^1.2", f: func(x float64) float64 { return math.Pow(x, 1.2) }},
		{name: "x·ln x", f: func(x float64) float64 { return x * math.Log(x) }},
		{name: "1000+x", f: func(x float64) float64 { return 1000 + x }},
		{name: "5+x+x²/1000", f: func(x float64) float64 { return 5 + x + x*x/1000 }},
		{name: "cache at 128", f: func(x float64) float64 { return 100 + x + 3*math.Max(0, x-128) }, knee: 128, hinge: "linear", near: [2]float64{64, 256}},
		{name: "flat, then linear at 64", f: func(x float64) float64 { return math.Max(640, 10*x) }, knee: 64, near: [2]float64{32, 128}},
	}
	for i, fm := range fams {
		rng := rand.New(rand.NewPCG(uint64(i), 4096))
		const seeds = 30
		knees, near := 0, 0
		for s := 0; s < seeds; s++ {
			r := FitKnee(sizes, genSeries("L", sizes, fm.f, 8, 0.02+0.04*float64(s%3)/2, rng), KneeOptions{LogX: true, Resamples: -1})
			if r.Found {
				knees++
				if r.X >= fm.near[0] && r.X <= fm.near[1] && (fm.hinge == "" || r.Hinge == fm.hinge) {
					near++
				}
			}
		}
		switch {
		case fm.knee == 0 && knees > seeds*5/100:
			t.Errorf("%s: knee in %d of %d smooth series", fm.name, knees, seeds)
		case fm.knee != 0 && near < seeds*95/100:
			t.Errorf("%s: %s knee within a grid step of %g in %d of %d series", fm.name, fm.hinge, fm.knee, near, seeds)
		}
	}
}

// findKnee judges the curve y(x) given one value per point, as [FitKnee]
// judges the medians of its cells: the knee decision and fits of
// [KneeResult] without resampling, so Lo and Hi equal X. It pairs xs with
// ys, ignores non-finite pairs (and x ≤ 0 under LogX), sorts by x and
// averages repeated xs. It never panics.
func findKnee(xs, ys []float64, opt KneeOptions) KneeResult {
	if len(xs) != len(ys) {
		return kneeNone(fmt.Sprintf("no knee: got %d x values but %d y values; pass one y per x", len(xs), len(ys)))
	}
	opt = opt.withDefaults()
	x, _, y := kneePoints(xs, ys, opt.LogX)
	if len(x) < kneeMinPoints {
		return kneeNone(fmt.Sprintf("no knee: %d usable points, need at least %d", len(x), kneeMinPoints))
	}
	return kneeJudge(x, y, nil, opt)
}

// kneePoints cleans the input: it drops non-finite pairs (and x <= 0
// under logX), sorts by x, and averages y over repeated x. It returns
// the original x, the analysed axis t (x or log10 x) and y.
func kneePoints(xs, ys []float64, logX bool) (x, t, y []float64) {
	type pair struct{ x, y float64 }
	ps := make([]pair, 0, len(xs))
	for i := range xs {
		if kneeFinite(xs[i]) && kneeFinite(ys[i]) && (!logX || xs[i] > 0) {
			ps = append(ps, pair{xs[i], ys[i]})
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].x < ps[j].x })
	for i := 0; i < len(ps); {
		j, mean := i, 0.0
		for ; j < len(ps) && ps[j].x == ps[i].x; j++ {
			mean += (ps[j].y - mean) / float64(j-i+1) // running mean: no overflow
		}
		x = append(x, ps[i].x)
		y = append(y, mean)
		i = j
	}
	t = x
	if logX {
		t = make([]float64, len(x))
		for i, xi := range x {
			t[i] = math.Log10(xi)
		}
	}
	return x, t, y
}
