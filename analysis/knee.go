package analysis

import (
	"fmt"
	"math"
	"sort"
)

// KneeOptions configures FindKnee. The zero value is ready to use.
type KneeOptions struct {
	// LogX analyses log10(x) instead of x, for axes that span
	// decades. Points with x <= 0 are then ignored.
	LogX bool
	// Sensitivity is Kneedle's S: how far the difference curve must
	// fall after a local maximum, in mean x steps, before that
	// maximum counts as a knee. Larger is more conservative.
	// Zero, negative or NaN means 1.0.
	Sensitivity float64
	// Alpha is the significance level of the F-test comparing the
	// two-segment fit with a single line. Values outside (0, 1) mean
	// 0.05.
	Alpha float64
}

// KneeResult describes where a cost curve bends.
type KneeResult struct {
	// Found reports whether either method found a knee.
	Found bool `json:"found"`
	// X is the knee: PiecewiseX when the two-segment fit is
	// significant, else KneedleX when Kneedle found one, else 0.
	X float64 `json:"x"`
	// Method is "piecewise+kneedle" (both found, at most one sample
	// step apart), "piecewise", "kneedle", or "" when none.
	Method string `json:"method"`

	// KneedleX is the knee Kneedle found (0 unless KneedleFound).
	KneedleX     float64 `json:"kneedle_x"`
	KneedleFound bool    `json:"kneedle_found"`

	// PiecewiseX is the breakpoint of the best two-segment fit. It is
	// set whenever the fit could be made, even when it is not
	// significant; PiecewiseFound says whether it counts as a knee.
	PiecewiseX     float64 `json:"piecewise_x"`
	PiecewiseFound bool    `json:"piecewise_found"`
	// SlopeBefore and SlopeAfter are the slopes of the two segments,
	// per unit of the analysed axis (per decade with LogX).
	SlopeBefore float64 `json:"slope_before"`
	SlopeAfter  float64 `json:"slope_after"`
	// Improvement is 1 - SSE(two segments)/SSE(one line), in [0, 1].
	Improvement float64 `json:"improvement"`
	// P is the F-test p-value of two segments against one line,
	// Bonferroni-adjusted for the choice among the n−2 candidate
	// breakpoints (see fitHinge). It is 1 when no fit was made.
	P float64 `json:"p"`

	// Confidence is "high" when both methods agree within one step
	// and P < Alpha/10, "medium" when only one method finds a knee or
	// both agree with P < Alpha, "low" when the methods disagree, and
	// "" when no knee was found.
	Confidence string `json:"confidence"`
	// Note is one human sentence explaining the result.
	Note string `json:"note"`
}

const (
	kneeMinPoints = 4
	// kneeExact is the relative sum of squares below which a fit is
	// taken as exact (floating-point residue, not data).
	kneeExact = 1e-12
	// kneeTiny is the normalised magnitude below which a slope or a
	// difference-curve value is treated as zero.
	kneeTiny = 1e-9
	// kneeMaterial is the smallest slope change, relative to the
	// slope before the break, that counts as a bend.
	kneeMaterial = 0.1
)

