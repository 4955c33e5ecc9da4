package analysis

// AnytimeFirstInterval is the fewest observations (rounds, or layout
// clusters) for which the confidence sequence of [AnytimeLogs] at
// confidence, tuned for target, gives an interval at all; limit when it
// gives none by limit. A sequential run's initial pass needs this many
// for each compared ratio, at the level the ratio is judged at (1 − α/m
// for m rows), or no row can be decided by it.
func AnytimeFirstInterval(confidence float64, target, limit int) int {
	if !(confidence > 0 && confidence < 1) {
		return limit
	}
	b := boundaryFor(confidence, target)
	for n := AnytimeMinRounds; n < limit; n++ {
		if b.count(n) >= 0 {
			return n
		}
	}
	return limit
}
