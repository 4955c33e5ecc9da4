package findings

import (
	"strings"

	"github.com/perflab/perflab/benchmetrics"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// Direction says which way a unit improves.
type Direction int

// Directions.
const (
	LowerIsBetter Direction = iota
	HigherIsBetter
)

// Directions returns, per unit with a declared direction, which way it
// improves: from the run's unit metadata (benchfmt "Unit U better=higher"
// lines, stored with the run) and benchmetrics' units. Go test's own
// throughput unit MB/s is better higher; every unit without metadata is
// better lower. Nothing is inferred from a unit's name.
func Directions(meta []store.UnitMeta, _ *spec.Spec) map[string]Direction {
	d := map[string]Direction{"MB/s": HigherIsBetter}
	for _, u := range benchmetrics.Units {
		if strings.EqualFold(u.Better, "higher") {
			d[u.Unit] = HigherIsBetter
		}
	}
	for _, m := range meta {
		if !strings.EqualFold(m.Key, "better") {
			continue
		}
		switch strings.ToLower(m.Value) {
		case "higher":
			d[m.Unit] = HigherIsBetter
		case "lower":
			d[m.Unit] = LowerIsBetter
		}
	}
	return d
}

// HigherIsBetter reports whether larger values of unit are better in this run.
func (f *Run) HigherIsBetter(unit string) bool { return f.Better[unit] == HigherIsBetter }
