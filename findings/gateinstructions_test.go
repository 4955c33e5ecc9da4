package findings

import (
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/unit"
)

// instructionResults makes n rounds of one benchmark reporting
// instructions/op around mid, spread by a few instructions.
func instructionResults(mid float64, n int) []*benchfmt.Result {
	var out []*benchfmt.Result
	for i := range n {
		out = append(out, &benchfmt.Result{
			Name:   benchfmt.Name("Work/v=a-2"),
			Iters:  200000,
			Config: []benchfmt.Config{{Key: "config", Value: []byte("default"), File: true}},
			Values: []benchfmt.Value{{Value: mid + float64(i%3) - 1, Unit: "instructions/op"}},
		})
	}
	return out
}

// TestGateOnInstructions: instructions/op is lower-is-better, a 2% rise
// breaks "instructions/op>+1%", a 0.5% rise and an improvement do not.
func TestGateOnInstructions(t *testing.T) {
	ths := mustParse(t, "instructions/op>+1%")
	if (*unit.Table)(nil).HigherIsBetter("instructions/op") {
		t.Fatal("instructions/op must be lower-is-better")
	}
	for _, tc := range []struct {
		newMid float64
		fails  bool
	}{{1241, true}, {1223, false}, {1190, false}} {
		res := Compare(resultSet(instructionResults(1217, 8)), resultSet(instructionResults(tc.newMid, 8)), CompareOptions{})
		fails, unmatched := check(res, ths)
		if len(unmatched) != 0 {
			t.Fatalf("rule unmatched: %v", unmatched)
		}
		if got := len(fails) > 0; got != tc.fails {
			t.Errorf("1217 → %g: gate failed = %v, want %v (rows %+v)", tc.newMid, got, tc.fails, res.Rows)
		}
		if tc.newMid < 1217 && len(res.Rows) == 1 && (res.Rows[0].Delta >= 0 || res.Rows[0].Worse) {
			t.Errorf("an improvement shows Δ %g, worse %v", res.Rows[0].Delta, res.Rows[0].Worse)
		}
	}
}
