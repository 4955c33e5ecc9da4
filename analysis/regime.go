package analysis

import (
	"math"
)

// This file holds the curve models a knee is judged against: one
// continuous two-segment line (the hinge) and the smooth alternatives,
// each fitted by least squares and compared by AICc. The smooth models
// are the line, the quadratic, the power law a·x^k + c, the exponential
// a·e^{bx} + c, and two flexible ones that hold curves outside those
// families: the cubic (an inflection, as a logistic rise has) and the sum
// of two powers a·x^j + b·x^k (x + x^1.5, 5√x + x, x + x³/50, and a
// cubic's relatives); on a log axis a quadratic and a cubic in log-log
// join them.

// regimeAxis is what every fit along one series' axis shares, whatever
// the costs: the axis mapped onto [0, 1] (linear and log) and the basis
// columns at every grid point the nonlinear searches start from. It is
// built once per series, so that the bootstrap's refits only solve small
// least-squares problems.
type regimeAxis struct {
	x      []float64 // axis values, sorted, distinct
	u      []float64 // x mapped onto [0, 1]
	s      []float64 // log10 x mapped onto [0, 1]; nil unless logX and every x > 0
	one    []float64
	u2, u3 []float64
	s2, s3 []float64
	pos    bool      // every x > 0: the power models apply
	lnx    []float64 // ln(x/x_max) (pos only): powers as exponentials

	pow    gridCols // (x/x_max)^k, the power law's exponents
	twoPow gridCols // (x/x_max)^k, the sum of two powers' exponents (0 included)
	expo   gridCols // e^{b·u}
	hingeU gridCols // max(0, u − τ)
	hingeS gridCols // max(0, s − τ) (s only)
}

// gridCols holds one basis column per grid value of a nonlinear
// parameter.
type gridCols struct {
	at   []float64
	cols [][]float64
}

func newGridCols(at []float64, col func(t float64, dst []float64), n int) gridCols {
	g := gridCols{at: at, cols: make([][]float64, len(at))}
	for i, t := range at {
		g.cols[i] = make([]float64, n)
		col(t, g.cols[i])
	}
	return g
}

// newRegimeAxis prepares the axis x (sorted, distinct, at least two
// values); with logX and positive values it also maps log10 x.
func newRegimeAxis(x []float64, logX bool) *regimeAxis {
	n := len(x)
	a := &regimeAxis{x: x, one: ones(n), pos: x[0] > 0}
	span := x[n-1]/2 - x[0]/2
	a.u = make([]float64, n)
	for i, v := range x {
		a.u[i] = (v/2 - x[0]/2) / span
	}
	a.u2 = mapped(a.u, func(u float64) float64 { return u * u })
	a.u3 = mapped(a.u, func(u float64) float64 { return u * u * u })
	if logX && a.pos {
		l0, l1 := math.Log10(x[0]), math.Log10(x[n-1])
		a.s = make([]float64, n)
		for i, v := range x {
			a.s[i] = (math.Log10(v) - l0) / (l1 - l0)
		}
		a.s2 = mapped(a.s, func(s float64) float64 { return s * s })
		a.s3 = mapped(a.s, func(s float64) float64 { return s * s * s })
	}
	if a.pos {
		a.lnx = mapped(x, func(v float64) float64 { return math.Log(v / x[n-1]) })
		a.pow = newGridCols(grid1(-3, 6, 18), a.power, n)
		a.twoPow = newGridCols([]float64{-1, 0, 0.5, 1, 1.5, 2, 2.5, 3, 4, 5}, a.power, n)
	}
	a.expo = newGridCols(grid1(-20, 20, 20), a.exponential, n)
	if n >= kneeMinPoints {
		a.hingeU = newGridCols(hingeGrid(a.u), hingeCol(a.u), n)
		if a.s != nil {
			a.hingeS = newGridCols(hingeGrid(a.s), hingeCol(a.s), n)
		}
	}
	return a
}

// power writes (x/x_max)^k into dst.
func (a *regimeAxis) power(k float64, dst []float64) {
	for i, l := range a.lnx {
		dst[i] = math.Exp(k * l)
	}
}

// exponential writes e^{b·u} into dst.
func (a *regimeAxis) exponential(b float64, dst []float64) {
	for i, u := range a.u {
		dst[i] = math.Exp(b * u)
	}
}

// hingeCol returns the function writing max(0, axis − τ) into dst.
func hingeCol(axis []float64) func(tau float64, dst []float64) {
	return func(tau float64, dst []float64) {
		for i, v := range axis {
			dst[i] = math.Max(0, v-tau)
		}
	}
}

