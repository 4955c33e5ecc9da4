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
//	V(k) ≈ Between + Within/k
//
// (RepeatCurve measures V(k) itself for the k a run's processes ran),
// where Between is what differs from process to process (the heap's and
// the code's layout, CPU placement, a neighbour for the whole process)
// and Within what the repetitions inside one average away, as the median
// of them does (for normal repetitions Within is their variance times the
// median's factor, about 1.2–1.5; for repetitions a spell spoils now and
// then, less than their variance, since the median ignores the spoiled
// ones). A process costs a + k·r: a to start and exit, r per repetition
// (the benchmark's set-up and its timed loop). For a fixed budget, an
// interval across rounds narrows fastest with the k that minimises
// V(k) × cost, the classical optimal allocation of a nested design
// (Cochran, Sampling Techniques, §10.6): k* = √(a·Within / (r·Between)).

// Components are what a group of cells' processes showed of where their
// variance lies, on the log scale: Curve is their RepeatCurve, V(k) for k
// = 1..K; Between and Within the fit of Between + Within/k to it, which
// extends it past K; Rounds how many rounds it comes from.
//
// The curve itself decides up to K, not the fit: repetitions inside a
// process are not exchangeable. On this project's quiet recording
// (analysis/testdata/noise/quiet.csv.gz) V(1) is 40 times V(5), not 5
// times: the first repetition of a process varies most, and the median of
// five leaves it out.
type Components struct {
	Curve           []float64
	Within, Between float64
	K, Rounds       int
}

// At is V(k): the curve up to K, beyond it the fit through V(K),
// Between + (V(K) − Between)·K/k.
func (c Components) At(k int) float64 {
	if k >= 1 && k <= len(c.Curve) {
		return c.Curve[k-1]
	}
	if len(c.Curve) == 0 {
		return c.Between + c.Within/float64(max(1, k))
	}
	vK := c.Curve[len(c.Curve)-1]
	b := min(c.Between, vK)
	return b + (vK-b)*float64(len(c.Curve))/float64(k)
}

// RepeatCurve measures V(k) for k = 1..K on processes that ran K
// repetitions: the residual variance, in a two-way fit of rounds and
// cells (which takes out each round's shared drift and each cell's
// level), of the log of the median of each process's first k
// repetitions: what a process's value would have varied by had it run k.
// reps[c][i] holds the values (sec/op) of the repetitions cell c's
// process ran in the i-th round. ok is false without two cells, three
// rounds and the same K ≥ 2 repetitions in every process, or with a value
// that is not positive.
func RepeatCurve(reps [][][]float64) (v []float64, ok bool) {
	C := len(reps)
	if C < 2 || len(reps[0]) < 3 || len(reps[0][0]) < 2 {
		return nil, false
	}
	R, K := len(reps[0]), len(reps[0][0])
	for i := range reps {
		if len(reps[i]) != R {
			return nil, false
		}
		for _, xs := range reps[i] {
			if len(xs) != K {
				return nil, false
			}
			for _, x := range xs {
				if !(x > 0) || math.IsInf(x, 0) {
					return nil, false
				}
			}
		}
	}
	y := make([][]float64, C)
	for i := range y {
		y[i] = make([]float64, R)
	}
	for k := 1; k <= K; k++ {
		for i := range reps {
			for j, xs := range reps[i] {
				y[i][j] = math.Log(RepeatEstimate(xs[:k]))
			}
		}
		v = append(v, residualVariance(y))
	}
	return v, true
}

// residualVariance is the residual variance of y[cell][round] in a
// two-way fit without interaction: y = μ + cell + round + e.
func residualVariance(y [][]float64) float64 {
	C, R := len(y), len(y[0])
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
	return sse / float64((C-1)*(R-1))
}

// NestedComponents fits V(k) = Between + Within/k to the RepeatCurve of
// reps by least squares over k = 1..K, with neither component below 0.
// ok is false when the curve cannot be measured (RepeatCurve).
func NestedComponents(reps [][][]float64) (c Components, ok bool) {
	v, ok := RepeatCurve(reps)
	if !ok {
		return c, false
	}
	var sx, sy, sxx, sxy float64
	n := float64(len(v))
	for i, y := range v {
		x := 1 / float64(i+1)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	w := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	b := (sy - w*sx) / n
	switch {
	case w < 0:
		w, b = 0, sy/n
	case b < 0:
		w, b = sxy/sxx, 0
	}
	return Components{Curve: v, Within: w, Between: b, K: len(v), Rounds: len(reps[0])}, true
}

// BestRepeats is the k from 1 to maxK with the least variance × cost for
// a group of cells processes: c.At(k) × (cells·start + k·perRep). Of two
// k within a part in a billion, the smaller wins.
func BestRepeats(c Components, cells int, start, perRep time.Duration, maxK int) int {
	best, bestV := 1, math.Inf(1)
	for k := 1; k <= max(1, maxK); k++ {
		v := c.At(k) * (float64(cells)*start.Seconds() + float64(k)*perRep.Seconds())
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

// PerLayout is the rounds one link layout should serve, by the same
// allocation one level up (Cochran's two-stage rule): a cluster of k
// rounds on one layout costs link + k·round, and its mean log-ratio has
// variance layout + noise/k, where layout is the variance the two sides'
// layouts add to a ratio (LayoutSpread's SD, squared) and noise a round's
// variance within a layout (its Noise, squared). The product is least at
// k* = √(link·noise / (round·layout)): one round a layout when layout
// dominates and links are cheap, long clusters when noise dominates and
// links are dear. The result is k* rounded, within [1, maxK]; maxK when
// the layout component is 0 (not told from noise).
func PerLayout(layout, noise float64, link, round time.Duration, maxK int) int {
	if !(noise >= 0) || round <= 0 || maxK < 1 {
		return 1
	}
	if !(layout > 0) {
		return maxK
	}
	k := math.Sqrt(link.Seconds() * noise / (round.Seconds() * layout))
	return max(1, min(maxK, int(math.Round(k))))
}
