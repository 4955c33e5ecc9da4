package engine

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
)

// Repetitions per comparison, from where its variance lies.
//
// Deciding on sec/op, a process's value of a cell is the median of its k
// repetitions (repeats.go). Which k narrows an interval fastest for the
// time spent depends on where the cell's variance lies, between processes
// or within one, and on what a process and a repetition cost
// (analysis.ChooseRepeats has the arithmetic): many repetitions when they
// are cheap and the variance lies inside processes; one repetition and
// more, shorter processes when it lies between them or when the
// benchmark's set-up, which go test runs again for every repetition,
// makes repetitions dear.
//
// Cells compared with each other keep the same k, so that the median's
// bias under skewed noise is the same in each and cancels in their ratio:
// k is chosen for each group of cells the judge's items connect (in ab, a
// benchmark's old and new cells). Every repetition keeps the run's one
// length (repeatTime), for the same reason.
//
// The engine gathers, per cell, what each fixed-count process cost (its
// wall time, the time inside its timed loops, so its set-up per
// repetition once the least start-and-exit time of any process is taken
// off) and its repetitions' values. After the initial pass,
// Options.ChooseRepeats (perflab's: analysis.ChooseRepeats, the
// statistics being analysis's) picks each group's k from the rounds in
// which its cells all ran the same k. Before that, the budget alone may
// cut a group's repetitions: when the initial pass does not fit, groups
// whose repetitions cost more in set-up than they time run one
// repetition a process, before any comparison is left out
// (leaveout.go). The time their repetitions took buys the pass; a
// repetition less costs precision where the first repetition of a
// process varies most, so it is done only when the budget needs it.
//
// The stored value of a cell in a round is its process's value whatever
// k was, so pairing and interleaving are unchanged; the run records how
// many cells ran each k (store.Decide.Chosen).

// maxRepeats bounds the repetitions one process runs.
const maxRepeats = 10

// procCost is what one fixed-count process of a cell cost.
type procCost struct {
	k      int
	wall   time.Duration // the process, start to exit
	timed  time.Duration // inside its timed loops
	repeat time.Duration // timed, per repetition
}

// cellStats is what a sequential run gathers of one cell to choose its
// repetitions.
type cellStats struct {
	last procCost          // every cellStats has one: record makes it
	reps map[int][]float64 // round → its process's repetitions' sec/op
	// wallSum and walls: the wall times of its processes at last.k,
	// whose mean predicts the next (one process's time is noisy).
	wallSum time.Duration
	walls   int
}

// allocation is a sequential run's choice of repetitions per cell.
type allocation struct {
	start  time.Duration         // least time a process took beyond its timed loops: start and exit
	cells  map[string]*cellStats // cell key → its stats
	k      map[string]int        // cell key → repetitions a process; repeats when absent
	groups [][]string            // cell keys the judge's items connect; nil until known
	final  bool                  // the initial pass's choice is made
}

func newAllocation() *allocation {
	return &allocation{start: -1, cells: map[string]*cellStats{}, k: map[string]int{}}
}

// repeatsOf is the repetitions a cell's process runs.
func (a *allocation) repeatsOf(key string) int {
	if k, ok := a.k[key]; ok {
		return k
	}
	return repeats
}

// record adds one fixed-count process of a cell in a round: its wall
// time and its repetitions' sec/op and iteration counts.
func (a *allocation) record(key string, round int, wall time.Duration, secs []float64, iters []int64) {
	k := len(secs)
	if k == 0 || len(iters) != k {
		return
	}
	st := a.cells[key]
	if st == nil {
		st = &cellStats{reps: map[int][]float64{}}
		a.cells[key] = st
	}
	var timed time.Duration
	for i, v := range secs {
		timed += time.Duration(v * float64(iters[i]) * 1e9)
	}
	if over := max(0, wall-timed); a.start < 0 || over < a.start {
		a.start = over
	}
	if st.last.k != k {
		st.wallSum, st.walls = 0, 0
	}
	st.last = procCost{k: k, wall: wall, timed: timed, repeat: timed / time.Duration(k)}
	st.wallSum += wall
	st.walls++
	if round > 0 {
		st.reps[round] = secs
	}
}

