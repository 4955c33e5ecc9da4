package engine

import (
	"testing"

	"github.com/perflab/perflab/spec"
)

// TestUnitMetaFromSpec: a run's unit directions come from benchmetrics and
// the spec's [[unit]] tables, the spec's last so it wins; no unit is
// given a direction by its name.
func TestUnitMetaFromSpec(t *testing.T) {
	m := unitMeta(&spec.Spec{Units: []spec.Unit{{Name: "hits/op", Better: "higher"}, {Name: "gc-cycles/op", Better: "higher"}}})
	last := map[string]string{}
	for _, u := range m {
		if u.Key == "better" {
			last[u.Unit] = u.Value
		}
	}
	if last["hits/op"] != "higher" || last["gc-cycles/op"] != "higher" || last["mutex-wait-sec/op"] != "lower" {
		t.Errorf("unit metadata %v: want hits/op and gc-cycles/op higher (from the spec), benchmetrics' others lower", m)
	}
	for _, u := range unitMeta(&spec.Spec{}) {
		if u.Unit == "hits/op" {
			t.Errorf("hits/op got a direction without any declaration: %v", u)
		}
	}
}
