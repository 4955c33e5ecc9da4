package bisect

import "time"

// Reason says why a step has no verdict, as its [Stepper] found: why its
// midpoint was skipped, or what kept the step undecided. It is data;
// package report words it (report.BisectWhy).
type Reason struct {
	Cause Cause
	// Detail is the compiler's first error (NotBuilt), or the first line
	// of what failed (NotListed, Failing, Unmeasured, where it may be "").
	Detail string
	// Missing are the benchmarks the commit lacks (Lacking).
	Missing []string
	// Rounds are the rounds stored (StoredRoundsSpent), or --max-rounds
	// (RoundsSpent).
	Rounds int
	// Spent is the step's share of the budget, spent (ShareSpent).
	Spent time.Duration
}

// Cause is the kind of a [Reason]; 0 is none.
type Cause int

// Causes of a step without a verdict. A midpoint that cannot be measured
// (the first five, or any cause when the step has no rounds) is skipped;
// a step with rounds stays undecided.
const (
	NotBuilt          Cause = iota + 1 // the commit does not build
	NotListed                          // its benchmarks could not be listed
	Lacking                            // it lacks benchmarks every step runs
	Failing                            // its benchmark fails
	Unmeasured                         // the step's run measured no rounds
	StoredRoundsSpent                  // the step's stored rounds reached --max-rounds
	BudgetSpent                        // the budget was spent before the step
	RoundsSpent                        // the step reached --max-rounds
	ShareSpent                         // the step's share of the budget was spent
)
