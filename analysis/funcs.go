package analysis

import (
	"cmp"
	"math"
	"slices"
)

// A FuncChange is one function's change in instructions per op between two
// measurements.
type FuncChange struct {
	Func     string
	Old, New float64 // instructions per op; 0 where the function did not run
	Delta    float64 // New − Old
	// Share is Delta divided by the total change of all functions
	// (new total − old total): the part of the change this function
	// explains. It is signed: a function that moved against the total
	// has a negative share, and shares can exceed 1 when others offset.
	Share float64
}

// FuncDiff is the per-function comparison of two measurements of one cell.
type FuncDiff struct {
	OldTotal, NewTotal float64 // instructions per op, summed over functions
	Changes            []FuncChange
}

// FuncChanges compares two per-function maps of instructions per op (e.g. the
// medians over rounds of a cell's per-function counts under Cachegrind, [MedianFuncs] for two configs or two runs)
// and returns the top functions by absolute change, largest first, each
// with its share of the total change. Changes smaller than minAbs
// instructions per op are left out as noise. top ≤ 0 keeps them all.
func FuncChanges(old, new map[string]float64, top int, minAbs float64) FuncDiff {
	var d FuncDiff
	names := map[string]bool{}
	for f, v := range old {
		d.OldTotal += v
		names[f] = true
	}
	for f, v := range new {
		d.NewTotal += v
		names[f] = true
	}
	total := d.NewTotal - d.OldTotal
	for f := range names {
		c := FuncChange{Func: f, Old: old[f], New: new[f]}
		c.Delta = c.New - c.Old
		if math.Abs(c.Delta) < minAbs || c.Delta == 0 {
			continue
		}
		if total != 0 {
			c.Share = c.Delta / total
		}
		d.Changes = append(d.Changes, c)
	}
	slices.SortFunc(d.Changes, func(a, b FuncChange) int {
		if c := cmp.Compare(math.Abs(b.Delta), math.Abs(a.Delta)); c != 0 {
			return c
		}
		return cmp.Compare(a.Func, b.Func)
	})
	if top > 0 && len(d.Changes) > top {
		d.Changes = d.Changes[:top]
	}
	return d
}

// MedianFuncs combines several measurements' per-function counts into one
// map: each function's median over the measurements, a function missing
// from a measurement counting as 0 there.
func MedianFuncs(ms []map[string]float64) map[string]float64 {
	names := map[string]bool{}
	for _, m := range ms {
		for f := range m {
			names[f] = true
		}
	}
	out := make(map[string]float64, len(names))
	vals := make([]float64, len(ms))
	for f := range names {
		for i, m := range ms {
			vals[i] = m[f]
		}
		if med := Summarize(vals, DefaultOptions()).Center; med != 0 {
			out[f] = med
		}
	}
	return out
}

// TotalChanged reports whether the total changed by more than 0.1% (of
// the larger total): below that a function's share of the change is the
// ratio of two small numbers and means nothing.
func (d FuncDiff) TotalChanged() bool {
	return math.Abs(d.NewTotal-d.OldTotal) > 1e-3*math.Max(math.Abs(d.OldTotal), math.Abs(d.NewTotal))
}
