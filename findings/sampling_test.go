package findings

import (
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/store"
)

func TestSampling(t *testing.T) {
	tests := []struct {
		note      string
		want      Sampling
		anytime   bool
		firstLook int
		planned   int // of results in rounds 1, 6, 7 and 9
	}{
		{`{"mode":"quick","rounds":6}`, Sampling{}, false, 0, 4},
		{`{"mode":"quick","rounds":6,"first_look":6}`, Sampling{FirstLook: 6}, false, 6, 2},
		{`{"mode":"quick","rounds":8,"sequential":true}`, Sampling{Sequential: true}, true, 0, 4},
		{`not json`, Sampling{}, false, 0, 4},
		{``, Sampling{}, false, 0, 4},
	}
	var results []*benchfmt.Result
	for _, round := range []string{"1", "6", "7", "9"} {
		results = append(results, &benchfmt.Result{Name: benchfmt.Name("X"), Iters: 1,
			Config: []benchfmt.Config{{Key: "round", Value: []byte(round)}}, Values: []benchfmt.Value{{Value: 1, Unit: "sec/op"}}})
	}
	for _, tc := range tests {
		s := SamplingOf(&store.Run{Note: tc.note})
		if s != tc.want {
			t.Errorf("SamplingOf(%q) = %+v, want %+v", tc.note, s, tc.want)
		}
		opt := s.Options(analysis.DefaultOptions())
		if opt.Anytime != tc.anytime || opt.FirstLook != tc.firstLook {
			t.Errorf("%q: options anytime %v first look %d, want %v %d", tc.note, opt.Anytime, opt.FirstLook, tc.anytime, tc.firstLook)
		}
		if got := len(s.Planned(results)); got != tc.planned {
			t.Errorf("%q: Planned kept %d of 4 results, want %d", tc.note, got, tc.planned)
		}
	}
	if got := SamplingOf(nil); got != (Sampling{}) {
		t.Errorf("SamplingOf(nil) = %+v", got)
	}
}
