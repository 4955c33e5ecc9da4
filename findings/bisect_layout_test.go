package findings

import (
	"testing"

	"github.com/perflab/perflab/store"
)

// TestPooledLayouts: rounds pooled from a bisect step's runs fall into
// the layout clusters of their own run.
func TestPooledLayouts(t *testing.T) {
	plan := func(per int) func(int) int {
		if per == 0 {
			return store.Plan{}.ClusterOf()
		}
		return store.Plan{Layout: &store.Layout{PerLayout: per}}.ClusterOf()
	}
	if pooledClusters([]func(int) int{plan(0), plan(1)}) != nil {
		t.Error("runs linked once per build got a cluster map")
	}
	f := pooledClusters([]func(int) int{plan(3), plan(0), plan(4)})
	g := bisectRoundGap
	tests := []struct{ a, b int }{
		{1, 3},             // run 0: rounds 1–3 share a layout
		{2*g + 1, 2*g + 4}, // run 2: rounds 1–4
		{g + 1, g + 1},     // run 1: fixed layout, each round its own
		{3 + 1, 3 + 1},     // run 0's round 4 starts a cluster
		{2*g + 5, 2*g + 8}, // run 2's second cluster
	}
	for _, tt := range tests {
		if f(tt.a) != f(tt.b) {
			t.Errorf("rounds %d and %d in different clusters (%d, %d)", tt.a, tt.b, f(tt.a), f(tt.b))
		}
	}
	for _, pair := range [][2]int{{3, 4}, {g + 1, g + 2}, {2*g + 4, 2*g + 5}, {1, g + 1}, {1, 2*g + 1}} {
		if f(pair[0]) == f(pair[1]) {
			t.Errorf("rounds %d and %d share cluster %d", pair[0], pair[1], f(pair[0]))
		}
	}
}