// hingeGrid is where the breakpoint search starts: two steps between
// neighbouring points, from the second point to the second-to-last, so
// that each segment rests on at least two points.
func hingeGrid(axis []float64) []float64 {
	n := len(axis)
	var grid []float64
	for i := 1; i < n-2; i++ {
		for j := 0; j < 2; j++ {
			grid = append(grid, axis[i]+(axis[i+1]-axis[i])*float64(j)/2)
		}
	}
	return append(grid, axis[n-2])
}

// regimeData is one series prepared for fitting: its axis and one y per
// axis value.
type regimeData struct {
	*regimeAxis
	y    []float64
	ly   []float64 // ln y (logY only)
	logY bool      // residuals are ln y − ln f: relative errors, as benchmark noise is
	logX bool      // the hinge may be fitted in log x against ln y

	// quick makes fitY take one relative-error step without logarithms:
	// the objective of the searches over a nonlinear parameter, whose
	// best point is then refitted in full.
	quick bool
	// wq are the weights 1/y² of the quick objective.
	wq []float64
	// scratch buffers, reused by every fit of this series
	f0, w, z, f, col, tmp, tmp2 []float64
	cb                          [4][]float64
}

// regimeModel is one fitted model.
type regimeModel struct {
	name   string
	params int     // fitted parameters, the breakpoint included
	sse    float64 // residual sum of squares on the fitted scale
	theta  float64 // nonlinear parameter: k, b or the breakpoint (normalised)
	coef   [4]float64
	ok     bool
}

// Model names.
const (
	modelLine        = "line"
	modelQuadratic   = "quadratic"
	modelCubic       = "cubic"
	modelPower       = "power law"
	modelTwoPowers   = "two powers"
	modelExponential = "exponential"
	modelLogQuad     = "log-log quadratic"
	modelLogCubic    = "log-log cubic"
	modelHinge       = "hinge"
)

func newRegimeData(a *regimeAxis, y []float64) *regimeData {
	n := len(y)
	d := &regimeData{regimeAxis: a, y: y, logY: true}
	d.f0, d.w, d.z, d.f, d.col, d.tmp, d.tmp2 = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for _, v := range y {
		if !(v > 0) {
			d.logY = false
		}
	}
	if d.logY {
		d.ly, d.wq = make([]float64, n), make([]float64, n)
		for i, v := range y {
			d.ly[i], d.wq[i] = math.Log(v), 1/(v*v)
		}
	}
	d.logX = a.s != nil && d.logY
	return d
}

// with returns the columns cs in the series' column buffer (no
// allocation per fit).
func (d *regimeData) with(cs ...[]float64) [][]float64 {
	n := copy(d.cb[:], cs)
	return d.cb[:n]
}

// target is what the residuals are measured on: ln y or y.
func (d *regimeData) target() []float64 {
	if d.logY {
		return d.ly
	}
	return d.y
}

// sst is the total sum of squares of the target about its mean.
func (d *regimeData) sst() float64 {
	z := d.target()
	m := 0.0
	for _, v := range z {
		m += v / float64(len(z))
	}
	s := 0.0
	for _, v := range z {
		s += (v - m) * (v - m)
	}
	return s
}

// fitY fits y ≈ Σ coef_j·cols_j. With logY the fit minimises
// Σ (ln y − ln f)² by Gauss–Newton steps written as weighted least
// squares (weights 1/f², working response f·(1 + ln y − ln f)); the
// first step is the relative-error fit. A model that predicts f ≤ 0 at a
// point cannot be measured in ln y and is rejected.
func (d *regimeData) fitY(cols [][]float64) (coef [4]float64, sse float64, ok bool) {
	if !d.logY {
		return d.ols(cols, d.y)
	}
	f0, w, z := d.f0, d.w, d.z
	if d.quick {
		c, wok := wls(cols, d.y, d.wq)
		if !wok {
			return coef, math.Inf(1), false
		}
		f := evalCols(cols, c, d.f)
		for i := range f {
			if !(f[i] > 0) {
				return coef, math.Inf(1), false
			}
			r := (d.y[i] - f[i]) / d.y[i]
			sse += r * r
		}
		return c, sse, kneeFinite(sse)
	}
	copy(f0, d.y)
	lf0 := d.ly // ln f0 on the first step
	best := math.Inf(1)
	for it := 0; it < 3; it++ {
		for i := range f0 {
			w[i] = 1 / (f0[i] * f0[i])
			z[i] = f0[i] * (1 + d.ly[i] - lf0[i])
		}
		c, wok := wls(cols, z, w)
		if !wok {
			break
		}
		f := evalCols(cols, c, d.f)
		s, valid := 0.0, true
		for i := range f {
			if !(f[i] > 0) {
				valid = false
				break
			}
			lf := math.Log(f[i])
			r := d.ly[i] - lf
			s += r * r
			f0[i], d.col[i] = f[i], lf
		}
		if !valid || !kneeFinite(s) {
			break
		}
		improved := s < best*(1-1e-6)
		if s < best {
			best, coef, ok = s, c, true
		}
		if !improved {
			break
		}
		lf0 = d.col
	}
	return coef, best, ok
}

