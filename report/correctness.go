package report

import (
	"cmp"
	"slices"
	"strings"

	"github.com/perflab/perflab/analysis"
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
	name   analysis.Name
	diff   string // the first difference, as the benchmark reported it
}

// correctness writes the Correctness section: every cell whose gate failed,
// with the first difference, and how many cells passed, per value of the
// spec's by axis when it has one. Runs whose benchmarks have no gate (no
// CorrectUnit samples and no incorrect failures) get no section.
func (m *md) correctness() {
	bad := m.in.incorrectCells()
	passed := map[string]analysis.Name{} // cell key → name
	for _, s := range m.in.Samples {
		if s.Unit == CorrectUnit {
			passed[s.Config+"\x00"+cellKey(s.Name)] = s.Name
		}
	}
	if len(bad) == 0 && len(passed) == 0 {
		return
	}
	m.p("## Correctness\n\n")
	m.p("Before timing, each cell checked its output (see the experiment's documentation); a cell that failed is incorrect: it has no samples and is never ranked or used by a claim.\n\n")
	dims := cellDims(passed, bad)
	if len(bad) == 0 {
		m.p("All %d %s cells produced correct output.\n\n", len(passed), dims)
	} else {
		m.p("%d of %d %s cells produced incorrect output:\n\n", len(bad), len(bad)+len(passed), dims)
		keys := partKeys(bad)
		m.p("| config |")
		for _, k := range keys {
			m.p(" %s |", esc(k))
		}
		m.p(" first difference |\n|---|%s---|\n", strings.Repeat("---|", len(keys)))
		for _, c := range bad {
			m.p("| %s |", esc(c.config))
			for _, k := range keys {
				v, _ := c.name.Value(k)
				m.p(" %s |", esc(v))
			}
			m.p(" %s |\n", esc(c.diff))
		}
		m.p("\n")
	}
	by := ""
	if m.in.Spec != nil {
		by = m.in.Spec.Analysis.By
	}
	if by == "" {
		return
	}
	type tally struct{ ok, bad int }
	counts := map[string]*tally{}
	var order []string
	count := func(n analysis.Name, good bool) {
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
	if m.in.Spec != nil {
		for _, a := range m.in.Spec.Axes {
			if a.Key == by {
				order = axisFirst(order, append(slices.Clone(a.Quick), a.Full...))
			}
		}
	}
	m.p("| %s | correct cells | incorrect cells |\n|---|---|---|\n", esc(by))
	for _, v := range order {
		m.p("| %s | %d | %d |\n", esc(v), counts[v].ok, counts[v].bad)
	}
	m.p("\n")
}

// incorrectCells returns each cell whose gate failed once, with the first
// difference, in config and name order.
func (in *Input) incorrectCells() []incorrectCell {
	seen := map[string]bool{}
	var out []incorrectCell
	for _, f := range in.Failures {
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
		out = append(out, incorrectCell{config: f.Config, name: analysis.ParseName(f.Cell), diff: strings.TrimSpace(diff)})
	}
	slices.SortStableFunc(out, func(a, b incorrectCell) int {
		return cmp.Or(cmp.Compare(a.config, b.config), analysis.CompareNames(a.name.Full, b.name.Full))
	})
	return out
}

// cellKey is the name of a cell without its GOMAXPROCS suffix.
func cellKey(n analysis.Name) string {
	var b strings.Builder
	b.WriteString(n.Base)
	for _, p := range n.Parts {
		b.WriteByte('/')
		if p.Key != "" {
			b.WriteString(p.Key + "=")
		}
		b.WriteString(p.Value)
	}
	return b.String()
}

// cellDims names what a cell is, from the keys of its name: "op×lib×depth",
// plus "× config" when several configs ran.
func cellDims(passed map[string]analysis.Name, bad []incorrectCell) string {
	var keys []string
	configs := map[string]bool{}
	add := func(n analysis.Name) {
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
