package engine

import (
	"testing"
	"time"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

func TestProfileBenchtime(t *testing.T) {
	cells := func(n int, configs ...string) *plan.Plan {
		p := &plan.Plan{}
		for _, c := range configs {
			for i := 0; i < n; i++ {
				p.Cells = append(p.Cells, plan.Cell{Bench: "BenchmarkX", Config: c})
			}
		}
		return p
	}
	tests := []struct {
		name   string
		p      *plan.Plan
		mode   spec.Mode
		budget time.Duration
		want   string
	}{
		{"one second per config", cells(4, "a", "b"), spec.Mode{}, 0, "250ms"},
		{"cpu list counts", cells(4, "a"), spec.Mode{CPU: []int{1, 2}}, 0, "125ms"},
		{"floor", cells(1000, "a"), spec.Mode{}, 0, "10ms"},
		{"a tenth of the budget", cells(4, "a", "b"), spec.Mode{}, 4 * time.Second, "50ms"},
		{"budget does not raise it", cells(4, "a"), spec.Mode{}, time.Hour, "250ms"},
		{"the spec's value wins", cells(4, "a"), spec.Mode{ProfileBenchtime: "3x"}, 0, "3x"},
	}
	for _, tt := range tests {
		if got := profileBenchtime(Options{Budget: tt.budget}, tt.p, tt.mode); got != tt.want {
			t.Errorf("%s: profileBenchtime = %s, want %s", tt.name, got, tt.want)
		}
	}
	// The default gives each config's CPU profile at least a second.
	p := cells(7, "a")
	if d := profileSpan(profileBenchtime(Options{}, p, spec.Mode{}), 7, 0); d < 990*time.Millisecond {
		t.Errorf("default profiling span %s, want about 1s or more", d)
	}
}
