package findings

import (
	"reflect"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/store"
)

func TestSampling(t *testing.T) {
	tests := []struct {
		plan      store.Plan
		want      Sampling
		anytime   bool
		firstLook int
		planned   int // of results in rounds 1, 6, 7 and 9
		last      int // the last round every finding but the claims reads; 0 for all
	}{
		{store.Plan{Mode: "quick", Rounds: 6}, Sampling{}, false, 0, 4, 0},
		{store.Plan{Mode: "quick", Rounds: 6, FirstLook: 6}, Sampling{FirstLook: 6}, false, 6, 2, 6},
		{store.Plan{Mode: "quick", Rounds: 8, Sequential: true}, Sampling{Sequential: true, Initial: 8}, true, 8, 4, 0},
		{store.Plan{}, Sampling{}, false, 0, 4, 0},
		{store.Plan{Mode: "quick", Rounds: 8, Layout: &store.Layout{PerLayout: 2}}, Sampling{PerLayout: 2}, false, 0, 4, 0},
	}
	var results []*benchfmt.Result
	for _, round := range []string{"1", "6", "7", "9"} {
		results = append(results, &benchfmt.Result{Name: benchfmt.Name("X"), Iters: 1,
			Config: []benchfmt.Config{{Key: "round", Value: []byte(round)}}, Values: []benchfmt.Value{{Value: 1, Unit: "sec/op"}}})
	}
	for _, tc := range tests {
		s := SamplingOf(&store.Run{Plan: tc.plan})
		if (s.ClusterOf != nil) != (tc.plan.Layout != nil && tc.plan.Layout.PerLayout > 1) {
			t.Errorf("SamplingOf(%+v): ClusterOf set %v", tc.plan, s.ClusterOf != nil)
		}
		if s.ClusterOf = nil; !reflect.DeepEqual(s, tc.want) {
			t.Errorf("SamplingOf(%+v) = %+v, want %+v", tc.plan, s, tc.want)
		}
		opt := s.Options(analysis.DefaultOptions())
		if opt.Anytime != tc.anytime || opt.FirstLook != tc.firstLook {
			t.Errorf("%+v: options anytime %v first look %d, want %v %d", tc.plan, opt.Anytime, opt.FirstLook, tc.anytime, tc.firstLook)
		}
		if got := plannedRounds(opt); got != tc.last {
			t.Errorf("%+v: findings read rounds up to %d, want %d (0: all)", tc.plan, got, tc.last)
		}
		if got := len(s.Planned(results)); got != tc.planned {
			t.Errorf("%+v: Planned kept %d of 4 results, want %d", tc.plan, got, tc.planned)
		}
	}
	if got := SamplingOf(nil); !reflect.DeepEqual(got, Sampling{}) {
		t.Errorf("SamplingOf(nil) = %+v", got)
	}
}
