package findings

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
)

// abText is eight rounds of impl=old and impl=new at three sizes: new
// takes factor[n] of old's time in every round, while the machine drifts
// by up to ±20% from round to round (the same for both in a round).
func abText(factor map[int]float64) string {
	var b strings.Builder
	for r := 1; r <= 8; r++ {
		drift := 1 + 0.2*math.Sin(float64(r))
		fmt.Fprintf(&b, "round: %d\n", r)
		for _, n := range []int{10, 100, 1000} {
			for _, impl := range []string{"old", "new"} {
				v := float64(n) * drift
				if impl == "new" {
					v *= factor[n] * (1 + 0.001*float64(r%3-1))
				}
				fmt.Fprintf(&b, "BenchmarkSum/impl=%s/n=%d 1 %g ns/op\n", impl, n, v)
			}
		}
	}
	return b.String()
}

func collect(t *testing.T, text string) []*analysis.Sample {
	t.Helper()
	return analysis.Collect(results(text))
}

// results parses benchmark-format text.
func results(text string) []*benchfmt.Result {
	var rs []*benchfmt.Result
	r := benchfmt.NewReader(strings.NewReader(text), "ab")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			rs = append(rs, res.Clone())
		}
	}
	return rs
}

func TestRatios(t *testing.T) {
	factor := map[int]float64{10: 1, 100: 0.5, 1000: 0.25}
	samples := collect(t, abText(factor))
	opt := analysis.DefaultOptions()
	for _, tt := range []struct {
		name string
		axis string
		xs   []string
	}{
		{"along an axis", "n", []string{"10", "100", "1000"}},
		{"without an axis: the rest of the name", "", []string{"n=10", "n=100", "n=1000"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rs := RatioSpec{Axis: tt.axis, By: "impl", Baseline: "old", Unit: "sec/op"}
			cs := Ratios(samples, rs, opt)
			if len(cs) != 1 {
				t.Fatalf("%d comparisons, want 1: %+v", len(cs), cs)
			}
			c := cs[0]
			if c.Value != "new" || c.Series != "BenchmarkSum" || len(c.Points) != 3 {
				t.Fatalf("comparison %+v", c)
			}
			for i, p := range c.Points {
				n := []int{10, 100, 1000}[i]
				if p.X != tt.xs[i] || math.Abs(p.Ratio.Ratio/factor[n]-1) > 0.01 || !p.HasInterval() || p.Lo > factor[n]*1.01 || p.Hi < factor[n] {
					t.Errorf("point %s: %+v, want ratio %g inside its interval; the drift must cancel within rounds", p.X, p.Ratio, factor[n])
				}
			}
			if c.Below != 2 || c.Above != 0 || c.Same != 1 {
				t.Errorf("below/above/same %d/%d/%d, want 2/0/1", c.Below, c.Above, c.Same)
			}
			want := math.Cbrt(1 * 0.5 * 0.25)
			if g := c.Geomean; math.Abs(g.Ratio.Ratio/want-1) > 0.01 || !g.Excludes(1) {
				t.Errorf("geomean %+v, want ≈ %g excluding 1", g.Ratio, want)
			}
			gs := Geomeans(samples, rs, opt)
			if len(gs) != 1 || gs[0].Points != 3 || math.Abs(gs[0].Geomean.Ratio.Ratio/want-1) > 0.01 {
				t.Errorf("overall geomeans %+v, want one over 3 points ≈ %g", gs, want)
			}
		})
	}
	if cs := Ratios(samples, RatioSpec{By: "impl", Baseline: "missing", Unit: "sec/op"}, opt); len(cs) != 0 {
		t.Errorf("a baseline no sample has gave %d comparisons", len(cs))
	}
}