// fitLog fits ln y ≈ Σ coef_j·cols_j by ordinary least squares.
func (d *regimeData) fitLog(cols [][]float64) (coef [4]float64, sse float64, ok bool) {
	return d.ols(cols, d.ly)
}

// ols fits y ≈ Σ coef_j·cols_j by ordinary least squares; sse is the sum
// of squared residuals.
func (d *regimeData) ols(cols [][]float64, y []float64) (coef [4]float64, sse float64, ok bool) {
	c, ok := wls(cols, y, nil)
	if !ok {
		return coef, math.Inf(1), false
	}
	f := evalCols(cols, c, d.f)
	for i := range f {
		r := y[i] - f[i]
		sse += r * r
	}
	return c, sse, kneeFinite(sse)
}

func ones(n int) []float64 {
	c := make([]float64, n)
	for i := range c {
		c[i] = 1
	}
	return c
}

func mapped(v []float64, f func(float64) float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = f(x)
	}
	return out
}

// smoothModels fits every smooth alternative.
func (d *regimeData) smoothModels() []regimeModel {
	var out []regimeModel
	lin := func(name string, cols ...[]float64) regimeModel {
		c, sse, ok := d.fitY(cols)
		return regimeModel{name: name, params: len(cols), sse: sse, coef: c, ok: ok}
	}
	out = append(out, lin(modelLine, d.one, d.u))
	out = append(out, lin(modelQuadratic, d.one, d.u, d.u2))
	out = append(out, lin(modelCubic, d.one, d.u, d.u2, d.u3))
	withOne := func(col []float64) [][]float64 { return d.with(d.one, col) }
	if d.pos {
		k, c, sse, ok := d.search(d.pow, withOne, d.power, d.fitY)
		out = append(out, regimeModel{name: modelPower, params: 3, sse: sse, theta: k, coef: c, ok: ok})
		out = append(out, d.twoPowers())
	}
	b, c, sse, ok := d.search(d.expo, withOne, d.exponential, d.fitY)
	out = append(out, regimeModel{name: modelExponential, params: 3, sse: sse, theta: b, coef: c, ok: ok})
	if d.logX {
		c, sse, ok := d.fitLog([][]float64{d.one, d.s, d.s2})
		out = append(out, regimeModel{name: modelLogQuad, params: 3, sse: sse, coef: c, ok: ok})
		c, sse, ok = d.fitLog([][]float64{d.one, d.s, d.s2, d.s3})
		out = append(out, regimeModel{name: modelLogCubic, params: 4, sse: sse, coef: c, ok: ok})
	}
	return out
}

// twoPowers fits a·x^j + b·x^k (j < k, 4 parameters): every pair of grid
// exponents with the quick objective, the three best pairs refined by
// Gauss–Newton steps, the best result refitted in full.
func (d *regimeData) twoPowers() regimeModel {
	g := d.twoPow
	d.quick = d.logY
	defer func() { d.quick = false }()
	// The three best grid pairs: the valley of good (j, k) runs across
	// the grid, and its lowest grid point can lie in another basin.
	type start struct {
		sse  float64
		j, k float64
	}
	var starts [3]start
	for i := range starts {
		starts[i].sse = math.Inf(1)
	}
	for j := range g.at {
		for k := j + 1; k < len(g.at); k++ {
			_, s, ok := d.fitY(d.with(g.cols[j], g.cols[k]))
			if !ok || !(s < starts[2].sse) {
				continue
			}
			i := 2
			for ; i > 0 && s < starts[i-1].sse; i-- {
				starts[i] = starts[i-1]
			}
			starts[i] = start{s, g.at[j], g.at[k]}
		}
	}
	if math.IsInf(starts[0].sse, 1) {
		return regimeModel{name: modelTwoPowers, params: 4, sse: math.Inf(1)}
	}
	best := start{sse: math.Inf(1)}
	for _, st := range starts {
		if math.IsInf(st.sse, 1) {
			continue
		}
		j, k, s := d.twoPowersNewton(st.j, st.k)
		if s < best.sse {
			best = start{s, j, k}
		}
	}
	d.quick = false
	d.power(best.j, d.tmp2)
	d.power(best.k, d.tmp)
	c, sse, ok := d.fitY(d.with(d.tmp2, d.tmp))
	return regimeModel{name: modelTwoPowers, params: 4, sse: sse, theta: best.k, coef: c, ok: ok}
}

