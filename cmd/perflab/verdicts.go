package main

import (
	"context"

	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/store"
)

// storeVerdicts records the run's verdicts with the database, each claim's
// measurement and reason in report's words, as perflab runs and perflab
// serve list them later.
func storeVerdicts(ctx context.Context, db *store.DB, f *findings.Run) error {
	v := make([]store.Verdict, len(f.Verdicts))
	for i, r := range f.Verdicts {
		v[i] = store.Verdict{ClaimID: r.ID, Verdict: string(r.Verdict), Claimed: r.Claimed, Measured: report.ClaimMeasured(r), Reason: report.ClaimReason(r)}
	}
	return db.SetVerdicts(ctx, f.Run.ID, v)
}
