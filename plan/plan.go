// Package plan lays out an experiment's cells and the order they run in:
// every round runs each cell (one sub-benchmark selection under one config)
// exactly once, in a freshly shuffled order, so drift of the machine over
// time hits every variant alike.
package plan

import (
	"math/rand/v2"
	"slices"
	"strings"
)

// Axis is a sub-benchmark level and the values to sweep, in nesting order.
type Axis struct {
	Key    string
	Values []string
}

// Cell is one benchmark selection under one configuration.
type Cell struct {
	Bench  string   // top-level benchmark, e.g. BenchmarkPool
	Levels []string // sub-benchmark levels, e.g. ["size=64", "reuse=25"]
	Config string   // configuration name
	// Package is the package pattern whose test binary runs the cell,
	// relative to the module directory; "" for the spec's package. A run
	// over several packages sets it on every cell.
	Package string `json:"Package,omitempty"`
}

// Name is the benchmark path the cell selects, e.g.
// BenchmarkPool/size=64/reuse=25.
func (c Cell) Name() string {
	return strings.Join(append([]string{c.Bench}, c.Levels...), "/")
}

// String is the cell's name, its package when it names one, and its
// configuration.
func (c Cell) String() string {
	if c.Package != "" {
		return c.Name() + " (" + c.Package + ") @" + c.Config
	}
	return c.Name() + " @" + c.Config
}

// Plan is the set of cells and the number of rounds.
type Plan struct {
	Cells  []Cell
	Rounds int
	Seed   int64
}

// New returns the plan for the cross product of benchmarks, axis values and
// configs. The order of Cells is canonical (benchmarks, then axes in order,
// then configs); Order gives the shuffled run order of each round.
func New(benchmarks []string, axes []Axis, configs []string, rounds int, seed int64) *Plan {
	p := &Plan{Rounds: rounds, Seed: seed}
	levels := [][]string{nil}
	for _, a := range axes {
		var next [][]string
		for _, l := range levels {
			for _, v := range a.Values {
				next = append(next, append(slices.Clip(l), a.Key+"="+v))
			}
		}
		levels = next
	}
	for _, b := range benchmarks {
		for _, l := range levels {
			for _, c := range configs {
				p.Cells = append(p.Cells, Cell{Bench: b, Levels: l, Config: c})
			}
		}
	}
	return p
}

// Order returns the indexes of Cells in the order round r (1-based) runs
// them: a permutation drawn from the plan's seed and r, so a resumed run
// repeats it. Consecutive rounds never share an order when there are at
// least two cells.
func (p *Plan) Order(r int) []int {
	perm := p.perm(r, 0)
	if r > 1 && len(perm) > 1 {
		prev := p.Order(r - 1)
		for try := uint64(1); slices.Equal(perm, prev); try++ {
			perm = p.perm(r, try)
		}
	}
	return perm
}

func (p *Plan) perm(r int, try uint64) []int {
	rng := rand.New(rand.NewPCG(uint64(p.Seed), uint64(r)<<32|try))
	return rng.Perm(len(p.Cells))
}

// Size is the number of cell runs in the whole plan.
func (p *Plan) Size() int { return len(p.Cells) * p.Rounds }

// OrderOf returns the cells of subset (indexes into Cells) in the order
// round r runs them when only those cells are due, as in a sequential
// run's later rounds: a permutation of subset drawn from the plan's seed
// and r, so it is reproducible and independent of earlier rounds.
func (p *Plan) OrderOf(r int, subset []int) []int {
	rng := rand.New(rand.NewPCG(uint64(p.Seed), uint64(r)<<32|1<<31))
	out := slices.Clone(subset)
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}
