package analysis

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// kneeAxis returns 1, 2, …, n.
func kneeAxis(n int) []float64 {
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	return xs
}

// kneeHinge returns y = y0 + s1·(x−k) for x ≤ k and y0 + s2·(x−k) after.
func kneeHinge(xs []float64, k, y0, s1, s2 float64) []float64 {
	ys := make([]float64, len(xs))
	for i, x := range xs {
		if x <= k {
			ys[i] = y0 + s1*(x-k)
		} else {
			ys[i] = y0 + s2*(x-k)
		}
	}
	return ys
}

// kneeMap applies f to every x.
func kneeMap(xs []float64, f func(float64) float64) []float64 {
	ys := make([]float64, len(xs))
	for i, x := range xs {
		ys[i] = f(x)
	}
	return ys
}

// kneeNoisy multiplies every y by a seeded factor in [1−rel, 1+rel].
func kneeNoisy(ys []float64, rel float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 1))
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = y * (1 + rel*(2*r.Float64()-1))
	}
	return out
}

func TestFindKnee(t *testing.T) {
	x12 := kneeAxis(12)
	decades := []float64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7}
	nan, inf := math.NaN(), math.Inf(1)
	hinge := kneeHinge(x12, 6, 16, 1, 5)
	type want struct {
		found      bool
		x, tol     float64
		method     string // checked when not empty
		confidence string // checked when not empty
		note       string // substring of Note
	}
	tests := []struct {
		name   string
		xs, ys []float64
		opt    KneeOptions
		want   want
	}{
		{"convex increasing hinge", x12, hinge, KneeOptions{},
			want{true, 6, 0, "piecewise+kneedle", "high", "slope steepens ×5 after x=6 (two-segment fit, p<0.001; Kneedle agrees)"}},
		{"concave increasing hinge", x12, kneeHinge(x12, 6, 40, 5, 1), KneeOptions{},
			want{true, 6, 0, "piecewise+kneedle", "high", "slope flattens ×0.2 after x=6"}},
		{"convex decreasing hinge", x12, kneeHinge(x12, 6, 25, -15, -1), KneeOptions{},
			want{true, 6, 0, "piecewise+kneedle", "high", "after x=6"}},
		{"concave decreasing hinge", x12, kneeHinge(x12, 6, 90, -1, -15), KneeOptions{},
			want{true, 6, 0, "piecewise+kneedle", "high", "after x=6"}},
		{"flat then rising", x12, kneeHinge(x12, 6, 10, 0, 3), KneeOptions{},
			want{true, 6, 0, "piecewise+kneedle", "high", "slope changes from 0 to 3 after x=6"}},
		{"hinge with 3% noise", x12, kneeNoisy(hinge, 0.03, 7), KneeOptions{},
			want{true, 6, 1, "", "", "after x="}},
		{"hinge with 3% noise, other seed", x12, kneeNoisy(hinge, 0.03, 11), KneeOptions{},
			want{true, 6, 1, "", "", "after x="}},
		{"straight line", x12, kneeMap(x12, func(x float64) float64 { return 3 + 2*x }), KneeOptions{},
			want{false, 0, 0, "", "", "straight line"}},
		{"straight falling line", x12, kneeMap(x12, func(x float64) float64 { return 1e6 - 7e3*x }), KneeOptions{},
			want{false, 0, 0, "", "", "straight line"}},
		{"constant", x12, kneeMap(x12, func(float64) float64 { return 42 }), KneeOptions{},
			want{false, 0, 0, "", "", "constant"}},
		{"exponential", x12, kneeMap(x12, func(x float64) float64 { return math.Pow(2, x) }), KneeOptions{},
			want{true, 10, 2, "", "", "after x="}},
		{"latency falling as 1/x", x12, kneeMap(x12, func(x float64) float64 { return 5 + 100/x }), KneeOptions{},
			want{true, 3.5, 1.5, "", "", "x="}},
		{"three points", []float64{1, 2, 3}, []float64{1, 2, 10}, KneeOptions{},
			want{false, 0, 0, "", "", "3 usable points"}},
		{"NaN and Inf entries ignored",
			append(append([]float64{nan, 3.5, 4.5}, x12...), 13),
			append(append([]float64{1, nan, inf}, hinge...), inf), KneeOptions{},
			want{true, 6, 0, "piecewise+kneedle", "high", "after x=6"}},
		{"unsorted input", []float64{12, 1, 6, 3, 9, 2, 11, 4, 7, 10, 5, 8},
			kneeMap([]float64{12, 1, 6, 3, 9, 2, 11, 4, 7, 10, 5, 8}, func(x float64) float64 { return hinge[int(x)-1] }), KneeOptions{},
			want{true, 6, 0, "piecewise+kneedle", "high", "after x=6"}},
		{"repeated x averaged", append([]float64{6, 6}, x12...), append([]float64{15, 17}, hinge...), KneeOptions{},
			want{true, 6, 0, "piecewise+kneedle", "high", "after x=6"}},
		{"LogX hinge at 1000", decades,
			kneeMap(decades, func(x float64) float64 { return kneeHinge([]float64{math.Log10(x)}, 3, 8, 1, 6)[0] }),
			KneeOptions{LogX: true},
			want{true, 1000, 0, "piecewise+kneedle", "", "slope steepens ×6 after x=1000"}},
		{"LogX ignores x <= 0", append([]float64{0, -5}, decades...),
			append([]float64{1, 2}, kneeMap(decades, func(x float64) float64 { return kneeHinge([]float64{math.Log10(x)}, 3, 8, 1, 6)[0] })...),
			KneeOptions{LogX: true},
			want{true, 1000, 0, "piecewise+kneedle", "", "after x=1000"}},
		{"LogX with too few positive x", []float64{-1, 0, 1, 10, 100}, []float64{1, 2, 3, 4, 9}, KneeOptions{LogX: true},
			want{false, 0, 0, "", "", "x > 0"}},
		{"lengths differ", x12, hinge[:5], KneeOptions{},
			want{false, 0, 0, "", "", "12 x values but 5 y values"}},
		{"strict alpha rejects noisy bend", x12, kneeNoisy(kneeHinge(x12, 6, 16, 1, 1.3), 0.03, 3),
			KneeOptions{Alpha: 1e-9, Sensitivity: 100},
			want{false, 0, 0, "", "", "not significant at alpha=1e-09"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FindKnee(tt.xs, tt.ys, tt.opt)
			if got.Found != tt.want.found {
				t.Fatalf("Found = %v, want %v (%+v)", got.Found, tt.want.found, got)
			}
			if tt.want.found && math.Abs(got.X-tt.want.x) > tt.want.tol {
				t.Errorf("X = %g, want %g ± %g (%+v)", got.X, tt.want.x, tt.want.tol, got)
			}
			if !tt.want.found && (got.X != 0 || got.Method != "" || got.Confidence != "") {
				t.Errorf("no knee but X=%g Method=%q Confidence=%q", got.X, got.Method, got.Confidence)
			}
			if tt.want.method != "" && got.Method != tt.want.method {
				t.Errorf("Method = %q, want %q (%+v)", got.Method, tt.want.method, got)
			}
			if tt.want.confidence != "" && got.Confidence != tt.want.confidence {
				t.Errorf("Confidence = %q, want %q (%+v)", got.Confidence, tt.want.confidence, got)
			}
			if !strings.Contains(got.Note, tt.want.note) {
				t.Errorf("Note = %q, want it to contain %q", got.Note, tt.want.note)
			}
			kneeCheckInvariants(t, tt.xs, got)
		})
	}
}

