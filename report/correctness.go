package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

// Correctness gates. A benchmark that checks its output before timing
// reports the unit CorrectUnit (value 1) when the check passed, and fails
// with a message containing IncorrectMarker followed by the first
// difference when it did not:
//
//	b.Fatalf("perflab: incorrect: %s", firstDifference)
//
// The engine stores such a cell as a failure with its output tail, so it has
// no samples and never enters a table, a ranking or a claim.
const (
	CorrectUnit     = "correct"
	IncorrectMarker = "perflab: incorrect:"
)

// incorrectCell is a cell whose correctness gate failed.
type incorrectCell struct {
	config string
	name   benchname.Name
	diff   string // the first difference, as the benchmark reported it
}

// correctness writes the Correctness section: every cell whose gate failed,
// with the first difference, and how many cells passed, per value of the
// spec's by axis when it has one. Runs whose benchmarks have no gate (no
// CorrectUnit samples and no incorrect failures) get no section.
func correctnessSection(f *findings.Run) *Section {
	bad := incorrectCells(f.Failures)
	passed := map[string]benchname.Name{} // cell key → name
	for _, s := range f.Samples {
		if s.Unit == CorrectUnit {
			passed[s.Config+"\x00"+s.Name.Cell()] = s.Name
		}
	}
	if len(bad) == 0 && len(passed) == 0 {
		return nil
	}
	sec := &Section{ID: "correctness", Title: "Correctness"}
	sec.Blocks = append(sec.Blocks, para("Before timing, each cell checked its output (see the experiment's documentation); a cell that failed is incorrect: it has no samples and is never ranked or used by a claim."))
	dims := cellDims(passed, bad)
	if len(bad) == 0 {
		sec.Blocks = append(sec.Blocks, para(fmt.Sprintf("All %d %s cells produced correct output.", len(passed), dims)))
	} else {
		sec.Blocks = append(sec.Blocks, para(fmt.Sprintf("%d of %d %s cells produced incorrect output:", len(bad), len(bad)+len(passed), dims)))
		keys := partKeys(bad)
		t := &Table{Head: append(append([]string{"config"}, keys...), "first difference")}
		for _, c := range bad {
			r := Row{Cells: cells(c.config)}
			for _, k := range keys {
				v, _ := c.name.Value(k)
				r.Cells = append(r.Cells, cell(v))
			}
			r.Cells = append(r.Cells, cell(c.diff))
			t.Rows = append(t.Rows, r)
		}
		sec.Blocks = append(sec.Blocks, Block{Table: t})
	}
	by := ""
	if f.Spec != nil {
		by = f.Spec.Analysis.By
	}
	if by == "" {
		return sec
	}
	type tally struct{ ok, bad int }
	counts := map[string]*tally{}
	var order []string
	count := func(n benchname.Name, good bool) {
		v, ok := n.Value(by)
		if !ok {
			return
		}
		t := counts[v]
		if t == nil {
			t = &tally{}
			counts[v] = t
			order = append(order, v)
		}
		if good {
			t.ok++
		} else {
			t.bad++
		}
	}
	for _, n := range passed {
		count(n, true)
	}
	for _, c := range bad {
		count(c.name, false)
	}
	if f.Spec != nil {
		for _, a := range f.Spec.Axes {
			if a.Key == by {
				order = axisFirst(order, append(slices.Clone(a.Quick), a.Full...))
			}
		}
	}
	t := &Table{Head: []string{by, "correct cells", "incorrect cells"}}
	for _, v := range order {
		t.Rows = append(t.Rows, Row{Cells: cells(v, strconv.Itoa(counts[v].ok), strconv.Itoa(counts[v].bad))})
	}
	sec.Blocks = append(sec.Blocks, Block{Table: t})
	return sec
}

// incorrectCells returns each cell whose gate failed once, with the first
// difference, in config and name order.
func incorrectCells(failures []store.Failure) []incorrectCell {
	seen := map[string]bool{}
	var out []incorrectCell
	for _, f := range failures {
		i := strings.Index(f.Reason, IncorrectMarker)
		if i < 0 {
			continue
		}
		key := f.Config + "\x00" + f.Cell
		if seen[key] {
			continue
		}
		seen[key] = true
		diff, _, _ := strings.Cut(f.Reason[i+len(IncorrectMarker):], "\n")
		out = append(out, incorrectCell{config: f.Config, name: benchname.Parse(f.Cell), diff: strings.TrimSpace(diff)})
	}
	slices.SortStableFunc(out, func(a, b incorrectCell) int {
		return cmp.Or(cmp.Compare(a.config, b.config), benchname.Compare(a.name.Full, b.name.Full))
	})
	return out
}

// cellDims names what a cell is, from the keys of its name: "op×lib×depth",
// plus "× config" when several configs ran.
func cellDims(passed map[string]benchname.Name, bad []incorrectCell) string {
	var keys []string
	configs := map[string]bool{}
	add := func(n benchname.Name) {
		for _, p := range n.Parts {
			if p.Key != "" && !slices.Contains(keys, p.Key) {
				keys = append(keys, p.Key)
			}
		}
	}
	for k, n := range passed {
		add(n)
		cfg, _, _ := strings.Cut(k, "\x00")
		configs[cfg] = true
	}
	for _, c := range bad {
		add(c.name)
		configs[c.config] = true
	}
	if len(configs) > 1 {
		keys = append(keys, "config")
	}
	if len(keys) == 0 {
		return "benchmark"
	}
	return strings.Join(keys, "×")
}

// partKeys lists the name keys of the cells in first-seen order.
func partKeys(cells []incorrectCell) []string {
	var keys []string
	for _, c := range cells {
		for _, p := range c.name.Parts {
			if p.Key != "" && !slices.Contains(keys, p.Key) {
				keys = append(keys, p.Key)
			}
		}
	}
	return keys
}

// axisFirst orders vals as they appear in axis, then the rest as given.
func axisFirst(vals, axis []string) []string {
	pos := func(v string) int {
		if i := slices.Index(axis, v); i >= 0 {
			return i
		}
		return len(axis)
	}
	out := slices.Clone(vals)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(pos(a), pos(b)) })
	return out
}
