package findings

import (
	"testing"

	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

func TestDirections(t *testing.T) {
	tests := []struct {
		name string
		meta []store.UnitMeta
		spec *spec.Spec
		want map[string]bool
	}{
		{"nothing declared: only MB/s and benchmetrics' units", nil, nil,
			map[string]bool{"hits/op": false, "req/s": false, "MB/s": true, "sec/op": false, "gc-cycles/op": false}},
		{"stored unit metadata", []store.UnitMeta{{Unit: "hits/op", Key: "better", Value: "higher"}, {Unit: "req/s", Key: "Better", Value: "Higher"}}, nil,
			map[string]bool{"hits/op": true, "req/s": true}},
		{"the spec's declaration wins", []store.UnitMeta{{Unit: "hits/op", Key: "better", Value: "lower"}}, &spec.Spec{Units: []spec.Unit{{Name: "hits/op", Better: "higher"}}},
			map[string]bool{"hits/op": true}},
	}
	for _, tt := range tests {
		dir := Directions(tt.meta, tt.spec)
		for unit, want := range tt.want {
			if got := dir(unit); got != want {
				t.Errorf("%s: %s higher is better = %v, want %v", tt.name, unit, got, want)
			}
		}
	}
}
