package claim

import (
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// Counted reports whether a check counts in its claim's verdict and can be
// decided by more timed rounds: not a context check, and not a profile
// check (profiles come from the separate profiling pass).
func Counted(ch spec.Check) bool { return !ch.Context && ch.Kind != "profile" }

// Depends returns the indexes of the cells whose samples the check reads:
// the cells matching Where together with Num or Den (ratio), Num (value),
// A or B (crossover), or A (knee). A profile check reads profiles, not timed
// samples, and depends on no cell. Only the keys a cell's name has (its
// benchmark, config and axis levels) select cells: a "procs" pair is
// ignored (a cell runs every -test.cpu value), and so is a key of the
// sub-benchmarks a cell runs inside (e.g. "variant=ring" of a cell
// BenchmarkLog/sweep=0), which the cell produces. A selector that does not
// parse selects nothing (the check is then not testable and needs no
// rounds).
func Depends(ch spec.Check, cells []plan.Cell) []int {
	var sides []string
	switch ch.Kind {
	case "ratio":
		sides = []string{ch.Num, ch.Den}
	case "value":
		sides = []string{ch.Num}
	case "crossover":
		sides = []string{ch.A, ch.B}
	case "knee":
		sides = []string{ch.A}
	default:
		return nil
	}
	where, err := spec.ParseSelector(ch.Where)
	if err != nil {
		return nil
	}
	cellKeys := map[string]bool{"bench": true, "config": true}
	for _, c := range cells {
		for _, l := range c.Levels {
			if k, _, ok := strings.Cut(l, "="); ok {
				cellKeys[k] = true
			}
		}
	}
	var sels [][][2]string
	for _, side := range sides {
		kv, err := spec.ParseSelector(side)
		if err != nil {
			return nil
		}
		var sel [][2]string
		for _, p := range append(append([][2]string(nil), where...), kv...) {
			if cellKeys[p[0]] {
				sel = append(sel, p)
			}
		}
		sels = append(sels, sel)
	}
	var out []int
	for i, c := range cells {
		s := analysis.Sample{Config: c.Config, Name: analysis.ParseName(c.Name())}
		for _, sel := range sels {
			if s.Matches(sel) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}