// twoPowersNewton refines the exponents (j, k) of a·x^j + b·x^k from a
// grid point by damped Gauss–Newton steps on all four parameters at once
// (the exponents trade against each other, so one at a time would crawl
// along the valley), with the quick objective's weights; j stays below k.
// It returns the exponents and their quick SSE.
func (d *regimeData) twoPowersNewton(j, k float64) (float64, float64, float64) {
	const gap = 0.05 // keeps the two columns apart
	pj, pk, dj, dk := d.tmp, d.tmp2, d.col, d.f0
	sse := func(j, k float64) (float64, [4]float64, bool) {
		d.power(j, pj)
		d.power(k, pk)
		c, s, ok := d.fitY(d.with(pj, pk))
		return s, c, ok
	}
	best, c, ok := sse(j, k)
	if !ok || !d.logY {
		return j, k, best
	}
	r := d.z
	for it := 0; it < 8; it++ {
		d.power(j, pj)
		d.power(k, pk)
		for i, l := range d.lnx {
			r[i] = d.y[i] - c[0]*pj[i] - c[1]*pk[i]
			dj[i], dk[i] = c[0]*l*pj[i], c[1]*l*pk[i]
		}
		step, sok := wls(d.with(pj, pk, dj, dk), r, d.wq)
		if !sok {
			break
		}
		improved := false
		for h := 1.0; h > 1.0/32; h /= 2 {
			nj, nk := j+h*step[2], k+h*step[3]
			if !(nj < nk-gap) || !kneeFinite(nj) || !kneeFinite(nk) {
				continue
			}
			if s, nc, nok := sse(nj, nk); nok && s < best {
				converged := best-s < 1e-9*best
				best, c, j, k, improved = s, nc, nj, nk, true
				if converged {
					return j, k, best
				}
				break
			}
		}
		if !improved {
			break
		}
	}
	return j, k, best
}

func okSSE(s float64, ok bool) float64 {
	if !ok {
		return math.Inf(1)
	}
	return s
}

// hingeModel fits the continuous two-segment line with the breakpoint
// free between the second and the second-to-last point, so that each
// segment rests on at least two points: in u against y (relative
// residuals), or with logAxis in normalised log10 x against ln y (a
// two-segment power law). theta is the breakpoint on that normalised
// scale. The hinge has 4 parameters; one more when the caller chose
// between the two families.
func (d *regimeData) hingeModel(logAxis bool) regimeModel {
	if len(d.x) < kneeMinPoints {
		return regimeModel{name: modelHinge, params: 4}
	}
	axis, g, fit := d.u, d.hingeU, d.fitY
	if logAxis {
		axis, g, fit = d.s, d.hingeS, d.fitLog
	}
	cols := func(col []float64) [][]float64 { return d.with(d.one, axis, col) }
	tau, c, sse, ok := d.search(g, cols, hingeCol(axis), fit)
	return regimeModel{name: modelHinge, params: 4, sse: sse, theta: tau, coef: c, ok: ok}
}

type fitFunc func(cols [][]float64) (coef [4]float64, sse float64, ok bool)

// grid1 returns steps+1 points spread evenly over [lo, hi], with 0
// moved off zero (where a power or an exponential is a constant).
func grid1(lo, hi float64, steps int) []float64 {
	grid := make([]float64, steps+1)
	for i := range grid {
		grid[i] = lo + (hi-lo)*float64(i)/float64(steps)
		if math.Abs(grid[i]) < 1e-9 {
			grid[i] = (hi - lo) / float64(steps) / 10
		}
	}
	return grid
}

