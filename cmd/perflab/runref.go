package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/perflab/perflab/store"
)

// isRunRef reports whether arg has the form of a run reference
// (store.ParseRunRef: 7, latest, latest~N).
func isRunRef(arg string) bool {
	_, _, err := store.ParseRunRef(arg)
	return err == nil
}

// runID resolves a run reference ("" means latest) to a run ID.
func runID(ctx context.Context, db *store.DB, arg string) (int64, error) {
	if arg == "" {
		arg = "latest"
	}
	id, err := db.ResolveRun(ctx, arg)
	if err != nil && errors.Is(err, store.ErrNotFound) && arg == "latest" {
		return 0, fmt.Errorf("no runs in %s yet: start one with \"perflab run poolreuse --quick\"", db.Path())
	}
	return id, err
}

// runRefFlag is a flag.Value holding a run reference (for --resume).
type runRefFlag struct{ ref string }

func (r *runRefFlag) String() string { return r.ref }
func (r *runRefFlag) Set(s string) error {
	if !isRunRef(s) {
		return errors.New("want " + store.RunRefHelp)
	}
	r.ref = s
	return nil
}