// FindKnee finds the knee of y(x): the sampled x where the slope of the
// curve changes most clearly. It pairs xs with ys, ignores pairs with a
// NaN or infinite value (and x <= 0 under LogX), sorts by x and
// averages the ys of repeated xs. With fewer than 4 usable points, or
// xs and ys of different lengths, it returns Found=false with a Note
// saying why. It never panics.
//
// Two methods look for the knee; see kneedle and fitHinge. The result
// prefers the two-segment fit, which comes with a p-value, and uses
// Kneedle as a second opinion or a fallback.
func FindKnee(xs, ys []float64, opt KneeOptions) KneeResult {
	if len(xs) != len(ys) {
		return kneeNone(fmt.Sprintf("no knee: got %d x values but %d y values; pass one y per x", len(xs), len(ys)))
	}
	if !(opt.Sensitivity > 0) {
		opt.Sensitivity = 1
	}
	if !(opt.Alpha > 0 && opt.Alpha < 1) {
		opt.Alpha = 0.05
	}
	x, t, y := kneePoints(xs, ys, opt.LogX)
	if len(x) < kneeMinPoints {
		what := "distinct finite x with finite y"
		if opt.LogX {
			what = "distinct finite x > 0 with finite y, as LogX needs"
		}
		return kneeNone(fmt.Sprintf("no knee: %d usable points (%s), need at least %d", len(x), what, kneeMinPoints))
	}
	u, v, ok := kneeNormalise(t, y)
	if !ok {
		return kneeNone("no knee: y is constant")
	}
	r := KneeResult{P: 1}
	ki, kOK := kneedle(u, v, opt.Sensitivity)
	if kOK {
		r.KneedleFound, r.KneedleX = true, x[ki]
	}
	fit := fitHinge(u, v)
	if !fit.ok {
		r.Note = "no knee: the points do not support a two-segment fit"
		if kOK {
			r.Note = fmt.Sprintf("Kneedle finds a knee at x=%g; the points do not support a two-segment fit to confirm it", r.KneedleX)
		}
		return kneeDecide(r, -1, ki, opt.Alpha)
	}
	scale := kneeSlopeScale(t, y)
	r.PiecewiseX = x[fit.k]
	r.SlopeBefore = kneeSnap(fit.b) * scale
	r.SlopeAfter = kneeSnap(fit.b+fit.c) * scale
	r.Improvement, r.P = fit.improvement, fit.p
	r.PiecewiseFound = !fit.straight && fit.p < opt.Alpha &&
		math.Abs(fit.c) > kneeMaterial*math.Max(math.Abs(fit.b), kneeTiny)
	if fit.straight && !kOK {
		r.Note = "no knee: the points lie on a straight line"
	}
	return kneeDecide(r, fit.k, ki, opt.Alpha)
}

// kneeNone is the result for input that cannot have a knee.
func kneeNone(note string) KneeResult { return KneeResult{P: 1, Note: note} }

// kneeDecide fills X, Found, Method, Confidence and Note from the
// outcomes of both methods. pk and ki are the point indices of the
// piecewise breakpoint and the Kneedle knee (ignored when not found).
func kneeDecide(r KneeResult, pk, ki int, alpha float64) KneeResult {
	agree := r.PiecewiseFound && r.KneedleFound && kneeAbs(pk-ki) <= 1
	switch {
	case agree:
		r.Method, r.X = "piecewise+kneedle", r.PiecewiseX
		r.Confidence = "medium"
		if r.P < alpha/10 {
			r.Confidence = "high"
		}
	case r.PiecewiseFound && r.KneedleFound:
		r.Method, r.X, r.Confidence = "piecewise", r.PiecewiseX, "low"
	case r.PiecewiseFound:
		r.Method, r.X, r.Confidence = "piecewise", r.PiecewiseX, "medium"
	case r.KneedleFound:
		r.Method, r.X, r.Confidence = "kneedle", r.KneedleX, "medium"
	}
	r.Found = r.Method != ""
	if r.Note == "" {
		r.Note = kneeNote(r, alpha)
	}
	return r
}

// kneeNote writes the one-sentence explanation of r when a knee was
// found, or when the two-segment fit was made but is not a knee.
func kneeNote(r KneeResult, alpha float64) string {
	p := kneeP(r.P)
	switch {
	case r.PiecewiseFound:
		second := "Kneedle finds no knee"
		if r.Method == "piecewise+kneedle" {
			second = "Kneedle agrees"
		} else if r.KneedleFound {
			second = fmt.Sprintf("Kneedle points to x=%g instead", r.KneedleX)
		}
		return fmt.Sprintf("%s after x=%g (two-segment fit, %s; %s)", kneeSlopeChange(r.SlopeBefore, r.SlopeAfter), r.PiecewiseX, p, second)
	case r.KneedleFound:
		return fmt.Sprintf("Kneedle finds a knee at x=%g, but the two-segment fit does not confirm a bend (best break x=%g, %s)", r.KneedleX, r.PiecewiseX, p)
	case r.P < alpha:
		return fmt.Sprintf("no knee: the best two-segment fit (break x=%g, %s) changes the slope too little to matter (%.3g to %.3g) and Kneedle finds none", r.PiecewiseX, p, r.SlopeBefore, r.SlopeAfter)
	}
	return fmt.Sprintf("no knee: the best two-segment fit (break x=%g, %s) is not significant at alpha=%g and Kneedle finds none", r.PiecewiseX, p, alpha)
}

