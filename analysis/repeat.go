package analysis

// RepeatEstimate is one process's value from the repeated timed runs it
// made of the same benchmark (k back-to-back repetitions of equal
// iteration counts): their [Median]. Interference only ever adds time and
// comes in spells, so it spoils some repetitions of a process while others
// run clean; the median ignores a spoiled minority, where one long timed
// run absorbs every spell into its mean. The repetitions are not
// independent samples: the process, not the repetition, is the unit of a
// round, and every interval is computed across rounds.
//
// Cells compared by a ratio must repeat for the same wall time. Spells
// last as long as they last, whatever the benchmark, so which repetitions
// they spoil depends on how long a repetition is: with repetitions of
// equal length in both cells, every cell's value is its cost times a
// slowdown of one distribution and the median of the per-round
// log-ratios is the true ratio; with repetitions 5× as long in one cell,
// the median of 5 repetitions moved a ratio by 6% under an alternating
// busy/idle neighbour (repeat_test.go, spells simulated over the wall
// clock). No per-process statistic escapes this — at 20× the median, the
// minimum and the mean are each biased by more than 1% under one kind of
// neighbour or another — so the rule is in the sizing: a run gives every
// repetition of every cell the same wall time T (a fifth of the
// benchtime), n_c = max(1, round(T/t_c)) iterations for a cell of t_c per
// op (engine/repeats.go). A cell fixed at all has at least 20 iterations
// in the benchtime, so n_c ≥ 4 and its repetitions last T within an
// eighth; a cell of 100 or more iterations per repetition, within 0.5%
// (bias ≤ 0.02% in the simulation at 2.5%).
func RepeatEstimate(xs []float64) float64 { return Median(xs) }
