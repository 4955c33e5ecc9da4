package findings

import (
	"slices"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
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

// UnitsOf returns the distinct units of samples in first-seen order.
func UnitsOf(samples []*analysis.Sample) []string {
	var units []string
	for _, s := range samples {
		if !slices.Contains(units, s.Unit) {
			units = append(units, s.Unit)
		}
	}
	return units
}

// LogScale reports whether values span two decades or more (all positive
// and finite), the rule that puts an axis on a log scale in charts as in
// the knee fits: [analysis.SpansDecades], for the renderers, which call no
// function of analysis (report/nostats_test.go).
func LogScale(vs []float64) bool { return analysis.SpansDecades(vs) }