// search minimises fit's SSE over a nonlinear parameter: every grid
// point (its columns precomputed in g) with the quick objective (see
// quick), the best one refined by golden-section search between its
// neighbours, and that point refitted in full. cols turns the
// parameter's column into the model's columns; col writes the column
// for any parameter value.
func (d *regimeData) search(g gridCols, cols func([]float64) [][]float64, col func(float64, []float64), fit fitFunc) (theta float64, coef [4]float64, sse float64, ok bool) {
	d.quick = d.logY
	defer func() { d.quick = false }()
	best, bi := math.Inf(1), -1
	for i, c := range g.cols {
		if _, s, fok := fit(cols(c)); fok && s < best {
			best, bi = s, i
		}
	}
	if bi < 0 {
		return 0, coef, math.Inf(1), false
	}
	lo, hi := g.at[max(bi-1, 0)], g.at[min(bi+1, len(g.at)-1)]
	theta, _ = refine(g.at[bi], best, 0, lo, hi, func(t float64) float64 {
		col(t, d.tmp)
		_, s, fok := fit(cols(d.tmp))
		return okSSE(s, fok)
	})
	d.quick = false
	col(theta, d.tmp)
	coef, sse, ok = fit(cols(d.tmp))
	return theta, coef, sse, ok
}

// refine minimises f by golden-section search around t0, where f is f0:
// over [t0 − step, t0 + step] when step > 0, else over [lo, hi]; either
// way within [lo, hi], to a hundredth of that bracket. It returns t0 and
// f0 unless a point found is better.
func refine(t0, f0, step, lo, hi float64, f func(float64) float64) (float64, float64) {
	a, b := lo, hi
	if step > 0 {
		a, b = math.Max(t0-step, lo), math.Min(t0+step, hi)
	}
	if !(a < b) {
		return t0, f0
	}
	const phi = 0.6180339887498949
	tol := 1e-2 * (b - a)
	x1, x2 := b-phi*(b-a), a+phi*(b-a)
	f1, f2 := f(x1), f(x2)
	for it := 0; it < 20 && b-a > tol; it++ {
		if f1 < f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - phi*(b-a)
			f1 = f(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + phi*(b-a)
			f2 = f(x2)
		}
	}
	t, ft := x1, f1
	if f2 < f1 {
		t, ft = x2, f2
	}
	if ft < f0 {
		return t, ft
	}
	return t0, f0
}

// aicc is the small-sample Akaike criterion of a least-squares fit with
// p fitted parameters (the residual variance counts as one more):
// n·ln(SSE/n) + 2K + 2K(K+1)/(n−K−1), K = p+1. SSE is floored at floor so
// that exact fits compare by their parameter counts. It is +Inf when n is
// too small for K.
func aicc(sse float64, n, p int, floor float64) float64 {
	k := float64(p + 1)
	nf := float64(n)
	if nf-k-1 <= 0 {
		return math.Inf(1)
	}
	sse = math.Max(sse, floor)
	return nf*math.Log(sse/nf) + 2*k + 2*k*(k+1)/(nf-k-1)
}

// wls solves the weighted least-squares problem min Σ w_i (z_i − Σ c_j
// cols_j[i])² (w nil: all 1) through the normal equations with partial
// pivoting. It reports false when the columns are (numerically)
// dependent.
func wls(cols [][]float64, z, w []float64) ([4]float64, bool) {
	p := len(cols)
	var m [4][5]float64
	var c [4]float64
	for i := range z {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		for r := 0; r < p; r++ {
			wc := wi * cols[r][i]
			for s := r; s < p; s++ {
				m[r][s] += wc * cols[s][i]
			}
			m[r][p] += wc * z[i]
		}
	}
	for r := 1; r < p; r++ {
		for s := 0; s < r; s++ {
			m[r][s] = m[s][r]
		}
	}
	scale := 0.0
	for r := 0; r < p; r++ {
		scale = math.Max(scale, math.Abs(m[r][r]))
	}
	for col := 0; col < p; col++ {
		piv := col
		for r := col + 1; r < p; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[piv][col]) {
				piv = r
			}
		}
		if !(math.Abs(m[piv][col]) > 1e-11*scale) {
			return c, false
		}
		m[col], m[piv] = m[piv], m[col]
		for r := col + 1; r < p; r++ {
			f := m[r][col] / m[col][col]
			for s := col; s <= p; s++ {
				m[r][s] -= f * m[col][s]
			}
		}
	}
	for r := p - 1; r >= 0; r-- {
		sum := m[r][p]
		for s := r + 1; s < p; s++ {
			sum -= m[r][s] * c[s]
		}
		c[r] = sum / m[r][r]
		if !kneeFinite(c[r]) {
			return c, false
		}
	}
	return c, true
}

// evalCols writes Σ c_j·cols_j into f and returns it.
func evalCols(cols [][]float64, c [4]float64, f []float64) []float64 {
	clear(f)
	for j, col := range cols {
		for i, v := range col {
			f[i] += c[j] * v
		}
	}
	return f
}