// kneeSlopeChange describes how the slope changes at the break.
func kneeSlopeChange(before, after float64) string {
	if before == 0 || math.Signbit(before) != math.Signbit(after) || after == 0 {
		return fmt.Sprintf("slope changes from %.3g to %.3g", before, after)
	}
	ratio := after / before
	f := "%.2g"
	if ratio >= 10 {
		f = "%.0f"
	}
	if ratio >= 1 {
		return fmt.Sprintf("slope steepens ×"+f, ratio)
	}
	return fmt.Sprintf("slope flattens ×"+f, ratio)
}

// kneeP formats a p-value for a note.
func kneeP(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

func kneeAbs(i int) int {
	if i < 0 {
		return -i
	}
	return i
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

// kneeSnap rounds a normalised slope that is floating-point residue to 0.
func kneeSnap(slope float64) float64 {
	if math.Abs(slope) < kneeTiny {
		return 0
	}
	return slope
}

func kneeFinite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

// kneeNormalise maps t and y onto [0, 1] by their minimum and maximum
// (t is sorted). It reports false when y is constant. Halves are taken
// before subtracting so that extreme values cannot overflow.
func kneeNormalise(t, y []float64) (u, v []float64, ok bool) {
	tlo, thr := t[0]/2, t[len(t)-1]/2-t[0]/2
	ylo, yhi := y[0], y[0]
	for _, yi := range y {
		ylo, yhi = math.Min(ylo, yi), math.Max(yhi, yi)
	}
	yhr := yhi/2 - ylo/2
	if yhr == 0 || thr == 0 {
		return nil, nil, false
	}
	u, v = make([]float64, len(t)), make([]float64, len(y))
	for i := range t {
		u[i] = (t[i]/2 - tlo) / thr
		v[i] = (y[i]/2 - ylo/2) / yhr
	}
	return u, v, true
}

// kneeSlopeScale converts a slope in normalised units (v per u) to y
// per unit of t.
func kneeSlopeScale(t, y []float64) float64 {
	ylo, yhi := y[0], y[0]
	for _, yi := range y {
		ylo, yhi = math.Min(ylo, yi), math.Max(yhi, yi)
	}
	return (yhi/2 - ylo/2) / (t[len(t)-1]/2 - t[0]/2)
}

// kneedle returns the index of the most significant knee of the
// normalised curve v(u) (u increasing from 0 to 1, v in [0, 1]), after
// Satopää, Albrecht, Irwin and Raghavan, "Finding a 'Kneedle' in a
// Haystack: Detecting Knee Points in System Behavior" (ICDCS workshops,
// 2011):
//
//  1. Detect the direction (increasing when the last y exceeds the
//     first, else by the sign of the least-squares slope) and the shape
//     (convex when the curve lies below its chord on average).
//  2. Flip the curve into the concave increasing case: a decreasing
//     curve is mirrored in x, a convex one is then rotated 180°.
//  3. Form the difference curve: the height of each point above the
//     chord between the end points (the paper's y - x when the end
//     points are the extremes).
//  4. At each local maximum m of the difference curve, set the
//     threshold T = d(m) - S·(mean x step). If the difference curve
//     drops below T before the next local maximum, m is a knee.
//  5. Of the knees, return the one with the largest difference value.
//
// No smoothing is applied; noisy data is the two-segment fit's job.
// Straight lines and constants have no local maximum above zero, so no
// knee.
func kneedle(u, v []float64, s float64) (int, bool) {
	n := len(u)
	xs, ys, idx := append([]float64(nil), u...), append([]float64(nil), v...), make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	switch kneeDirection(u, v) {
	case 0:
		return 0, false
	case -1:
		xs, ys, idx = kneeMirror(xs, ys, idx, false)
	}
	if kneeConvex(xs, ys) {
		xs, ys, idx = kneeMirror(xs, ys, idx, true)
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = ys[i] - (ys[0] + (ys[n-1]-ys[0])*xs[i])
	}
	step := 1 / float64(n-1)
	best, found := 0, false
	for m := 1; m < n-1; m++ {
		if !(d[m] > d[m-1] && d[m] >= d[m+1] && d[m] > kneeTiny) {
			continue
		}
		threshold := d[m] - s*step
		for j := m + 1; j < n; j++ {
			if j < n-1 && d[j] > d[j-1] && d[j] >= d[j+1] {
				break // next local maximum reached
			}
			if d[j] < threshold {
				if !found || d[m] > d[best] {
					best, found = m, true
				}
				break
			}
		}
	}
	return idx[best], found
}

// kneeDirection returns +1 for an increasing curve, -1 for a decreasing
// one and 0 when neither the end points nor the least-squares slope
// show a direction.
func kneeDirection(u, v []float64) int {
	n := len(v)
	switch {
	case v[n-1] > v[0]:
		return 1
	case v[n-1] < v[0]:
		return -1
	}
	b, _ := kneeLine(u, v)
	switch {
	case b > kneeTiny:
		return 1
	case b < -kneeTiny:
		return -1
	}
	return 0
}

// kneeConvex reports whether the curve lies below the chord between
// its end points on average.
func kneeConvex(xs, ys []float64) bool {
	n := len(xs)
	sum := 0.0
	for i := range xs {
		sum += ys[i] - (ys[0] + (ys[n-1]-ys[0])*xs[i])
	}
	return sum < 0
}

// kneeMirror mirrors the curve in x (x → 1-x, reversing the order) and,
// with flipY, also in y (y → 1-y), carrying the original indices along.
func kneeMirror(xs, ys []float64, idx []int, flipY bool) ([]float64, []float64, []int) {
	n := len(xs)
	mx, my, mi := make([]float64, n), make([]float64, n), make([]int, n)
	for i := range xs {
		j := n - 1 - i
		mx[i], my[i], mi[i] = 1-xs[j], ys[j], idx[j]
		if flipY {
			my[i] = 1 - ys[j]
		}
	}
	return mx, my, mi
}

// hingeFit is the best continuous two-segment fit of normalised data.
type hingeFit struct {
	ok          bool
	k           int     // index of the breakpoint
	sse         float64 // sum of squared errors of the two segments
	b, c        float64 // slope before, and change of slope at the break
	straight    bool    // one line fits exactly
	improvement float64 // 1 - sse2/sse1
	p           float64 // F-test p-value, adjusted for the breakpoint search
}

// fitHinge fits y = a + b·x + c·max(0, x − x_k) by least squares for
// every interior sample x_k (each segment keeps at least two points,
// counting the shared one), keeps the x_k with the smallest sum of
// squared errors SSE2, and compares it with the least-squares line
// (SSE1) by the F-test with 1 and n−3 degrees of freedom:
//
//	F = (SSE1 − SSE2) / (SSE2 / (n − 3))
//
// Because x_k is the best of n−2 candidates, the plain F-test p-value
// is optimistic: on noisy straight lines of 12 points it falls below
// 0.05 about a fifth of the time. The p-value returned is therefore
// Bonferroni-adjusted, min(1, (n−2)·p), which keeps false knees at or
// below the nominal rate. A straight line (SSE1 ≈ 0) yields p = 1; an
// exact hinge (SSE2 ≈ 0 < SSE1) yields p = 0.
func fitHinge(u, v []float64) hingeFit {
	n := len(u)
	_, sse1 := kneeLine(u, v)
	mean := 0.0
	for _, vi := range v {
		mean += vi / float64(n)
	}
	sst := 0.0
	for _, vi := range v {
		sst += (vi - mean) * (vi - mean)
	}
	best := hingeFit{sse: math.Inf(1)}
	for k := 1; k <= n-2; k++ {
		b, c, sse, ok := kneeHingeAt(u, v, k)
		if ok && sse < best.sse {
			best = hingeFit{ok: true, k: k, b: b, c: c, sse: sse}
		}
	}
	if !best.ok || !kneeFinite(sse1) || !kneeFinite(sst) {
		return hingeFit{}
	}
	best.sse = math.Min(best.sse, sse1)
	best.p = 1
	switch {
	case sse1 <= kneeExact*sst:
		best.straight = true
	case best.sse <= kneeExact*sst:
		best.improvement, best.p = 1, 0
	default:
		best.improvement = 1 - best.sse/sse1
		f := (sse1 - best.sse) / (best.sse / float64(n-3))
		best.p = math.Min(1, float64(n-2)*fSurvival(f, 1, float64(n-3)))
	}
	return best
}

// kneeLine fits v = a + b·u by least squares and returns b and the sum
// of squared errors.
func kneeLine(u, v []float64) (b, sse float64) {
	n := float64(len(u))
	mu, mv := 0.0, 0.0
	for i := range u {
		mu += u[i] / n
		mv += v[i] / n
	}
	sxx, sxy := 0.0, 0.0
	for i := range u {
		sxx += (u[i] - mu) * (u[i] - mu)
		sxy += (u[i] - mu) * (v[i] - mv)
	}
	if sxx > 0 {
		b = sxy / sxx
	}
	for i := range u {
		r := v[i] - mv - b*(u[i]-mu)
		sse += r * r
	}
	return b, sse
}

// kneeHingeAt fits v = a + b·u + c·max(0, u − u_k) by solving the 3×3
// normal equations, and returns b, c and the sum of squared errors.
func kneeHingeAt(u, v []float64, k int) (b, c, sse float64, ok bool) {
	var m [3][4]float64
	for i := range u {
		row := [3]float64{1, u[i], math.Max(0, u[i]-u[k])}
		for r := 0; r < 3; r++ {
			for s := 0; s < 3; s++ {
				m[r][s] += row[r] * row[s]
			}
			m[r][3] += row[r] * v[i]
		}
	}
	coef, ok := kneeSolve3(m)
	if !ok {
		return 0, 0, 0, false
	}
	for i := range u {
		r := v[i] - coef[0] - coef[1]*u[i] - coef[2]*math.Max(0, u[i]-u[k])
		sse += r * r
	}
	if !kneeFinite(sse) {
		return 0, 0, 0, false
	}
	return coef[1], coef[2], sse, true
}

// kneeSolve3 solves an augmented 3×3 linear system by Gaussian
// elimination with partial pivoting; it reports false when the system
// is singular.
func kneeSolve3(m [3][4]float64) ([3]float64, bool) {
	var x [3]float64
	for col := 0; col < 3; col++ {
		p := col
		for r := col + 1; r < 3; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[p][col]) {
				p = r
			}
		}
		if !(math.Abs(m[p][col]) > 1e-300) {
			return x, false
		}
		m[col], m[p] = m[p], m[col]
		for r := col + 1; r < 3; r++ {
			f := m[r][col] / m[col][col]
			for s := col; s < 4; s++ {
				m[r][s] -= f * m[col][s]
			}
		}
	}
	for r := 2; r >= 0; r-- {
		sum := m[r][3]
		for s := r + 1; s < 3; s++ {
			sum -= m[r][s] * x[s]
		}
		x[r] = sum / m[r][r]
	}
	return x, kneeFinite(x[0]) && kneeFinite(x[1]) && kneeFinite(x[2])
}

