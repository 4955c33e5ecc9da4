package findings

import (
	"cmp"
	"math"
	"slices"

	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/store"
)

// FuncChanges is, for two runs that both counted instructions per
// function, every cell whose instructions per op changed (by more than
// 0.1%) with the functions whose counts changed most, largest change
// first. An empty Cells means no cell changed.
type FuncChanges struct {
	Cells []FuncCell
}

// FuncCell is one cell's per-function comparison between two runs.
type FuncCell struct {
	Config, Name string
	Diff         cachegrind.FuncDiff
}

// funcChanges compares two runs' per-function counts; nil when either has
// none. problems lists the files that could not be read.
func funcChanges(old, new []store.Artifact) (*FuncChanges, []string) {
	of, op := funcMedians(old)
	nf, np := funcMedians(new)
	problems := append(op, np...)
	if len(of) == 0 || len(nf) == 0 {
		return nil, problems
	}
	fc := &FuncChanges{}
	for cfg, benches := range nf {
		for name, funcs := range benches {
			o := of[cfg][name]
			if o == nil {
				continue
			}
			d := cachegrind.Changes(o, funcs, topFuncs, 0.01)
			if cachegrind.TotalChanged(d) && len(d.Changes) > 0 {
				fc.Cells = append(fc.Cells, FuncCell{Config: cfg, Name: name, Diff: d})
			}
		}
	}
	slices.SortFunc(fc.Cells, func(a, b FuncCell) int {
		ra := math.Abs(a.Diff.NewTotal/a.Diff.OldTotal - 1)
		rb := math.Abs(b.Diff.NewTotal/b.Diff.OldTotal - 1)
		return cmp.Or(cmp.Compare(rb, ra), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Config, b.Config))
	})
	return fc, problems
}