// TestFindKneeExactHinge checks every field of a noise-free hinge.
func TestFindKneeExactHinge(t *testing.T) {
	got := FindKnee(kneeAxis(12), kneeHinge(kneeAxis(12), 6, 16, 1, 5), KneeOptions{})
	want := KneeResult{
		Found: true, X: 6, Method: "piecewise+kneedle",
		KneedleX: 6, KneedleFound: true,
		PiecewiseX: 6, PiecewiseFound: true,
		SlopeBefore: 1, SlopeAfter: 5,
		Improvement: 1, P: 0, Confidence: "high",
		Note: "slope steepens ×5 after x=6 (two-segment fit, p<0.001; Kneedle agrees)",
	}
	const tol = 1e-9
	if got.Found != want.Found || got.X != want.X || got.Method != want.Method ||
		got.KneedleX != want.KneedleX || got.KneedleFound != want.KneedleFound ||
		got.PiecewiseX != want.PiecewiseX || got.PiecewiseFound != want.PiecewiseFound ||
		math.Abs(got.SlopeBefore-want.SlopeBefore) > tol || math.Abs(got.SlopeAfter-want.SlopeAfter) > tol ||
		got.Improvement != want.Improvement || got.P != want.P ||
		got.Confidence != want.Confidence || got.Note != want.Note {
		t.Errorf("FindKnee =\n%+v\nwant\n%+v", got, want)
	}
}

