package engine

import (
	"time"

	"golang.org/x/perf/benchfmt"
)

// Repetitions inside one benchmark process.
//
// Once a sequential run that decides on sec/op has sized a cell, each of
// the cell's processes times the benchmark as repeats back-to-back
// repetitions (-test.count) instead of one run, and the process's value
// of each unit is the statistic Options.Repeat gives of its repetitions
// (perflab's: their median, analysis.RepeatEstimate). Without one, a
// process runs one repetition. Interference that spoils part of a
// process's run then spoils a minority of its repetitions, not its whole
// sample. The process is still the unit of the round: one value per cell
// per round, paired with the other cells of the round, so pairing and
// interleaving are unchanged.
//
// Every repetition of every cell lasts the same wall time, a fifth of the
// mode's benchtime (repeatTime): the iteration count per repetition is
// that time at the fastest speed the cell has shown (fixedIters, resize):
// its sizing run, or a faster later process, since a neighbour only slows
// a process. A busy spell of the
// machine spoils a long repetition more often than a short one, so the
// median of repetitions of unequal length is biased towards the slower
// side for the longer ones (analysis.RepeatEstimate's documentation gives
// the simulated size); of equal length, the bias is the same in every
// cell and cancels in their ratio.
//
// A run that decides on cpu-sec/op keeps one repetition per process: its
// unit is the CPU time of the timed loop, which a neighbour's spells do
// not inflate.
const repeats = 5

// repeatTime is the wall time of every repetition in a run at benchtime:
// a fifth of it (so a process lasts about the benchtime); 0 for an
// iteration-count benchtime, whose count is kept as given.
func repeatTime(benchtime string) time.Duration {
	return benchDuration(benchtime) / repeats
}

// repeatsFor is the number of repetitions for a cell fixed at n
// iterations: repeats when the run combines them and n divides into
// them, else one.
func (r *rounds) repeatsFor(n int) int {
	if r.opt.Repeat == nil || n < repeats || n%repeats != 0 {
		return 1
	}
	return repeats
}

// combineRepeats merges the k results one process printed for the same
// benchmark into one with combineRepeats.
func (r *rounds) combineRepeats(out []*benchfmt.Result, k int) (*benchfmt.Result, bool) {
	return combineRepeats(out, k, r.opt.Repeat)
}

// combineRepeats merges the k results one process printed for the same
// benchmark into one: each unit's value is the statistic est of the
// repetitions' values, Iters their sum. ok is false unless out holds k
// results of one name with the same iteration count and the same units,
// or when k > 1 and est is nil.
func combineRepeats(out []*benchfmt.Result, k int, est func([]float64) float64) (*benchfmt.Result, bool) {
	if len(out) != k || k < 1 {
		return nil, false
	}
	first := out[0]
	for _, r := range out[1:] {
		if string(r.Name) != string(first.Name) || r.Iters != first.Iters || len(r.Values) != len(first.Values) {
			return nil, false
		}
	}
	if k == 1 {
		return first, true
	}
	if est == nil {
		return nil, false
	}
	c := first.Clone()
	c.Iters = 0
	for _, r := range out {
		c.Iters += r.Iters
	}
	for i := range c.Values {
		unit := c.Values[i].Unit
		var xs, orig []float64
		for _, r := range out {
			for _, v := range r.Values {
				if v.Unit == unit {
					xs = append(xs, v.Value)
					orig = append(orig, v.OrigValue)
				}
			}
		}
		if len(xs) != k {
			return nil, false
		}
		c.Values[i].Value = est(xs)
		c.Values[i].OrigValue = est(orig)
	}
	return c, true
}
