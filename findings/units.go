package findings

import (
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/benchmetrics"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// Directions returns which way each unit improves, from unit metadata
// alone: benchmetrics' units, the run's stored unit metadata (benchfmt
// "Unit U better=higher" lines) and the spec's [[unit]] declarations, in
// that order of precedence from last to first. A unit none of them
// describes follows [compare.HigherIsBetter] (only go test's MB/s is
// better higher); nothing is inferred from a unit's name.
func Directions(meta []store.UnitMeta, s *spec.Spec) func(unit string) bool {
	var all []benchfmt.UnitMetadata
	add := func(unit, better string) {
		all = append(all, benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: unit, Key: "better"}, Value: strings.ToLower(better)})
	}
	for _, u := range benchmetrics.Units {
		add(u.Unit, u.Better)
	}
	for _, m := range meta {
		if strings.EqualFold(m.Key, "better") {
			add(m.Unit, m.Value)
		}
	}
	if s != nil {
		for _, u := range s.Units {
			add(u.Name, u.Better)
		}
	}
	return compare.Directions(all)
}

// HigherIsBetter reports whether larger values of unit are better in this
// run (see [Directions]).
func (f *Run) HigherIsBetter(unit string) bool {
	if f.higher == nil {
		f.higher = Directions(f.UnitMeta, f.Spec)
	}
	return f.higher(unit)
}
