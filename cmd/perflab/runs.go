package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/perflab/perflab/store"
)

// listRuns prints the runs table, with each run's status as it stands now
// (a "running" run whose process is gone is interrupted), and how to resume
// the interrupted ones.
func listRuns(w io.Writer, db *store.DB, runs []store.Run, dbPath string) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEXPERIMENT\tMODE\tSTATUS\tROUNDS\tSTARTED")
	var stale []store.Run
	for _, r := range runs {
		done, _ := db.RoundsDone(context.Background(), r.ID)
		status := r.State()
		if status != r.Status {
			status += " (process gone)"
			stale = append(stale, r)
		} else if status == "interrupted" {
			stale = append(stale, r)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%d/%d\t%s\n", r.ID, r.Experiment, r.Mode, status, len(done), r.RoundsPlanned, r.StartedAt.Local().Format("2006-01-02 15:04:05"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range stale {
		fmt.Fprintf(w, "run %d was interrupted (%s); finish it with: perflab run --resume %d --db %s\n", r.ID, r.Owner, r.ID, dbPath)
	}
	return nil
}