// TestFindKneeConfidence checks Method and Confidence when the methods
// agree, disagree, or only one of them finds a knee.
func TestFindKneeConfidence(t *testing.T) {
	xs := kneeAxis(12)
	// twoBends has slope 1, then 2 after x=3, then 4 after x=11.
	twoBends := kneeMap(xs, func(x float64) float64 {
		switch {
		case x < 3:
			return x
		case x < 11:
			return 3 + 2*(x-3)
		}
		return 19 + 4*(x-11)
	})
	// sCurve is flat, rises steeply from x=4 to 8, then is flat again:
	// no single hinge fits it, but Kneedle finds its upper corner.
	sCurve := kneeMap(xs, func(x float64) float64 { return 10 * math.Min(math.Max(x-4, 0), 4) })
	tests := []struct {
		name   string
		ys     []float64
		opt    KneeOptions
		method string
		conf   string
		x      float64
	}{
		{"agree, P below Alpha/10", kneeHinge(xs, 6, 16, 1, 5), KneeOptions{}, "piecewise+kneedle", "high", 6},
		// The noisy hinge has P ≈ 2.3e-8: below 1e-7 but not 1e-8.
		{"agree, P only below Alpha", kneeNoisy(kneeHinge(xs, 6, 16, 1, 5), 0.03, 7), KneeOptions{Alpha: 1e-7}, "piecewise+kneedle", "medium", 6},
		// Kneedle needs the difference curve to fall by S/11 after its
		// maximum; a huge S silences it.
		{"piecewise only", kneeHinge(xs, 6, 16, 1, 5), KneeOptions{Sensitivity: 1e6}, "piecewise", "medium", 6},
		{"kneedle only", sCurve, KneeOptions{}, "kneedle", "medium", 8},
		{"methods disagree", twoBends, KneeOptions{}, "piecewise", "low", 11},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FindKnee(xs, tt.ys, tt.opt)
			if got.Method != tt.method || got.Confidence != tt.conf || got.X != tt.x {
				t.Errorf("Method, Confidence, X = %q, %q, %g; want %q, %q, %g (%+v)", got.Method, got.Confidence, got.X, tt.method, tt.conf, tt.x, got)
			}
			kneeCheckInvariants(t, xs, got)
		})
	}
}

// TestFindKneeFalsePositives checks that the adjusted F-test keeps the
// rate of piecewise knees on noisy straight lines near Alpha.
func TestFindKneeFalsePositives(t *testing.T) {
	xs := kneeAxis(12)
	line := kneeMap(xs, func(x float64) float64 { return 10 + x })
	const trials = 400
	found := 0
	for seed := uint64(0); seed < trials; seed++ {
		if FindKnee(xs, kneeNoisy(line, 0.03, seed), KneeOptions{Alpha: 0.05}).PiecewiseFound {
			found++
		}
	}
	if rate := float64(found) / trials; rate > 0.06 {
		t.Errorf("piecewise knees on %d noisy lines: %.1f%%, want at most 6%%", trials, 100*rate)
	}
}

// kneeCheckInvariants checks what must hold for any result.
func kneeCheckInvariants(t *testing.T, xs []float64, r KneeResult) {
	t.Helper()
	if r.Note == "" {
		t.Errorf("empty Note: %+v", r)
	}
	if !(r.P >= 0 && r.P <= 1) || !(r.Improvement >= 0 && r.Improvement <= 1) {
		t.Errorf("P=%g Improvement=%g outside [0,1]", r.P, r.Improvement)
	}
	if r.Found != (r.Method != "") {
		t.Errorf("Found=%v but Method=%q", r.Found, r.Method)
	}
	switch r.Method {
	case "piecewise+kneedle", "piecewise":
		if r.X != r.PiecewiseX || !r.PiecewiseFound {
			t.Errorf("Method %q but X=%g PiecewiseX=%g PiecewiseFound=%v", r.Method, r.X, r.PiecewiseX, r.PiecewiseFound)
		}
	case "kneedle":
		if r.X != r.KneedleX || !r.KneedleFound || r.PiecewiseFound {
			t.Errorf("Method kneedle but %+v", r)
		}
	case "":
		if r.KneedleFound || r.PiecewiseFound {
			t.Errorf("no method but a method found a knee: %+v", r)
		}
	default:
		t.Errorf("unknown Method %q", r.Method)
	}
	switch r.Confidence {
	case "high", "medium", "low":
		if !r.Found {
			t.Errorf("Confidence %q without a knee", r.Confidence)
		}
	case "":
		if r.Found {
			t.Errorf("knee without Confidence")
		}
	default:
		t.Errorf("unknown Confidence %q", r.Confidence)
	}
	if r.Found && !kneeIn(xs, r.X) {
		t.Errorf("X=%g is not one of the sampled x values", r.X)
	}
}

