package analysis

import (
	"math"
	"time"
)

// Where a benchmark's variance lies, and what a process should repeat.
//
// A process's value of a benchmark is the median of its k back-to-back
// repetitions (RepeatEstimate). Across rounds, once the drift a round
// shares with every cell is taken out, that value's log varies as
//
//	σ²p + m(k)·σ²w/k
//
// where σ²p is what differs from process to process (the heap's and the
// code's layout, CPU placement, a neighbour for the whole process), σ²w
// what differs between repetitions inside one, and m(k) the median's
// variance relative to the mean's (MedianFactor). A process costs
// a + k·r: a to start and exit, r per repetition (the benchmark's set-up
// and its timed loop). For a fixed budget, an interval across rounds
// narrows fastest with the k that minimises variance × cost, the
// classical optimal allocation of a nested design (Cochran, Sampling
// Techniques, §10.6).

// Components are the variance components of a group of cells, on the log
// scale: Within between the repetitions inside one process, Between
// between processes beyond what the repetitions explain; K the
// repetitions a process ran and Rounds how many rounds they come from.
type Components struct {
	Within, Between float64
	K, Rounds       int
}

// NestedComponents estimates a group's variance components from its
// processes' repetitions. Within is pooled over every process's
// repetitions about their mean. Between is the residual variance of the
// processes' values (the median of their repetitions, logged) in a
// two-way fit of rounds and cells, which takes out each round's shared
// drift and each cell's level, less the within share m(K)·Within/K, and
// no less than 0. ok is false without two cells, three rounds and
// repetitions of equal number K ≥ 2 in every process, or with a value that
// is not positive.
func NestedComponents(reps [][][]float64) (c Components, ok bool) {
	C := len(reps)
	if C < 2 {
		return c, false
	}
	R := len(reps[0])
	if R < 3 {
		return c, false
	}
	K := len(reps[0][0])
	if K < 2 {
		return c, false
	}
	y := make([][]float64, C)
	ss, df := 0.0, 0
	for i := range reps {
		if len(reps[i]) != R {
			return c, false
		}
		y[i] = make([]float64, R)
		for j, xs := range reps[i] {
			if len(xs) != K {
				return c, false
			}
			logs := make([]float64, K)
			for n, x := range xs {
				if !(x > 0) || math.IsInf(x, 0) {
					return c, false
				}
				logs[n] = math.Log(x)
			}
			m := mean(logs)
			for _, l := range logs {
				ss += (l - m) * (l - m)
			}
			df += K - 1
			y[i][j] = math.Log(RepeatEstimate(xs))
		}
	}
	within := ss / float64(df)
	cellMean := make([]float64, C)
	roundMean := make([]float64, R)
	grand := 0.0
	for i := range y {
		for j, v := range y[i] {
			cellMean[i] += v / float64(R)
			roundMean[j] += v / float64(C)
			grand += v / float64(C*R)
		}
	}
	sse := 0.0
	for i := range y {
		for j, v := range y[i] {
			e := v - cellMean[i] - roundMean[j] + grand
			sse += e * e
		}
	}
	residual := sse / float64((C-1)*(R-1))
	between := max(0, residual-MedianFactor(K)*within/float64(K))
	return Components{Within: within, Between: between, K: K, Rounds: R}, true
}

// MedianFactor is m(k): the variance of the median of k independent normal
// values relative to the variance of their mean (for even k, the median is
// the mean of the middle two). It is 1 for k ≤ 2 and tends to π/2.
func MedianFactor(k int) float64 {
	f := [...]float64{1, 1, 1, 1.35, 1.19, 1.43, 1.29, 1.47, 1.33, 1.49, 1.36}
	if k >= 0 && k < len(f) {
		return f[k]
	}
	return math.Pi / 2
}

// BestRepeats is the k from 1 to maxK with the least variance × cost for
// a group of cells processes: (Between + m(k)·Within/k) × (cells·start +
// k·perRep). Of two k within a part in a billion, the smaller wins.
func BestRepeats(c Components, cells int, start, perRep time.Duration, maxK int) int {
	best, bestV := 1, math.Inf(1)
	for k := 1; k <= max(1, maxK); k++ {
		v := (c.Between + MedianFactor(k)*c.Within/float64(k)) * (float64(cells)*start.Seconds() + float64(k)*perRep.Seconds())
		if v < bestV*(1-1e-9) {
			best, bestV = k, v
		}
	}
	return best
}

// ChooseRepeats is the repetitions the processes of a group of cells
// compared with each other should run from here on (the same k for all,
// so that the median's bias under skewed noise is the same in each and
// cancels in their ratios): BestRepeats, up to maxK, of the
// NestedComponents of reps. reps[c][i] holds the values (sec/op) of the
// repetitions cell c's process ran in the i-th round the cells all ran
// the same number; start is what one process costs to start and exit,
// perRep what one repetition costs (set-up and timed loop) summed over
// the cells. ok is false when the components cannot be estimated, and the
// group keeps what it runs.
func ChooseRepeats(reps [][][]float64, start, perRep time.Duration, maxK int) (k int, ok bool) {
	c, ok := NestedComponents(reps)
	if !ok {
		return 0, false
	}
	return BestRepeats(c, len(reps), start, perRep, maxK), true
}
