package analysis

import (
	"math"
)

// This file holds the curve models a knee is judged against: one
// continuous two-segment line (the hinge) and the smooth alternatives
// (line, quadratic, power law a·x^k + c, exponential a·e^{bx} + c and, on
// a log axis, a quadratic in log-log), each fitted by least squares and
// compared by AICc.

// regimeData is one series prepared for fitting: distinct sorted axis
// values with one y each.
type regimeData struct {
	x    []float64 // axis values, sorted, distinct
	u    []float64 // x mapped onto [0, 1]
	s    []float64 // log10 x mapped onto [0, 1] (logX only)
	y    []float64
	ly   []float64 // ln y (logY only)
	logY bool      // residuals are ln y − ln f: relative errors, as benchmark noise is
	logX bool      // the hinge is fitted in log x against ln y

	// quick makes fitY take one relative-error step without logarithms:
	// the objective of the searches over a nonlinear parameter, whose
	// best point is then refitted in full.
	quick bool
	// scratch buffers, reused by every fit of this series
	f0, w, z, f, col, tmp []float64
}

// regimeModel is one fitted model.
type regimeModel struct {
	name   string
	params int     // fitted parameters, the breakpoint included
	sse    float64 // residual sum of squares on the fitted scale
	theta  float64 // nonlinear parameter: k, b or the breakpoint (normalised)
	coef   [3]float64
	ok     bool
}

// Model names.
const (
	modelLine        = "line"
	modelQuadratic   = "quadratic"
	modelPower       = "power law"
	modelExponential = "exponential"
	modelLogQuad     = "log-log quadratic"
	modelHinge       = "hinge"
)

