package claim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"

	. "github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/report"
)

// depthSeries builds one series of BenchmarkDepth along depth for lib.
func depthSeries(lib string, depths []float64, f func(x float64) float64) []*analysis.Sample {
	var out []*analysis.Sample
	for _, d := range depths {
		out = append(out, sample(fmt.Sprintf("BenchmarkDepth/lib=%s/depth=%g", lib, d), "sec/op", around(f(d))))
	}
	return out
}

func TestValue(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	var samples []*analysis.Sample
	// bent: slope 1 up to depth 6, slope 8 after it.
	samples = append(samples, depthSeries("bent", ten, func(x float64) float64 {
		if x <= 6 {
			return 100 + x
		}
		return 106 + 8*(x-6)
	})...)
	samples = append(samples, depthSeries("straight", ten, func(x float64) float64 { return 100 + 10*x })...)
	samples = append(samples, depthSeries("short", []float64{1, 2, 3, 4, 5}, func(x float64) float64 { return 100 + 10*x })...)
	samples = append(samples, depthSeries("low", []float64{1, 2, 3, 4}, func(x float64) float64 { return 100 + 10*x })...)
	// noisy: a straight line whose medians wobble by ±40% of its slope.
	samples = append(samples, depthSeries("noisy", ten, func(x float64) float64 { return 100 + 10*x + 4*float64(int(x)%3-1) })...)
	// late: slope 10, then 20 after depth 10, with medians wobbling by ±6:
	// the hinge at 10 is a bend by itself, but the search over all
	// breakpoints is not significant.
	lateXs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 10, 12}
	for i, x := range lateXs {
		y := 100 + 10*x + 10*max(0, x-10) - 6
		if i%2 == 1 {
			y += 12
		}
		samples = append(samples, sample(fmt.Sprintf("BenchmarkDepth/lib=late/depth=%g", x), "sec/op", around(y)))
	}
	// gentle: a slope change of 5%, too small to count as a knee.
	samples = append(samples, depthSeries("gentle", ten, func(x float64) float64 {
		if x <= 5 {
			return 100 + 10*x
		}
		return 150 + 10.5*(x-5)
	})...)
	samples = append(samples, depthSeries("tiny", []float64{1, 2, 3}, func(x float64) float64 { return x })...)
	for _, d := range ten {
		samples = append(samples, sample(fmt.Sprintf("BenchmarkDepth/lib=fewsamples/depth=%g", d), "sec/op", []float64{d, d, d}))
	}
	samples = append(samples,
		sample("BenchmarkAlloc/v=zero", "allocs/op", []float64{0, 0, 0, 0, 0, 0, 0}),
		sample("BenchmarkAlloc/v=some", "allocs/op", around(40)),
		sample("BenchmarkAlloc/v=noisy", "allocs/op", []float64{5, 15, 25, 35, 45, 55, 65}),
		sample("BenchmarkAlloc/v=few", "allocs/op", []float64{1, 2}),
	)

	val := func(num, unit, op string, v float64) spec.Check {
		return spec.Check{Kind: "value", Num: num, Unit: unit, Op: op, Value: v}
	}
	tests := []struct {
		name    string
		check   spec.Check
		verdict Verdict
		measure string // substring of Measured
		reason  string // substring of Reason
	}{
		{"value below threshold", val("v=some", "allocs/op", "<", 50), Reproduced, "= 40 [39.6, 40.4]", ""},
		{"value above threshold", val("v=some", "allocs/op", "<", 30), Contradicted, "= 40", "expected allocs/op some < 30"},
		{"value greater", val("v=some", "allocs/op", ">", 30), Reproduced, "= 40", ""},
		{"value at zero with <=", val("v=zero", "allocs/op", "<=", 0), Reproduced, "= 0 [0, 0]", ""},
		{"value at zero with <", val("v=zero", "allocs/op", "<", 0), Contradicted, "= 0", "expected"},
		{"value >= its own bound", val("v=zero", "allocs/op", ">=", 0), Reproduced, "", ""},
		{"value straddles", val("v=noisy", "allocs/op", "<", 35), Inconclusive, "= 35", "straddles 35"},
		{"value few samples", val("v=few", "allocs/op", "<", 10), Inconclusive, "n=2", "fewer than 6"},
		{"value unmeasured", val("v=missing", "allocs/op", "<", 10), NotTestable, "", "no allocs/op cell matches"},
		{"value ambiguous", spec.Check{Kind: "value", Num: "lib=bent", Op: "<", Value: 1}, NotTestable, "", "narrow the selector"},
		{"value with where", spec.Check{Kind: "value", Where: "depth=3", Num: "lib=bent", Op: ">", Value: 100}, Reproduced, "bent [depth=3] = 103", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := spec.Claim{ID: "K1", Checks: []spec.Check{tt.check}}
			got := Evaluate([]spec.Claim{c}, samples, analysis.DefaultOptions())[0]
			if got.Verdict != tt.verdict {
				t.Errorf("verdict = %s, want %s (measured %q, reason %q)", got.Verdict, tt.verdict, report.ClaimMeasured(got), report.ClaimReason(got))
			}
			if !strings.Contains(report.ClaimMeasured(got), tt.measure) {
				t.Errorf("measured = %q, want it to contain %q", report.ClaimMeasured(got), tt.measure)
			}
			if !strings.Contains(report.ClaimReason(got), tt.reason) {
				t.Errorf("reason = %q, want it to contain %q", report.ClaimReason(got), tt.reason)
			}
		})
	}
}
