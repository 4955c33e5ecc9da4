package spec

import "fmt"

// Unit declares which way a unit the benchmarks report improves, as a
// benchfmt "Unit NAME better=higher" line would:
//
//	[[unit]]
//	name = "hits/op"
//	better = "higher"
//
// The engine stores it with each run's unit metadata; the reports and
// perflab compare read the direction from there. A unit without a
// declaration (and not one of perflab's own, such as benchmetrics') is
// better lower.
type Unit struct {
	Name   string `toml:"name"`   // the unit as the benchmark reports it
	Better string `toml:"better"` // "higher" or "lower"
}

func (v *validator) units(raw []Unit) {
	seen := map[string]bool{}
	for i, u := range raw {
		p := fmt.Sprintf("unit[%d]", i)
		switch {
		case u.Name == "":
			v.at(p, `a [[unit]] needs name = "the unit", e.g. "hits/op"`)
		case seen[u.Name]:
			v.at(p, "unit %q is declared twice", u.Name)
		}
		seen[u.Name] = true
		if u.Better != "higher" && u.Better != "lower" {
			v.at(p, `unit %q: better = %q; want "higher" or "lower"`, u.Name, u.Better)
		}
	}
	v.s.Units = raw
}
