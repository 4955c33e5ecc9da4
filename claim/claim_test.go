package claim_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/spec"

	. "github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/report"
)

// around returns six values spread ±1% around v.
func around(v float64) []float64 {
	return []float64{v * 0.99, v * 0.995, v, v, v * 1.005, v * 1.01}
}

func sample(name, unit string, vals []float64) *analysis.Sample {
	return &analysis.Sample{Name: benchname.Parse(name), Unit: unit, Values: vals}
}

// line builds a series along reuse for one variant: value(x) per point.
func line(variant string, xs []float64, f func(x float64) float64) []*analysis.Sample {
	var out []*analysis.Sample
	for _, x := range xs {
		out = append(out, sample(fmt.Sprintf("BenchmarkPool/variant=%s/reuse=%g", variant, x), "sec/op", around(f(x))))
	}
	return out
}

func ratioCheck(num, den, op string, value float64) spec.Check {
	return spec.Check{Kind: "ratio", Num: num, Den: den, Op: op, Value: value}
}

func TestEvaluate(t *testing.T) {
	xs := []float64{0, 10, 20, 30, 40, 50, 60}
	var samples []*analysis.Sample
	samples = append(samples, line("plain", xs, func(float64) float64 { return 20 })...)
	// The pool costs 35 at 0% reuse and falls by 0.4 per point: it crosses plain at 37.5.
	samples = append(samples, line("pool", xs, func(x float64) float64 { return 35 - 0.4*x })...)
	samples = append(samples, line("slow", xs, func(float64) float64 { return 40 })...)
	samples = append(samples, line("same", xs, func(float64) float64 { return 20 })...)
	samples = append(samples,
		sample("BenchmarkPool/variant=few/reuse=0", "sec/op", []float64{30, 31, 32}),
		sample("BenchmarkPool/variant=plain/reuse=0", "B/op", around(64)),
		sample("BenchmarkPool/variant=pool/reuse=0", "B/op", []float64{0, 0, 0, 0, 0, 0}),
	)

	// Drifting cells: each round the machine is slower, but within a round
	// "late" is always 10% above "early". Unpaired, the drift hides it.
	drift := []float64{10, 14, 18, 22, 26, 30}
	early := &analysis.Sample{Name: benchname.Parse("BenchmarkDrift/v=early"), Unit: "sec/op", Rounds: []int{1, 2, 3, 4, 5, 6}}
	late := &analysis.Sample{Name: benchname.Parse("BenchmarkDrift/v=late"), Unit: "sec/op", Rounds: []int{1, 2, 3, 4, 5, 6}}
	for _, d := range drift {
		early.Values = append(early.Values, d)
		late.Values = append(late.Values, d*1.1)
	}
	samples = append(samples, early, late)

	tests := []struct {
		name    string
		claim   spec.Claim
		verdict Verdict
		measure string // substring of Measured
		reason  string // substring of Reason
	}{
		{"ratio holds", spec.Claim{Checks: []spec.Check{ratioCheck("variant=pool,reuse=0", "variant=plain,reuse=0", ">", 1)}},
			Reproduced, "1.75", ""},
		{"ratio threshold above measured", spec.Claim{Checks: []spec.Check{ratioCheck("variant=pool,reuse=0", "variant=plain,reuse=0", ">", 2)}},
			Contradicted, "1.75", "expected"},
		{"ratio opposite direction", spec.Claim{Checks: []spec.Check{ratioCheck("variant=pool,reuse=0", "variant=plain,reuse=0", "<", 1)}},
			Contradicted, "", "expected"},
		{"ratio of equal cells", spec.Claim{Checks: []spec.Check{ratioCheck("variant=same,reuse=10", "variant=plain,reuse=10", "<", 1)}},
			Inconclusive, "", "straddles"},
		{"unmeasured cell", spec.Claim{Checks: []spec.Check{ratioCheck("variant=pool,reuse=99", "variant=plain,reuse=0", "<", 1)}},
			NotTestable, "", "no sec/op cell matches"},
		{"ambiguous selector", spec.Claim{Checks: []spec.Check{ratioCheck("variant=pool", "variant=plain,reuse=0", "<", 1)}},
			NotTestable, "", "narrow the selector"},
		{"too few samples", spec.Claim{Checks: []spec.Check{ratioCheck("variant=few,reuse=0", "variant=plain,reuse=0", ">", 1)}},
			Inconclusive, "", "fewer than 6"},
		{"zero denominator", spec.Claim{Checks: []spec.Check{{Kind: "ratio", Unit: "B/op", Num: "variant=plain", Den: "variant=pool", Op: ">", Value: 1}}},
			Reproduced, "vs 0", ""},
		{"crossover in range", spec.Claim{Checks: []spec.Check{{Kind: "crossover", A: "variant=pool", B: "variant=plain", Axis: "reuse", WinsAbove: "a", Min: 30, Max: 45}}},
			Reproduced, "between 30 and 40", ""},
		{"crossover out of range", spec.Claim{Checks: []spec.Check{{Kind: "crossover", A: "variant=pool", B: "variant=plain", Axis: "reuse", WinsAbove: "a", Min: 0, Max: 20}}},
			Contradicted, "crossover at", "expected a crossover"},
		{"never crosses", spec.Claim{Checks: []spec.Check{{Kind: "crossover", A: "variant=slow", B: "variant=plain", Axis: "reuse", WinsAbove: "a", Min: 20, Max: 40}}},
			Contradicted, "no crossover", ""},
		{"never differs", spec.Claim{Checks: []spec.Check{{Kind: "crossover", A: "variant=same", B: "variant=plain", Axis: "reuse", WinsAbove: "a", Min: 20, Max: 40}}},
			Inconclusive, "no crossover", "too few points"},
		{"paired rounds cancel drift", spec.Claim{Checks: []spec.Check{ratioCheck("bench=BenchmarkDrift,v=late", "bench=BenchmarkDrift,v=early", ">", 1)}},
			Reproduced, "paired over 6 rounds", ""},
		{"declared not testable", spec.Claim{NotTestable: "needs 64 cores"}, NotTestable, "", "64 cores"},
		{"crossover the other way", spec.Claim{Checks: []spec.Check{{Kind: "crossover", A: "variant=pool", B: "variant=plain", Axis: "reuse", WinsAbove: "b", Min: 30, Max: 45}}},
			Contradicted, "crossover at", "cross the other way"},
		// Six samples have no median interval at 97.5%, the two-sided
		// interval of a one-sided test at α/4 (Holm across 4 checks).
		{"one check contradicts, not after Holm", spec.Claim{Checks: []spec.Check{
			ratioCheck("variant=pool,reuse=0", "variant=plain,reuse=0", ">", 1),
			ratioCheck("variant=pool,reuse=0", "variant=plain,reuse=0", "<", 1),
			ratioCheck("variant=pool,reuse=0", "variant=plain,reuse=0", ">", 1.5),
			ratioCheck("variant=pool,reuse=0", "variant=plain,reuse=0", ">", 1.2)}}, Inconclusive, "", "not after Holm"},
		{"one check unmeasured", spec.Claim{Checks: []spec.Check{
			ratioCheck("variant=pool,reuse=0", "variant=plain,reuse=0", ">", 1),
			ratioCheck("variant=pool,reuse=77", "variant=plain,reuse=0", ">", 1)}}, Inconclusive, "", "no sec/op cell"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.claim.ID = "X1"
			got := Evaluate([]spec.Claim{tt.claim}, samples, analysis.DefaultOptions())[0]
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

// TestNotTestedCarried: a claim's untested parts reach its result, and a
// claim declared not testable keeps its reason at two looks as at one.
func TestNotTestedCarried(t *testing.T) {
	parts := []string{"P99 at depth 8: go test reports no per-call latency"}
	c := spec.Claim{ID: "B1", Text: "t", NotTested: parts, Checks: []spec.Check{ratioCheck("v=late", "v=early", ">", 1)}}
	nt := spec.Claim{ID: "B2.fx", Text: "t", NotTestable: "no such library exists"}
	s := []*analysis.Sample{
		{Name: benchname.Parse("BenchmarkDrift/v=early"), Unit: "sec/op", Values: around(10), Rounds: []int{1, 2, 3, 4, 5, 6}},
		{Name: benchname.Parse("BenchmarkDrift/v=late"), Unit: "sec/op", Values: around(12), Rounds: []int{1, 2, 3, 4, 5, 6}},
	}
	for _, looks := range []int{0, 3} {
		opt := analysis.DefaultOptions()
		opt.FirstLook = looks
		got := Evaluate([]spec.Claim{c, nt}, s, opt)
		if len(got[0].NotTested) != 1 || got[0].NotTested[0] != parts[0] {
			t.Errorf("looks %d: NotTested = %q, want %q", looks, got[0].NotTested, parts)
		}
		if got[1].Verdict != NotTestable || report.ClaimReason(got[1]) != "no such library exists" {
			t.Errorf("looks %d: a claim declared not testable gave %s, reason %q; want not testable with its reason", looks, got[1].Verdict, report.ClaimReason(got[1]))
		}
	}
}
