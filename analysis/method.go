package analysis

// PairedMethod says in one sentence how a paired change is estimated
// ([Options.Paired], [Options.Geomean], ratio checks): every output that
// states the rule for paired ratios quotes it, so it changes here, with
// the estimand, and nowhere else. The confidence level is stated beside
// it, by whoever quotes it.
const PairedMethod = "Each paired change is estimated from the per-round log-ratios: " +
	"with a fixed number of rounds, by their Hodges–Lehmann estimate with the Wilcoxon signed-rank interval; " +
	"in a sequential run, by their mean with an anytime-valid confidence sequence (Waudby-Smith et al., 2024), valid whenever the run stopped."
