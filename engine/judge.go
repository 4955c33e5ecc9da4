package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// A Judge decides, from the rounds stored so far, which of a run's checks
// and compared ratios are still open. The engine computes no statistics:
// it asks the judge after the rounds that need a decision, runs rounds of
// the cells the open items read, and stops. The caller supplies the judge
// (perflab's reads the stored run through package findings); a run
// without one is never sequential and takes no first look.
type Judge interface {
	// Rules says what judging a run of s needs before it starts.
	Rules(s *spec.Spec) Rules
	// Sequential judges a sequential run after each of its rounds.
	Sequential(ctx context.Context, runID int64) (Status, error)
	// FirstLook judges a run of fixed rounds after its planned rounds
	// (the first look), which decides its follow-up rounds.
	FirstLook(ctx context.Context, runID int64) (Status, error)
}

// A LayoutChooser is a Judge that also chooses, once a sequential run's
// initial pass has measured how much of each comparison's variance is
// layout and how much is noise, how many rounds a layout serves from then
// on: few when layout dominates, more when noise does and links are dear
// relative to rounds (perflab's: findings.ChoosePerLayout). why says what
// the choice rests on, in a line.
type LayoutChooser interface {
	ChoosePerLayout(ctx context.Context, runID int64, costs LayoutCosts) (per int, why string, err error)
}

// LayoutCosts are what the choice of rounds per layout weighs.
type LayoutCosts struct {
	Link  time.Duration // relinking every build for a new layout
	Round time.Duration // a round of the cells still open
	Per   int           // the rounds a layout serves now
}

// Rules is what judging a run needs before it starts.
type Rules struct {
	// FirstLook says a run of fixed rounds has checks that more rounds
	// can decide: it takes a first look after its planned rounds and runs
	// follow-up rounds for the checks that leave open.
	FirstLook bool
	// InitialRounds is the initial pass of a sequential run: the fewest
	// rounds after which its judge can decide anything.
	InitialRounds int
	// InitialFor, when set, is the initial pass of a sequential run
	// whose configs each have the given number of cells (the ratios one
	// unit compares, which the judge corrects for): it replaces
	// InitialRounds.
	InitialFor func(cells int) int
	// FixedFor, when set, is the fewest independent observations (rounds,
	// or layout clusters) a run of fixed rounds whose configs each have
	// the given number of cells needs for any compared ratio to get an
	// interval at the level it is judged at. A run that relinks layouts
	// serves fewer rounds a layout, or is refused, rather than run rounds
	// that can print no interval.
	FixedFor func(cells int) int
}

// Status is what a judge decided: one item per check or compared ratio.
type Status struct {
	Items []Item
}

// An Item is one check or compared ratio, decided or still open.
type Item struct {
	Label   string      // what it is, e.g. "T3.1" or "BenchmarkX v=b/a (sec/op)"
	Cells   []plan.Cell // the cells it reads, by config and name
	Decided bool
	More    int    // the further rounds it likely needs to be decided; -1 unknown
	Line    string // its progress text while open, already worded
}

// open returns the undecided items.
func (st Status) open() []Item {
	var out []Item
	for _, it := range st.Items {
		if !it.Decided {
			out = append(out, it)
		}
	}
	return out
}

// indexes maps cells to their indexes in the plan, in plan order; cells
// the plan does not hold are left out.
func (p cellIndex) indexes(cells []plan.Cell) []int {
	var out []int
	for _, c := range cells {
		if i, ok := p[c.String()]; ok && !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// cellIndex finds a plan's cells by their String (name and config).
type cellIndex map[string]int

func indexOf(p *plan.Plan) cellIndex {
	idx := make(cellIndex, len(p.Cells))
	for i, c := range p.Cells {
		idx[c.String()] = i
	}
	return idx
}

// openCells is the union of the plan indexes of the cells that undecided
// items read, in plan order.
func (p cellIndex) openCells(st Status) []int {
	var cells []plan.Cell
	for _, it := range st.open() {
		cells = append(cells, it.Cells...)
	}
	return p.indexes(cells)
}

// openLine is the progress line's list of open items.
func openLine(st Status) string {
	var open []string
	for _, it := range st.open() {
		open = append(open, it.Line)
	}
	if len(open) == 0 {
		return "all decided"
	}
	if len(open) > 2 {
		// Two are enough to show what is open; a line per round in a
		// log stays readable.
		return fmt.Sprintf("%d open; %s; …", len(open), strings.Join(open[:2], "; "))
	}
	return fmt.Sprintf("%d open: %s", len(open), strings.Join(open, "; "))
}
