package claim_test

import (
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/spec"

	. "github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/report"
)

// TestRatioOnInstructions: a claim's ratio check reads instructions/op like
// any unit; the planted pair's 1.0197 lies above 1.015 and below 1.025.
func TestRatioOnInstructions(t *testing.T) {
	rounds := []int{1, 2, 3, 4, 5, 6}
	a := &analysis.Sample{Name: benchname.Parse("BenchmarkWork/v=a"), Unit: "instructions/op", Rounds: rounds,
		Values: []float64{1216.9, 1217.0, 1216.8, 1217.1, 1216.9, 1217.0}}
	b := &analysis.Sample{Name: benchname.Parse("BenchmarkWork/v=b"), Unit: "instructions/op", Rounds: rounds,
		Values: []float64{1241.0, 1241.2, 1240.9, 1241.1, 1241.0, 1241.3}}
	for _, tc := range []struct {
		op    string
		value float64
		want  Verdict
	}{{">", 1.015, Reproduced}, {"<", 1.025, Reproduced}, {"<", 1.015, Contradicted}} {
		ch := ratioCheck("v=b", "v=a", tc.op, tc.value)
		ch.Unit = "instructions/op"
		res := Evaluate([]spec.Claim{{ID: "I", Checks: []spec.Check{ch}}}, []*analysis.Sample{a, b}, analysis.DefaultOptions())
		if res[0].Verdict != tc.want {
			t.Errorf("b/a %s %g: %s (%s), want %s", tc.op, tc.value, res[0].Verdict, report.ClaimMeasured(res[0]), tc.want)
		}
	}
}
