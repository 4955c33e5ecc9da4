package analysis

// PairedMethod says in one sentence how a paired change is estimated
// ([Options.Paired], [Options.Geomean], ratio checks): every output that
// states the rule for paired ratios quotes it, so it changes here, with
// the estimand, and nowhere else. The confidence level is stated beside
// it, by whoever quotes it.
const PairedMethod = "Each paired change is the median of the per-round log-ratios (a centre one-sided bursts of interference cannot drag): " +
	"with a fixed number of rounds, with its exact sign-test (order-statistic) interval; " +
	"in a sequential run, with a nonparametric confidence sequence for that median (Howard & Ramdas, 2022), valid whenever the run stopped. " +
	"When the builds were relinked with random layouts (--layout random), rounds on one layout count as one observation, the median of their log-ratios, so the estimate and its interval are over link layouts and rounds: they hold for the source, not for two binaries."
