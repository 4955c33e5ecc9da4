package engine

import (
	"strings"

	"github.com/perflab/perflab/plan"
)

// Packages: a run over several packages.
//
// Cells may name the package whose test binary runs them
// (plan.Cell.Package, relative to the module directory). Each config is
// then built once per package, and every round interleaves the cells of
// all packages, so drift hits them alike and one judge, gate and geomean
// cover the whole selection. A test binary is found by its slot: the
// config's name, followed by the package when the cell names one.

// slotOf is the slot of config's build of pkg ("" for the spec's package).
func slotOf(config, pkg string) string {
	if pkg == "" {
		return config
	}
	return config + "\x00" + pkg
}

// slot is the slot of the test binary cell runs.
func slot(c plan.Cell) string { return slotOf(c.Config, c.Package) }

// splitSlot returns a slot's config and package.
func splitSlot(s string) (config, pkg string) {
	config, pkg, _ = strings.Cut(s, "\x00")
	return config, pkg
}

// packages lists the packages the run's cells name, in first-seen order:
// [""] (the spec's package) for a run whose cells name none.
func (o Options) packages() []string {
	var out []string
	seen := map[string]bool{}
	for _, c := range o.Cells {
		if !seen[c.Package] {
			seen[c.Package] = true
			out = append(out, c.Package)
		}
	}
	if len(out) == 0 {
		return []string{""}
	}
	return out
}

// slotLabel names a slot for people: the config, and its package when it
// has one.
func slotLabel(s string) string {
	if config, pkg := splitSlot(s); pkg != "" {
		return config + " (" + pkg + ")"
	}
	return s
}
