package analysis

import (
	"math"
	"testing"
)

// TestRegimeModelsFitTheirCurves: every model, fitted to exact points of
// a curve of its own family (exponents and the breakpoint off the search
// grids, so that the refinement is exercised), explains at least
// 99.99% of the variation on the fitted scale, and the knee decision on
// an exact smooth curve is never a knee.
func TestRegimeModelsFitTheirCurves(t *testing.T) {
	lin, sizes := axis1to(12), sizes4to4096()
	tests := []struct {
		model string
		xs    []float64
		logX  bool
		f     func(float64) float64
	}{
		{modelLine, lin, false, func(x float64) float64 { return 3 + 2*x }},
		{modelQuadratic, lin, false, func(x float64) float64 { return 5 + 2*x + 0.3*x*x }},
		{modelCubic, lin, false, func(x float64) float64 { return 20 + x*x - 0.05*x*x*x }},
		{modelPower, lin, false, func(x float64) float64 { return 4 + 2*math.Pow(x, 1.37) }},
		{modelTwoPowers, lin, false, func(x float64) float64 { return 3*math.Pow(x, 0.7) + 0.02*math.Pow(x, 2.3) }},
		{modelTwoPowers, sizes, true, func(x float64) float64 { return x + x*x*x/50 }},
		{modelExponential, lin, false, func(x float64) float64 { return 2 + math.Exp(0.33*x) }},
		{modelLogQuad, sizes, true, func(x float64) float64 {
			l := math.Log(x)
			return math.Exp(1 + 0.8*l + 0.05*l*l)
		}},
		{modelLogCubic, sizes, true, func(x float64) float64 {
			l := math.Log(x)
			return math.Exp(1 + 0.5*l + 0.1*l*l - 0.006*l*l*l)
		}},
		{modelHinge, lin, false, hingeCurve(10, 1, 6.3, 4)},
		{modelHinge, sizes, true, hingeCurve(100, 1, 300, 4)},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			ys := make([]float64, len(tt.xs))
			for i, x := range tt.xs {
				ys[i] = tt.f(x)
			}
			dec := kneeDecide(newRegimeAxis(tt.xs, tt.logX), ys, KneeOptions{LogX: tt.logX}.withDefaults())
			d := newRegimeData(newRegimeAxis(tt.xs, tt.logX), ys)
			sst := d.sst()
			found := false
			for _, m := range dec.models {
				if m.Name != tt.model {
					continue
				}
				found = true
				if m.RSS > 1e-4*sst {
					t.Errorf("%s fits its own curve with RSS %g, %.3g%% of the variation; want at most 0.01%%", m.Name, m.RSS, 100*m.RSS/sst)
				}
			}
			if !found {
				t.Errorf("no %s among the models fitted: %+v", tt.model, dec.models)
			}
			if tt.model != modelHinge && dec.verdict == KneeFound {
				t.Errorf("exact %s curve: a knee at %g (ΔAICc %g)", tt.model, dec.x, dec.delta)
			}
		})
	}
}
