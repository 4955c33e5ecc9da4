// Package unit is perflab's one table of benchmark units: which way each
// unit improves and how its values scale for people.
//
// A unit's direction comes, in order of precedence, from the unit
// metadata given to [New] (benchfmt "Unit U better=higher|lower" lines:
// a run's stored metadata, a benchmark file's lines, a spec's [[unit]]
// tables, perflab's own units in [Own]; later lists override earlier
// ones), then from benchfmt's built-in defaults
// (benchfmt.UnitMetadataMap.GetBetter: sec/op, B/op and allocs/op lower,
// MB/s and B/s higher), then from benchunit's convention for everything
// else: a rate, a unit ending in "/s" (B/s, req/s, ops/s), is better
// higher, and every other unit (time, bytes, counts per op) better lower.
// Units are tidied as benchfmt tidies them (ns/op is sec/op, MB/s is B/s),
// so go test's MB/s, which benchfmt reads as B/s, is higher-is-better
// whether or not a file says so.
package unit

import (
	"cmp"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchunit"

	"github.com/perflab/perflab/benchmetrics"
	"github.com/perflab/perflab/spec"
)

// Direction is which way a unit improves.
type Direction int

const (
	// Lower values are better: time, bytes and counts per operation.
	Lower Direction = -1
	// Higher values are better: rates such as B/s and req/s.
	Higher Direction = 1
)

// BetterKey is the benchfmt unit metadata key that gives a direction.
const BetterKey = "better"

// CPU is the CPU time per operation perflab measures from a benchmark
// process's rusage.
const CPU = "cpu-sec/op"

// Table is the direction of every unit, from unit metadata and the
// conventions above. The zero value and nil follow the conventions alone.
type Table struct {
	better map[string]Direction // by tidied unit
}

// New builds the table from lists of unit metadata; a later list's word
// on a unit overrides an earlier one's. Keys other than "better" and
// values other than "higher" and "lower" (in any case) are ignored.
func New(metas ...[]benchfmt.UnitMetadata) *Table {
	t := &Table{better: map[string]Direction{}}
	for _, list := range metas {
		for _, m := range list {
			if !strings.EqualFold(m.Key, BetterKey) {
				continue
			}
			switch strings.ToLower(m.Value) {
			case "higher":
				t.better[tidy(m.Unit)] = Higher
			case "lower":
				t.better[tidy(m.Unit)] = Lower
			}
		}
	}
	return t
}

// Better returns the direction of unit.
func (t *Table) Better(unit string) Direction {
	u := tidy(unit)
	if t != nil {
		if d, ok := t.better[u]; ok {
			return d
		}
	}
	switch benchfmt.UnitMetadataMap(nil).GetBetter(u) {
	case 1:
		return Higher
	case -1:
		return Lower
	}
	if strings.HasSuffix(u, "/s") {
		return Higher
	}
	return Lower
}

// HigherIsBetter reports whether larger values of unit are an improvement.
func (t *Table) HigherIsBetter(unit string) bool { return t.Better(unit) == Higher }

// Class is how values of unit scale for people: binary prefixes (KiB,
// MiB) for byte units, decimal ones otherwise (benchunit.ClassOf).
func Class(unit string) benchunit.Class { return benchunit.ClassOf(unit) }

// Meta is one "better" record of unit metadata.
func Meta(unit, better string) benchfmt.UnitMetadata {
	return benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: tidy(unit), Key: BetterKey}, OrigUnit: unit, Value: strings.ToLower(better)}
}

// Own is the metadata of the units perflab itself measures: the process's
// CPU time per op and benchmetrics' runtime/metrics units, all better
// lower.
func Own() []benchfmt.UnitMetadata {
	out := []benchfmt.UnitMetadata{Meta(CPU, "lower")}
	for _, u := range benchmetrics.Units {
		out = append(out, Meta(u.Unit, u.Better))
	}
	return out
}

// Declared is the metadata of the units a spec's [[unit]] tables declare;
// nil for a nil spec.
func Declared(s *spec.Spec) []benchfmt.UnitMetadata {
	if s == nil {
		return nil
	}
	var out []benchfmt.UnitMetadata
	for _, u := range s.Units {
		out = append(out, Meta(u.Name, u.Better))
	}
	return out
}

// Rank orders units for tables: time first, go test's memory units (B/op,
// allocs/op) last, every other unit between them.
func Rank(unit string) int {
	switch tidy(unit) {
	case "sec/op":
		return 0
	case "B/op":
		return 2
	case "allocs/op":
		return 3
	}
	return 1
}

// Compare orders units by [Rank], then by name; it suits slices.SortFunc.
func Compare(a, b string) int {
	return cmp.Or(cmp.Compare(Rank(a), Rank(b)), strings.Compare(a, b))
}

func tidy(unit string) string {
	_, u := benchunit.Tidy(1, unit)
	return u
}