// setupOf is a cell's set-up per repetition, from its last process.
func (a *allocation) setupOf(st *cellStats) time.Duration {
	return max(0, (st.last.wall-st.last.timed-max(0, a.start))/time.Duration(st.last.k))
}

// cost is the predicted wall time of a cell's next process, or 0 when
// none has run at a fixed count: the mean of its processes at the
// repetitions it runs now, or, with other repetitions, its parts.
func (a *allocation) cost(key string) time.Duration {
	st := a.cells[key]
	if st == nil {
		return 0
	}
	k := a.repeatsOf(key)
	if k == st.last.k {
		return st.wallSum / time.Duration(st.walls)
	}
	return max(0, a.start) + time.Duration(k)*(a.setupOf(st)+st.last.repeat)
}

// groupsOf connects the cells each item reads: cells an item compares end
// in one group.
func groupsOf(items []Item) [][]string {
	parent := map[string]string{}
	var find func(string) string
	find = func(x string) string {
		p, ok := parent[x]
		if !ok || p == x {
			parent[x] = x
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	for _, it := range items {
		for i, c := range it.Cells {
			ri := find(c.String())
			if i > 0 {
				r0 := find(it.Cells[0].String())
				if r0 != ri {
					parent[ri] = r0
				}
			}
		}
	}
	byRoot := map[string][]string{}
	for x := range parent {
		r := find(x)
		byRoot[r] = append(byRoot[r], x)
	}
	var out [][]string
	for _, g := range byRoot {
		sort.Strings(g)
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}

// setupHeavy is the groups running more than one repetition whose every
// cell has run a fixed-count process and whose repetitions cost more in
// set-up than they time, those whose processes one repetition would
// shorten most first.
func (a *allocation) setupHeavy() [][]string {
	type heavy struct {
		keys  []string
		saves time.Duration
	}
	var hs []heavy
	for _, g := range a.groups {
		k := a.repeatsOf(g[0])
		if k == 1 {
			continue
		}
		var setup, timed time.Duration
		all := true
		for _, key := range g {
			st := a.cells[key]
			if st == nil {
				all = false
				break
			}
			setup += a.setupOf(st)
			timed += st.last.repeat
		}
		if all && setup > timed {
			hs = append(hs, heavy{g, time.Duration(k-1) * (setup + timed)})
		}
	}
	slices.SortStableFunc(hs, func(x, y heavy) int { return int(y.saves - x.saves) })
	out := make([][]string, len(hs))
	for i, h := range hs {
		out[i] = h.keys
	}
	return out
}

// repeatGroup is what Options.ChooseRepeats reads of a group of cells at
// its k: each cell's repetitions over the rounds in which every cell ran
// k, what a process costs to start and exit, and what a repetition costs
// summed over the cells.
type repeatGroup struct {
	reps          [][][]float64
	start, perRep time.Duration
}

func (a *allocation) group(g []string, k int) repeatGroup {
	var rounds []int
	for i, key := range g {
		st := a.cells[key]
		if st == nil {
			return repeatGroup{}
		}
		var rs []int
		for r, xs := range st.reps {
			if len(xs) == k {
				rs = append(rs, r)
			}
		}
		if i == 0 {
			rounds = rs
			continue
		}
		rounds = slices.DeleteFunc(rounds, func(r int) bool { return !slices.Contains(rs, r) })
	}
	slices.Sort(rounds)
	out := repeatGroup{start: max(time.Millisecond, a.start)}
	for _, key := range g {
		st := a.cells[key]
		var reps [][]float64
		for _, r := range rounds {
			reps = append(reps, st.reps[r])
		}
		out.reps = append(out.reps, reps)
		out.perRep += a.setupOf(st) + st.last.repeat
	}
	return out
}

// choose sets every group's repetitions with pick (Options.ChooseRepeats)
// from the rounds so far; a group pick cannot judge keeps its k. It
// returns how many cells run each k.
func (a *allocation) choose(pick func([][][]float64, time.Duration, time.Duration, int) (int, bool)) map[int]int {
	a.final = true
	for _, g := range a.groups {
		if len(g) < 2 {
			continue
		}
		gr := a.group(g, a.repeatsOf(g[0]))
		nk, ok := pick(gr.reps, gr.start, gr.perRep, maxRepeats)
		if !ok || nk < 1 {
			continue
		}
		for _, key := range g {
			a.k[key] = min(nk, maxRepeats)
		}
	}
	return a.counts()
}

// counts is how many of the grouped cells run each k.
func (a *allocation) counts() map[int]int {
	out := map[int]int{}
	for _, g := range a.groups {
		for _, key := range g {
			out[a.repeatsOf(key)]++
		}
	}
	return out
}

// setGroups records the groups the judge's items make, once.
func (a *allocation) setGroups(items []Item) {
	if a.groups == nil {
		a.groups = groupsOf(items)
		if a.groups == nil {
			a.groups = [][]string{}
		}
	}
}

// countsLine words how many cells run each number of repetitions.
func countsLine(counts map[int]int) string {
	ks := make([]int, 0, len(counts))
	for k := range counts {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	var parts []string
	for _, k := range ks {
		unit := "repetitions"
		if k == 1 {
			unit = "repetition"
		}
		parts = append(parts, fmt.Sprintf("%d cells × %d %s", counts[k], k, unit))
	}
	return strings.Join(parts, ", ")
}

// namesLine lists up to three cells' names and how many more.
func namesLine(keys []string) string {
	var names []string
	seen := map[string]bool{}
	for _, k := range keys {
		n, _, _ := strings.Cut(k, " @")
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	if len(names) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
	}
	return strings.Join(names, ", ")
}

// sayChosen prints the choice after the initial pass.
func sayChosen(w io.Writer, counts map[int]int) {
	if len(counts) == 0 {
		return
	}
	fmt.Fprintf(w, "perflab: repetitions a process, chosen for each comparison from where its variance lies (between processes or within one) and what a process and a repetition cost: %s\n", countsLine(counts))
}

// secsOf is the sec/op of each of a process's results (0 where it
// reports none).
func secsOf(out []*benchfmt.Result) []float64 {
	xs := make([]float64, len(out))
	for i, r := range out {
		xs[i], _ = r.Value(UnitSec)
	}
	return xs
}

// itersOf is the iteration count of each of a process's results.
func itersOf(out []*benchfmt.Result) []int64 {
	ns := make([]int64, len(out))
	for i, r := range out {
		ns[i] = int64(r.Iters)
	}
	return ns
}

// afterRound learns the groups of compared cells from the judge, once,
// after round 2 of the initial pass.
func (r *rounds) afterRound(ctx context.Context, round int) error {
	s := r.seq
	if s == nil || round < 2 || s.alloc.groups != nil {
		return nil
	}
	st, err := r.opt.Judge.Sequential(ctx, r.runID)
	if err != nil {
		return fmt.Errorf("judging the rounds up to %d: %w", round, err)
	}
	s.alloc.setGroups(st.Items)
	return nil
}

// chooseRepeats makes the choice after the initial pass, says it and
// records it with the run.
func (r *rounds) chooseRepeats(ctx context.Context, st Status) error {
	s := r.seq
	if s == nil || s.unit == UnitCPU || r.opt.Repeat == nil || r.opt.ChooseRepeats == nil || s.alloc.final {
		return nil
	}
	s.alloc.setGroups(st.Items)
	counts := s.alloc.choose(r.opt.ChooseRepeats)
	if len(counts) == 0 {
		return nil
	}
	sayChosen(r.progress, counts)
	return r.opt.DB.SetChosenRepeats(ctx, r.runID, counts)
}

// roundCost is the predicted wall time of a round of the given cells
// (indexes into the plan): each cell's next process as its last ones
// cost, or the mean cell's where it has none.
func (r *rounds) roundCost(cells []int) time.Duration {
	var d time.Duration
	for _, i := range cells {
		c := r.cellCost(i)
		if c <= 0 {
			c = r.eff.perCell()
		}
		d += c
	}
	return d
}
