package claim

// Knee and Crossover judge one check of their kind, for the tests of
// package claim_test.
var (
	Knee      = knee
	Crossover = crossover
)
