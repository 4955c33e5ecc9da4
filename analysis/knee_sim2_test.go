package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestKneeSim2(t *testing.T) {
	xs := axis1to(12)
	for _, cv := range []float64{0.02, 0.04, 0.06} {
		for _, ratio := range []float64{4, 6} {
			rng := rand.New(rand.NewPCG(2, uint64(cv*1000)))
			within, found, covered, und, sm := 0, 0, 0, 0, 0
			start := time.Now()
			for s := 0; s < 8; s++ {
				k := float64(4 + s%5)
				cells := genSeries("B", xs, hingeCurve(10, 1, k, ratio), 8, cv, rng)
				r := FitKnee(xs, cells, KneeOptions{})
				if r.Found {
					found++
					if math.Abs(r.X-k) <= 1 {
						within++
					}
					if r.Lo <= k+1 && r.Hi >= k-1 {
						covered++
					}
				}
				if r.Verdict == KneeUndecided {
					und++
				}
				if r.Verdict == KneeSmooth {
					sm++
				}
			}
			fmt.Printf("cv=%.2f ratio=%g found=%d within=%d covered=%d und=%d smooth=%d  %v\n", cv, ratio, found, within, covered, und, sm, time.Since(start)/40)
		}
	}
	// linear over sizes 4..4096
	sizes := []float64{4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096}
	rng := rand.New(rand.NewPCG(3, 3))
	for s := 0; s < 5; s++ {
		cells := genSeries("L", sizes, func(x float64) float64 { return 50 + 2*x }, 8, 0.04, rng)
		r := FitKnee(sizes, cells, KneeOptions{LogX: true})
		fmt.Println(r.Verdict, r.Note)
		r = FitKnee(sizes, cells, KneeOptions{LogX: false})
		fmt.Println("  lin:", r.Verdict, r.Note)
	}
}