func kneeIn(xs []float64, x float64) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestKneeFSurvival(t *testing.T) {
	tests := []struct {
		name      string
		f, d1, d2 float64
		want      float64
		tol       float64
	}{
		// F(1, 1) is the square of Student's t with one degree of
		// freedom (Cauchy): P(F > f) = 1 − (2/π)·atan(√f).
		{"d2=1 f=1", 1, 1, 1, 0.5, 1e-12},
		{"d2=1 f=10", 10, 1, 1, 1 - 2/math.Pi*math.Atan(math.Sqrt(10)), 1e-12},
		// t with two degrees of freedom: P(F > f) = 1 − √(f/(2+f)).
		{"d2=2 f=3", 3, 1, 2, 1 - math.Sqrt(3.0/5), 1e-12},
		{"d2=2 f=1000", 1000, 1, 2, 1 - math.Sqrt(1000.0/1002), 1e-12},
		// Tabulated critical values.
		{"F(.95;1,10)", 4.964603, 1, 10, 0.05, 1e-6},
		{"F(.99;1,20)", 8.095958, 1, 20, 0.01, 1e-6},
		{"F(.95;1,1)", 161.4476, 1, 1, 0.05, 1e-6},
		{"zero", 0, 1, 5, 1, 0},
		{"negative", -3, 1, 5, 1, 0},
		{"NaN", math.NaN(), 1, 5, 1, 0},
		{"infinite", math.Inf(1), 1, 5, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fSurvival(tt.f, tt.d1, tt.d2); math.Abs(got-tt.want) > tt.tol {
				t.Errorf("fSurvival(%g, %g, %g) = %.12g, want %.12g", tt.f, tt.d1, tt.d2, got, tt.want)
			}
		})
	}
}

func TestKneeRegIncBeta(t *testing.T) {
	tests := []struct {
		x, a, b, want float64
	}{
		{0.3, 1, 1, 0.3},                          // I_x(1,1) = x
		{0.3, 2.5, 1, math.Pow(0.3, 2.5)},         // I_x(a,1) = x^a
		{0.3, 1, 4, 1 - math.Pow(0.7, 4)},         // I_x(1,b) = 1−(1−x)^b
		{0.9, 1, 40, 1 - math.Pow(0.1, 40)},       // far tail, symmetric branch
		{0.5, 7.5, 7.5, 0.5},                      // symmetry
		{0, 2, 3, 0}, {1, 2, 3, 1}, {-1, 2, 3, 0}, // bounds
	}
	for _, tt := range tests {
		if got := regIncBeta(tt.x, tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("regIncBeta(%g, %g, %g) = %.15g, want %.15g", tt.x, tt.a, tt.b, got, tt.want)
		}
	}
	if got := regIncBeta(0.5, 0, 1); !math.IsNaN(got) {
		t.Errorf("regIncBeta with a=0 = %g, want NaN", got)
	}
}

// FuzzFindKnee feeds arbitrary floats (including NaN, ±Inf, huge and
// tiny values) to FindKnee and checks that it neither panics nor
// breaks its invariants.
func FuzzFindKnee(f *testing.F) {
	enc := func(vs ...float64) []byte {
		b := make([]byte, 8*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(enc(1, 10, 2, 11, 3, 12, 4, 20, 5, 30, 6, 40), false, 1.0, 0.05)
	f.Add(enc(1, 1, 10, 2, 100, 3, 1000, 50, 1e4, 100), true, 0.0, 0.0)
	f.Add(enc(math.NaN(), 1, 2, math.Inf(1), 3, 3, 4, 4, 5, 9), false, -1.0, 2.0)
	f.Add(enc(-math.MaxFloat64, math.MaxFloat64, 0, -math.MaxFloat64, 1, 0, math.MaxFloat64, math.MaxFloat64), false, 1.0, 0.05)
	f.Add(enc(5e-324, 1, 1e-323, 2, 1.5e-323, 1, 2e-323, 2), true, math.Inf(1), math.NaN())
	f.Add(enc(1, 1, 1, 2, 2, 3, 2, 4, 3, 0, 4, 0), false, 1.0, 0.5)
	f.Fuzz(func(t *testing.T, data []byte, logX bool, s, alpha float64) {
		var xs, ys []float64
		for i := 0; i+16 <= len(data); i += 16 {
			xs = append(xs, math.Float64frombits(binary.LittleEndian.Uint64(data[i:])))
			ys = append(ys, math.Float64frombits(binary.LittleEndian.Uint64(data[i+8:])))
		}
		in := append([]float64(nil), xs...)
		r := FindKnee(xs, ys, KneeOptions{LogX: logX, Sensitivity: s, Alpha: alpha})
		kneeCheckInvariants(t, xs, r)
		for i := range in {
			if math.Float64bits(in[i]) != math.Float64bits(xs[i]) {
				t.Fatalf("FindKnee modified xs")
			}
		}
	})
}
