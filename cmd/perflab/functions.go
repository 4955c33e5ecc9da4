package main

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/store"
)

// maxFuncCells bounds how many cells compare lists functions for.
const maxFuncCells = 10

// sideFuncs reads one side's per-function instruction counts: config →
// benchmark → function → median instructions per op. Nil for a file or a
// run that did not measure instructions.
func sideFuncs(arts []store.Artifact) (map[string]map[string]map[string]float64, error) {
	paths := map[string][]string{}
	for _, a := range arts {
		if a.Kind == cachegrind.ArtifactKind {
			paths[a.Config] = append(paths[a.Config], a.Path)
		}
	}
	if len(paths) == 0 {
		return nil, nil
	}
	out := map[string]map[string]map[string]float64{}
	for cfg, ps := range paths {
		m, err := cachegrind.FuncMedians(ps...)
		if err != nil {
			return nil, err
		}
		out[cfg] = m
	}
	return out, nil
}

// writeFuncChanges lists, for the cells whose instructions per op changed
// most between two runs that both measured them, the functions whose
// counts changed most and their share of the cell's change.
func writeFuncChanges(w io.Writer, old, new *side) error {
	of, err := sideFuncs(old.artifacts)
	if err != nil {
		return fmt.Errorf("old: %w", err)
	}
	nf, err := sideFuncs(new.artifacts)
	if err != nil {
		return fmt.Errorf("new: %w", err)
	}
	if of == nil || nf == nil {
		return nil
	}
	type cell struct {
		config, name string
		d            cachegrind.FuncDiff
	}
	var cells []cell
	for cfg, benches := range nf {
		for name, funcs := range benches {
			o := of[cfg][name]
			if o == nil {
				continue
			}
			d := cachegrind.Changes(o, funcs, 5, 0.01)
			if cachegrind.TotalChanged(d) && len(d.Changes) > 0 {
				cells = append(cells, cell{cfg, name, d})
			}
		}
	}
	if len(cells) == 0 {
		fmt.Fprintln(w, "\nfunctions: no cell's instructions/op changed by more than 0.1%")
		return nil
	}
	slices.SortFunc(cells, func(a, b cell) int {
		ra := math.Abs(a.d.NewTotal/a.d.OldTotal - 1)
		rb := math.Abs(b.d.NewTotal/b.d.OldTotal - 1)
		return cmp.Or(cmp.Compare(rb, ra), cmp.Compare(a.name, b.name), cmp.Compare(a.config, b.config))
	})
	fmt.Fprintf(w, "\nfunctions whose instructions/op changed most (medians over rounds; share = the function's change ÷ the cell's change)\n")
	for i, c := range cells {
		if i == maxFuncCells {
			fmt.Fprintf(w, "\n(%d more cells changed; see each run's report)\n", len(cells)-maxFuncCells)
			break
		}
		fmt.Fprintf(w, "\n%s%s: %.6g → %.6g instructions/op (%+.2f%%)\n", c.name, configSuffix(c.config), c.d.OldTotal, c.d.NewTotal, 100*(c.d.NewTotal/c.d.OldTotal-1))
		for _, f := range c.d.Changes {
			fmt.Fprintf(w, "  %-50s %10.4g → %-10.4g %+10.4g  %4.0f%%\n", f.Func, f.Old, f.New, f.Delta, 100*f.Share)
		}
	}
	return nil
}
