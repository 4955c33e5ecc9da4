package engine

import (
	"golang.org/x/perf/benchfmt"
)

// Repetitions inside one benchmark process.
//
// Once a sequential run that decides on sec/op has fixed a cell's
// iteration count N, each of the cell's processes times the benchmark as
// repeats back-to-back repetitions of N/repeats iterations (-test.count)
// instead of one run of N, and the process's value of each unit is the
// statistic Options.Repeat gives of its repetitions (perflab's: their
// median, analysis.RepeatEstimate). Without one, a process runs one
// repetition. Interference that
// spoils part of a process's run then spoils a minority of its
// repetitions, not its whole sample. The process is still the unit of the
// round: one value per cell per round, paired with the other cells of the
// round, so pairing and interleaving are unchanged.
//
// A run that decides on cpu-sec/op keeps one repetition per process: its
// unit is the CPU time of the whole process less a baseline process's, and
// extra repetitions add their own set-up to both.
const repeats = 5

// minRepeatIters is the fewest iterations a repetition may have; a cell
// whose fixed count is smaller runs as one repetition.
const minRepeatIters = 20

// repeatsFor is the number of repetitions for a cell fixed at n
// iterations.
func (r *rounds) repeatsFor(n int) int {
	if r.opt.Repeat == nil || n/repeats < minRepeatIters {
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
