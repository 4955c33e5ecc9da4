package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

func TestKneeSim(t *testing.T) {
	xs := axis1to(12)
	type fam struct {
		name string
		f    func(float64) float64
	}
	var fams []fam
	for _, k := range []float64{1.2, 1.5, 2} {
		fams = append(fams, fam{fmt.Sprintf("x^%g", k), func(x float64) float64 { return math.Pow(x, k) }})
		fams = append(fams, fam{fmt.Sprintf("5+x^%g", k), func(x float64) float64 { return 5 + math.Pow(x, k) }})
	}
	fams = append(fams, fam{"1.2^x", func(x float64) float64 { return math.Pow(1.2, x) }})
	fams = append(fams, fam{"3+1.3^x", func(x float64) float64 { return 3 + math.Pow(1.3, x) }})
	fams = append(fams, fam{"quad", func(x float64) float64 { return 5 + 2*x + 0.3*x*x }})
	fams = append(fams, fam{"quad2", func(x float64) float64 { return 20 + x*x }})
	for _, ratio := range []float64{3, 4, 6} {
		for _, k := range []float64{4, 6, 8} {
			fams = append(fams, fam{fmt.Sprintf("hinge%g@%g", ratio, k), hingeCurve(10, 1, k, ratio)})
		}
	}
	for _, cv := range []float64{0.02, 0.06} {
		for _, fm := range fams {
			rng := rand.New(rand.NewPCG(1, uint64(cv*1000)))
			var ds []float64
			knees := 0
			smooth := 0
			for s := 0; s < 100; s++ {
				cells := genSeries("B", xs, fm.f, 8, cv, rng)
				r := FitKnee(xs, cells, KneeOptions{Resamples: -1})
				ds = append(ds, r.DeltaAICc)
				if r.Found {
					knees++
				}
				if r.Verdict == KneeSmooth {
					smooth++
				}
			}
			sort.Float64s(ds)
			fmt.Printf("cv=%.2f %-12s knee=%3d smooth=%3d  Δ q50=%.1f q90=%.1f q95=%.1f q99=%.1f min=%.1f q05=%.1f\n", cv, fm.name, knees, smooth, ds[50], ds[90], ds[95], ds[99], ds[0], ds[5])
		}
	}
}
