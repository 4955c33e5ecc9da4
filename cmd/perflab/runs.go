package main

import (
	"context"
	"io"

	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/store"
)

// listRuns prints the runs table (report.RunsText), with each run's
// status as it stands now (a "running" run whose process is gone is
// interrupted), each sharded run's progress, and how to resume the
// interrupted ones.
func listRuns(w io.Writer, db *store.DB, runs []store.Run, dbPath string) error {
	ctx := context.Background()
	l := report.RunList{DB: dbPath}
	for _, r := range runs {
		done, _ := db.RoundsDone(ctx, r.ID)
		l.Runs = append(l.Runs, runEntry(r, len(done)))
	}
	if err := report.RunsText(w, l); err != nil {
		return err
	}
	for _, r := range runs {
		shardProgress(ctx, w, db, r)
	}
	return report.ResumeText(w, l)
}

// runEntry is a stored run as the runs list shows it, with rounds of its
// rounds stored.
func runEntry(r store.Run, rounds int) report.RunEntry {
	state := r.State()
	return report.RunEntry{
		ID: r.ID, Experiment: r.Experiment, Mode: r.Mode,
		State: state, ProcessGone: state != r.Status, Owner: r.Owner.String(),
		Rounds: rounds, RoundsPlanned: r.RoundsPlanned, Started: r.StartedAt,
	}
}
