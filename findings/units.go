package findings

import (
	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
	"github.com/perflab/perflab/unit"
)

// runMeta is the unit metadata of a stored run in order of precedence
// from last to first: perflab's own units, the run's stored metadata
// (benchfmt "Unit U better=higher" lines) and the spec's [[unit]]
// declarations.
func runMeta(stored []store.UnitMeta, s *spec.Spec) []benchfmt.UnitMetadata {
	out := unit.Own()
	for _, m := range stored {
		out = append(out, benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: m.Unit, Key: m.Key}, OrigUnit: m.Unit, Value: m.Value})
	}
	return append(out, unit.Declared(s)...)
}

// Units is the run's unit table (see package unit): which way each unit
// improves.
func (f *Run) Units() *unit.Table {
	if f.units == nil {
		f.units = unit.New(runMeta(f.UnitMeta, f.Spec))
	}
	return f.units
}

// HigherIsBetter reports whether larger values of u are better in this
// run.
func (f *Run) HigherIsBetter(u string) bool { return f.Units().HigherIsBetter(u) }
