// Package report is the only writer of results as text. For a run's
// findings ([findings.Run]): a Markdown report and the same report as one
// self-contained HTML page with SVG charts and forest plots ([HTML]), both
// from one typed section model; compact claims, ratio and results tables
// for terminals; and benchfmt text for benchstat. For the other views of
// package findings: comparisons of two runs or files ([CompareText],
// [CompareHTML], [CompareJSON]), perflab ab's paired table and pull-request
// summary ([PairedText], [PairedMarkdown]), a benchmark's history
// ([HistoryText], [HistoryHTML]) and analyses ([AnalyzeText]). Every JSON
// output goes through [JSON], which writes non-finite numbers as null, and
// every Markdown cell through one escaper. It computes no statistics:
// every figure comes from package findings.
package report

import (
	"context"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/store"
)

// Load reads a run from the store and computes its findings.
func Load(ctx context.Context, db *store.DB, runID int64, opt analysis.Options) (*findings.Run, error) {
	return findings.Load(ctx, db, runID, opt)
}

// StoreVerdicts records the run's verdicts.
func StoreVerdicts(ctx context.Context, db *store.DB, f *findings.Run) error {
	v := make([]store.Verdict, len(f.Verdicts))
	for i, r := range f.Verdicts {
		v[i] = store.Verdict{ClaimID: r.ID, Verdict: string(r.Verdict), Claimed: r.Claimed, Measured: r.Measured, Reason: r.Reason}
	}
	return db.SetVerdicts(ctx, f.Run.ID, v)
}

// Rule is the one rule by which every claim check is tested, printed in
// every report: claim.Rule, stated once in package claim.
const Rule = claim.Rule

// VerdictClass gives a claim verdict's CSS class ("v-rep", "v-con",
// "v-inc", "v-nt"), the one every page colours verdicts by.
func VerdictClass(v string) string { return verdictClass(v) }