// fSurvival returns P(F > f) for the F distribution with d1 and d2
// degrees of freedom: I_{d2/(d2+d1·f)}(d2/2, d1/2), where I is the
// regularized incomplete beta function.
func fSurvival(f, d1, d2 float64) float64 {
	switch {
	case math.IsNaN(f):
		return 1
	case f <= 0:
		return 1
	case math.IsInf(f, 1):
		return 0
	}
	return regIncBeta(d2/(d2+d1*f), d2/2, d1/2)
}

// regIncBeta returns the regularized incomplete beta function I_x(a, b)
// for a, b > 0, evaluated by its continued fraction (modified Lentz
// method), using the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where that
// converges faster.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case math.IsNaN(x) || !(a > 0) || !(b > 0):
		return math.NaN()
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(x, a, b) / a
	}
	return 1 - front*betaCF(1-x, b, a)/b
}

// betaCF evaluates the continued fraction of the incomplete beta
// function (Numerical Recipes, §6.4).
func betaCF(x, a, b float64) float64 {
	const (
		maxIter = 500
		eps     = 1e-15
		tiny    = 1e-300
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d, c = 1+aa*d, 1+aa/c
		if math.Abs(d) < tiny {
			d = tiny
		}
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d, c = 1+aa*d, 1+aa/c
		if math.Abs(d) < tiny {
			d = tiny
		}
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
