package findings

import (
	"testing"

	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

func TestRunUnits(t *testing.T) {
	tests := []struct {
		name string
		meta []store.UnitMeta
		spec *spec.Spec
		want map[string]bool
	}{
		{"nothing declared: rates higher, the rest lower", nil, nil,
			map[string]bool{"hits/op": false, "req/s": true, "B/s": true, "MB/s": true, "sec/op": false, "gc-cycles/op": false}},
		{"stored unit metadata", []store.UnitMeta{{Unit: "hits/op", Key: "better", Value: "higher"}, {Unit: "req/s", Key: "Better", Value: "Lower"}}, nil,
			map[string]bool{"hits/op": true, "req/s": false}},
		{"the spec's declaration wins", []store.UnitMeta{{Unit: "hits/op", Key: "better", Value: "lower"}}, &spec.Spec{Units: []spec.Unit{{Name: "hits/op", Better: "higher"}}},
			map[string]bool{"hits/op": true}},
		{"stored metadata overrides perflab's own units", []store.UnitMeta{{Unit: "gc-cycles/op", Key: "better", Value: "higher"}}, nil,
			map[string]bool{"gc-cycles/op": true, "heap-objects/op": false}},
	}
	for _, tt := range tests {
		f := &Run{Input: Input{UnitMeta: tt.meta, Spec: tt.spec}}
		for u, want := range tt.want {
			if got := f.HigherIsBetter(u); got != want {
				t.Errorf("%s: %s higher is better = %v, want %v", tt.name, u, got, want)
			}
		}
	}
}