func newRegimeData(x, y []float64, logX bool) *regimeData {
	d := &regimeData{x: x, y: y, logY: true}
	n0 := len(x)
	d.f0, d.w, d.z, d.f, d.col, d.tmp = make([]float64, n0), make([]float64, n0), make([]float64, n0), make([]float64, n0), make([]float64, n0), make([]float64, n0)
	for _, v := range y {
		if !(v > 0) {
			d.logY = false
		}
	}
	n := len(x)
	span := x[n-1]/2 - x[0]/2
	d.u = make([]float64, n)
	for i, v := range x {
		d.u[i] = (v/2 - x[0]/2) / span
	}
	if d.logY {
		d.ly = make([]float64, n)
		for i, v := range y {
			d.ly[i] = math.Log(v)
		}
	}
	if logX && d.logY && x[0] > 0 {
		d.logX = true
		l0, l1 := math.Log10(x[0]), math.Log10(x[n-1])
		d.s = make([]float64, n)
		for i, v := range x {
			d.s[i] = (math.Log10(v) - l0) / (l1 - l0)
		}
	}
	return d
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
func (d *regimeData) fitY(cols [][]float64) (coef [3]float64, sse float64, ok bool) {
	if !d.logY {
		c, ok := wls(cols, d.y, nil)
		if !ok {
			return coef, math.Inf(1), false
		}
		f := evalCols(cols, c, d.f)
		for i := range f {
			r := d.y[i] - f[i]
			sse += r * r
		}
		return c, sse, kneeFinite(sse)
	}
	f0, w, z := d.f0, d.w, d.z
	if d.quick {
		for i, y := range d.y {
			w[i] = 1 / (y * y)
		}
		c, wok := wls(cols, d.y, w)
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
func (d *regimeData) fitLog(cols [][]float64) (coef [3]float64, sse float64, ok bool) {
	c, ok := wls(cols, d.ly, nil)
	if !ok {
		return coef, math.Inf(1), false
	}
	f := evalCols(cols, c, d.f)
	for i := range f {
		r := d.ly[i] - f[i]
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
	n := len(d.x)
	one := ones(n)
	var out []regimeModel
	lin := func(name string, cols ...[]float64) regimeModel {
		c, sse, ok := d.fitY(cols)
		return regimeModel{name: name, params: len(cols), sse: sse, coef: c, ok: ok}
	}
	out = append(out, lin(modelLine, one, d.u))
	out = append(out, lin(modelQuadratic, one, d.u, mapped(d.u, func(u float64) float64 { return u * u })))
	if d.x[0] > 0 {
		xmax := d.x[n-1]
		power := func(k float64) ([3]float64, float64, bool) {
			for i, x := range d.x {
				d.tmp[i] = math.Pow(x/xmax, k)
			}
			return d.fitY([][]float64{one, d.tmp})
		}
		k, c, sse, ok := d.search(grid1(-3, 6, 18), power)
		out = append(out, regimeModel{name: modelPower, params: 3, sse: sse, theta: k, coef: c, ok: ok})
	}
	expo := func(b float64) ([3]float64, float64, bool) {
		for i, u := range d.u {
			d.tmp[i] = math.Exp(b * u)
		}
		return d.fitY([][]float64{one, d.tmp})
	}
	b, c, sse, ok := d.search(grid1(-20, 20, 20), expo)
	out = append(out, regimeModel{name: modelExponential, params: 3, sse: sse, theta: b, coef: c, ok: ok})
	if d.logX {
		c, sse, ok := d.fitLog([][]float64{one, d.s, mapped(d.s, func(s float64) float64 { return s * s })})
		out = append(out, regimeModel{name: modelLogQuad, params: 3, sse: sse, coef: c, ok: ok})
	}
	return out
}

// hingeModel fits the continuous two-segment line with the breakpoint
// free between the second and the second-to-last point, so that each
// segment rests on at least two points: in u against y (relative
// residuals), or with logAxis in normalised log10 x against ln y (a
// two-segment power law). theta is the breakpoint on that normalised
// scale. The hinge has 4 parameters; one more when the caller chose
// between the two families.
func (d *regimeData) hingeModel(logAxis bool) regimeModel {
	n := len(d.x)
	if n < 4 {
		return regimeModel{name: modelHinge, params: 4}
	}
	one := ones(n)
	axis, fit := d.u, d.fitY
	if logAxis {
		axis, fit = d.s, d.fitLog
	}
	at := func(tau float64) ([3]float64, float64, bool) {
		for i, v := range axis {
			d.tmp[i] = math.Max(0, v-tau)
		}
		return fit([][]float64{one, axis, d.tmp})
	}
	// A grid of two steps between neighbouring points, then a golden
	// section search around the best grid point.
	var grid []float64
	for i := 1; i < n-2; i++ {
		for j := 0; j < 2; j++ {
			grid = append(grid, axis[i]+(axis[i+1]-axis[i])*float64(j)/2)
		}
	}
	grid = append(grid, axis[n-2])
	tau, c, sse, ok := d.search(grid, at)
	return regimeModel{name: modelHinge, params: 4, sse: sse, theta: tau, coef: c, ok: ok}
}

type fitFunc func(theta float64) (coef [3]float64, sse float64, ok bool)

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

// search minimises the SSE of fit over a grid of its nonlinear parameter
// with the quick objective (see quick), then refits the best point in
// full.
func (d *regimeData) search(grid []float64, fit fitFunc) (theta float64, coef [3]float64, sse float64, ok bool) {
	d.quick = d.logY
	theta, _, _, ok = searchGrid(grid, fit)
	d.quick = false
	if !ok {
		return 0, coef, math.Inf(1), false
	}
	coef, sse, ok = fit(theta)
	return theta, coef, sse, ok
}

// searchGrid evaluates fit on a sorted grid and refines the best point by
// golden-section search between its neighbours.
func searchGrid(grid []float64, fit fitFunc) (theta float64, coef [3]float64, sse float64, ok bool) {
	sse = math.Inf(1)
	bi := -1
	for i, g := range grid {
		c, s, fok := fit(g)
		if fok && s < sse {
			theta, coef, sse, ok, bi = g, c, s, true, i
		}
	}
	if !ok {
		return 0, coef, math.Inf(1), false
	}
	a, b := grid[max(bi-1, 0)], grid[min(bi+1, len(grid)-1)]
	const phi = 0.6180339887498949
	f := func(t float64) float64 {
		_, s, fok := fit(t)
		if !fok {
			return math.Inf(1)
		}
		return s
	}
	x1, x2 := b-phi*(b-a), a+phi*(b-a)
	f1, f2 := f(x1), f(x2)
	for it := 0; it < 30 && b-a > 1e-4*(grid[len(grid)-1]-grid[0]); it++ {
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
	t := x1
	if f2 < f1 {
		t = x2
	}
	if c, s, fok := fit(t); fok && s < sse {
		theta, coef, sse = t, c, s
	}
	return theta, coef, sse, true
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
func wls(cols [][]float64, z, w []float64) ([3]float64, bool) {
	p := len(cols)
	var m [3][4]float64
	var c [3]float64
	for i := range z {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		for r := 0; r < p; r++ {
			for s := 0; s < p; s++ {
				m[r][s] += wi * cols[r][i] * cols[s][i]
			}
			m[r][p] += wi * cols[r][i] * z[i]
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
func evalCols(cols [][]float64, c [3]float64, f []float64) []float64 {
	clear(f)
	for j, col := range cols {
		for i, v := range col {
			f[i] += c[j] * v
		}
	}
	return f
}
