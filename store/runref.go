package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// RunRefHelp describes the run-reference grammar every command accepts.
const RunRefHelp = `a run ID, "latest", or "latest~N" (the run N before the latest)`

// ParseRunRef checks a run reference:
//
//	7          run 7 (id 7)
//	latest     the newest run (back 0)
//	latest~N   the run N before the newest (back N)
func ParseRunRef(ref string) (id int64, back int, err error) {
	if ref == "latest" {
		return 0, 0, nil
	}
	if rest, ok := strings.CutPrefix(ref, "latest~"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 || strings.HasPrefix(rest, "+") {
			return 0, 0, fmt.Errorf("%q: want latest~N with N a whole number, e.g. latest~1 for the run before the latest", ref)
		}
		return 0, n, nil
	}
	id, err = strconv.ParseInt(ref, 10, 64)
	if err != nil || id <= 0 || strings.HasPrefix(ref, "+") {
		return 0, 0, fmt.Errorf("%q is not a run: want %s", ref, RunRefHelp)
	}
	return id, 0, nil
}

// ResolveRun turns a run reference into a run ID. An ID is returned as
// given (GetRun says whether it exists); latest and latest~N are looked up,
// newest first, and a reference past the oldest run wraps ErrNotFound.
func (db *DB) ResolveRun(ctx context.Context, ref string) (int64, error) {
	id, back, err := ParseRunRef(ref)
	if err != nil {
		return 0, err
	}
	if id > 0 {
		return id, nil
	}
	var got int64
	err = db.sql.QueryRowContext(ctx, `SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1 OFFSET ?`, back).Scan(&got)
	if err == nil {
		return got, nil
	}
	var n int
	if cerr := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM runs`).Scan(&n); cerr != nil {
		return 0, fmt.Errorf("resolve run %q in %s: %w", ref, db.path, cerr)
	}
	if n == 0 {
		return 0, &notFoundError{fmt.Sprintf("no runs in %s yet; start one first", db.path)}
	}
	return 0, &notFoundError{fmt.Sprintf("%q: %s holds only %d runs", ref, db.path, n)}
}
