package claim

import (
	"slices"
	"strings"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// Counted reports whether a check counts in its claim's verdict, and so
// can be decided by more timed rounds: not a context check, and not a
// profile check. A profile check reads the one CPU profile the profiling
// pass takes of a cell, outside the timed rounds, so its share has no
// run-to-run interval and more rounds cannot change it: it is always
// shown as context (a share a verdict rests on is reported per round by
// the benchmark and tested by a value or ratio check). A precondition
// counts too: it is never evidence for or against the claim, but the
// claim's verdict waits on it (it decides whether the claim is testable
// here), so more rounds are spent on it as on any counted check.
func Counted(ch spec.Check) bool { return !ch.Context && ch.Kind != "profile" }

// Depends returns the indexes of the cells whose samples the check reads:
// the cells matching Where together with Num or Den (ratio), Num (value,
// correlation), A or B (crossover), A (knee), or Num or Den with A or B
// (contrast). A profile check reads profiles, not timed
// samples, and depends on no cell. Only the keys a cell's name has (its
// benchmark, config and axis levels) select cells: a "procs" pair is
// ignored (a cell runs every -test.cpu value), and so is a key of the
// sub-benchmarks a cell runs inside (e.g. "variant=ring" of a cell
// BenchmarkLog/sweep=0), which the cell produces. A selector that does not
// parse selects nothing (the check is then not testable and needs no
// rounds).
func Depends(ch spec.Check, cells []plan.Cell) []int {
	sets, ok := selectors(ch)
	if !ok {
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
	for _, set := range sets {
		var sel [][2]string
		for _, p := range set {
			if cellKeys[p[0]] {
				sel = append(sel, p)
			}
		}
		sels = append(sels, sel)
	}
	var out []int
	for i, c := range cells {
		s := analysis.Sample{Config: c.Config, Name: benchname.Parse(c.Name())}
		for _, sel := range sels {
			if s.Matches(sel) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// DependsOn is [Depends] narrowed by the samples a run holds: the cells
// that produced a sample the check's selectors match (a cell produces the
// samples whose names extend its own, in its config), or Depends when no
// sample matches yet. A check that selects by a key its cells produce
// inside (gateway's "variant=cow", which only BenchmarkMap's cells
// produce) then names just the cells it reads.
func DependsOn(ch spec.Check, cells []plan.Cell, samples []*analysis.Sample) []int {
	sets, ok := selectors(ch)
	if !ok {
		return nil
	}
	index := make(map[string]int, len(cells))
	for i, c := range cells {
		index[c.Config+"\x00"+c.Name()] = i
	}
	seen := map[int]bool{}
	for _, s := range samples {
		matched := false
		for _, sel := range sets {
			if s.Matches(sel) {
				matched = true
				break
			}
		}
		if !matched {
			continue
		}
		full := s.Name.Cell()
		for end := len(full); end > 0; end = strings.LastIndexByte(full[:end], '/') {
			if i, ok := index[s.Config+"\x00"+full[:end]]; ok {
				seen[i] = true
				break
			}
		}
	}
	if len(seen) == 0 {
		return Depends(ch, cells)
	}
	out := make([]int, 0, len(seen))
	for i := range seen {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}

// selectors returns the check's selector sets, each the key=value pairs
// one side of the check reads (Where with Num or Den, A or B), without
// "procs" (a cell runs every -test.cpu value); ok is false for a kind that
// reads no cells (profile) or a selector that does not parse.
func selectors(ch spec.Check) (sets [][][2]string, ok bool) {
	if ch.Kind == "profile" {
		return nil, false
	}
	sides, ok := Sides(ch)
	if !ok {
		return nil, false
	}
	for _, side := range sides {
		var out [][2]string
		for _, p := range side {
			if p[0] != "procs" {
				out = append(out, p)
			}
		}
		sets = append(sets, out)
	}
	return sets, true
}

// Sides returns the key=value pairs each side of a check selects, Where
// included: Num and Den (ratio; profile, Den when set), Num (value,
// correlation), A and B (crossover), A (knee), and Num and Den with A and
// with B (contrast), in that order. A knee's or crossover's side selects a
// series: every cell along its Axis. ok is false for an unknown kind or a
// selector that does not parse.
func Sides(ch spec.Check) (sides [][][2]string, ok bool) {
	var sels [][]string
	switch ch.Kind {
	case "ratio":
		sels = [][]string{{ch.Num}, {ch.Den}}
	case "profile":
		sels = [][]string{{ch.Num}}
		if ch.Den != "" {
			sels = append(sels, []string{ch.Den})
		}
	case "value", "correlation":
		sels = [][]string{{ch.Num}}
	case "crossover":
		sels = [][]string{{ch.A}, {ch.B}}
	case "knee":
		sels = [][]string{{ch.A}}
	case "contrast":
		sels = [][]string{{ch.Num, ch.A}, {ch.Den, ch.A}, {ch.Num, ch.B}, {ch.Den, ch.B}}
	default:
		return nil, false
	}
	where, err := spec.ParseSelector(ch.Where)
	if err != nil {
		return nil, false
	}
	for _, side := range sels {
		set := append([][2]string(nil), where...)
		for _, sel := range side {
			kv, err := spec.ParseSelector(sel)
			if err != nil {
				return nil, false
			}
			set = append(set, kv...)
		}
		sides = append(sides, set)
	}
	return sides, true
}
