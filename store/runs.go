package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// A Run is one execution of an experiment.
type Run struct {
	ID            int64
	Experiment    string // spec name, or "bench" etc.
	Mode          string // "quick" | "full" | custom
	SpecPath      string
	SpecText      string // the spec source, so a run can be re-analysed later
	Seed          int64  // planner seed
	RoundsPlanned int
	Status        string // "running" | "complete" | "partial" | "interrupted" | "failed"
	StartedAt     time.Time
	FinishedAt    time.Time // zero until finished
	Plan          Plan      // how the run was planned and sampled
	Owner         Owner     // the process that runs (or last ran) it
}

// CreateRun stores a new run and returns its ID, which it also sets in r.ID.
// An empty Status becomes "running" and a zero StartedAt becomes the current
// time; both are written back to r. Times are stored in UTC with nanosecond
// precision.
func (db *DB) CreateRun(ctx context.Context, r *Run) (int64, error) {
	if r == nil {
		return 0, errors.New("create run: nil *Run")
	}
	if r.Status == "" {
		r.Status = "running"
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = time.Now()
	}
	started, err := formatTime(r.StartedAt)
	if err != nil {
		return 0, fmt.Errorf("create run: start time: %w", err)
	}
	var finished sql.NullString
	if !r.FinishedAt.IsZero() {
		s, err := formatTime(r.FinishedAt)
		if err != nil {
			return 0, fmt.Errorf("create run: finish time: %w", err)
		}
		finished = sql.NullString{String: s, Valid: true}
	}
	note, err := r.Plan.note()
	if err != nil {
		return 0, fmt.Errorf("create run of %q: %w", r.Experiment, err)
	}
	var id int64
	err = db.sql.QueryRowContext(ctx,
		`INSERT INTO runs(experiment, mode, spec_path, spec_text, seed, rounds_planned, status, started_at, finished_at, note,
		   owner_host, owner_pid, owner_start)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		r.Experiment, r.Mode, r.SpecPath, r.SpecText, r.Seed, r.RoundsPlanned, r.Status, started, finished, note,
		r.Owner.Host, r.Owner.PID, r.Owner.Start).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("create run of %q in %s: %w", r.Experiment, db.path, err)
	}
	r.ID = id
	r.StartedAt, _ = parseTime(started)
	if finished.Valid {
		r.FinishedAt, _ = parseTime(finished.String)
	}
	return id, nil
}

// FinishRun sets the run's status and its finish time to now.
func (db *DB) FinishRun(ctx context.Context, runID int64, status string) error {
	if status == "" {
		return fmt.Errorf("finish run %d: empty status; pass complete, interrupted or failed", runID)
	}
	now, err := formatTime(time.Now())
	if err != nil {
		return fmt.Errorf("finish run %d: %w", runID, err)
	}
	res, err := db.sql.ExecContext(ctx,
		`UPDATE runs SET status = ?, finished_at = ? WHERE id = ?`, status, now, runID)
	if err != nil {
		return fmt.Errorf("finish run %d in %s: %w", runID, db.path, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("finish run %d in %s: %w", runID, db.path, err)
	}
	if n == 0 {
		return db.runNotFound(runID)
	}
	return nil
}

const runColumns = `id, experiment, mode, spec_path, spec_text, seed, rounds_planned, status, started_at, finished_at, note,
	owner_host, owner_pid, owner_start, stop_round, stop_reason, stop_elapsed, stop_cell_cost`

// scanRun reads one row of runColumns.
func scanRun(sc interface{ Scan(...any) error }) (*Run, error) {
	var (
		r        Run
		started  string
		finished sql.NullString
		rounds   int64
		note     string
		stop     struct {
			round, elapsed, cost int64
			reason               string
		}
	)
	if err := sc.Scan(&r.ID, &r.Experiment, &r.Mode, &r.SpecPath, &r.SpecText, &r.Seed, &rounds,
		&r.Status, &started, &finished, &note, &r.Owner.Host, &r.Owner.PID, &r.Owner.Start,
		&stop.round, &stop.reason, &stop.elapsed, &stop.cost); err != nil {
		return nil, err
	}
	r.RoundsPlanned = int(rounds)
	r.Plan = planOf(note)
	r.Plan.Stop = Stop{Round: int(stop.round), Reason: StopReason(stop.reason), Elapsed: time.Duration(stop.elapsed), CellCost: time.Duration(stop.cost)}
	var err error
	if r.StartedAt, err = parseTime(started); err != nil {
		return nil, &damagedRowError{fmt.Errorf("run %d: %w", r.ID, err)}
	}
	if finished.Valid {
		if r.FinishedAt, err = parseTime(finished.String); err != nil {
			return nil, &damagedRowError{fmt.Errorf("run %d: %w", r.ID, err)}
		}
	}
	return &r, nil
}

// damagedRowError is a row that was read but holds a value that does not
// parse: a listing skips it, a lookup of that row returns it.
type damagedRowError struct{ err error }

func (e *damagedRowError) Error() string { return e.err.Error() }
func (e *damagedRowError) Unwrap() error { return e.err }

// GetRun returns the run with the given ID, or an error wrapping ErrNotFound.
func (db *DB) GetRun(ctx context.Context, runID int64) (*Run, error) {
	row := db.sql.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs WHERE id = ?`, runID)
	r, err := scanRun(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, db.runNotFound(runID)
	}
	if err != nil {
		return nil, fmt.Errorf("read run %d from %s: %w", runID, db.path, err)
	}
	return r, nil
}

// Runs returns all runs, newest (latest StartedAt) first. A run whose row
// is damaged (a stored time that does not parse) is left out and reported
// once on the DB's warnings (SetWarnings); GetRun of it says what is wrong.
func (db *DB) Runs(ctx context.Context) ([]Run, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT `+runColumns+` FROM runs ORDER BY started_at DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list runs in %s: %w", db.path, err)
	}
	defer rows.Close()
	var runs []Run
	for rows.Next() {
		r, err := scanRun(rows)
		var damaged *damagedRowError
		if errors.As(err, &damaged) {
			db.skipped(err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list runs in %s: %w", db.path, err)
		}
		runs = append(runs, *r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list runs in %s: %w", db.path, err)
	}
	return runs, nil
}

// LatestRun returns the newest run, or an error wrapping ErrNotFound if the
// database holds none.
func (db *DB) LatestRun(ctx context.Context) (*Run, error) {
	row := db.sql.QueryRowContext(ctx, `SELECT `+runColumns+` FROM runs ORDER BY started_at DESC, id DESC LIMIT 1`)
	r, err := scanRun(row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &notFoundError{fmt.Sprintf("no runs in %s; start one first", db.path)}
	}
	if err != nil {
		return nil, fmt.Errorf("read latest run from %s: %w", db.path, err)
	}
	return r, nil
}
