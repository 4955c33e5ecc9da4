package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"golang.org/x/perf/benchfmt"
)

// addRoundHook, if set, is called after each result AddRound inserts. Tests
// use it to fail a round midway.
var addRoundHook func(i int)

// AddRound stores all results of one completed round of a run in one
// transaction: either the whole round is stored or none of it. Each result's
// Name, Iters, Config (keys, values and File flags, in order) and Values
// (Value, Unit, OrigValue, OrigUnit, in order) are kept exactly; a round with
// no results is recorded as done.
//
// Storing a round that is already stored fails with an error wrapping
// ErrRoundExists, so a resumed run cannot duplicate samples.
func (db *DB) AddRound(ctx context.Context, runID int64, round int, results []*benchfmt.Result) error {
	return db.AddRoundOn(ctx, runID, round, Machine{}, results)
}

// AddRoundOn is AddRound recording the machine (and shard) the round ran on.
func (db *DB) AddRoundOn(ctx context.Context, runID int64, round int, m Machine, results []*benchfmt.Result) error {
	return db.AddRoundInfo(ctx, runID, RoundInfo{Round: round, Machine: m}, results)
}

// AddRoundInfo is AddRound recording what info says about round
// info.Round: the machine it ran on and the noise measured before it
// (info.DoneAt is ignored: the round is done now).
func (db *DB) AddRoundInfo(ctx context.Context, runID int64, info RoundInfo, results []*benchfmt.Result) error {
	round, m := info.Round, info.Machine
	var cv, load any // NULL: not measured
	if n := info.Noise; n != nil {
		cv, load = floatArg(n.CV), floatArg(n.Load)
	}
	for i, r := range results {
		if r == nil {
			return fmt.Errorf("add round %d of run %d: result %d is nil", round, runID, i)
		}
	}
	now, err := formatTime(time.Now())
	if err != nil {
		return fmt.Errorf("add round %d of run %d: %w", round, runID, err)
	}
	err = db.inTx(ctx, func(tx *txn) error {
		if err := db.checkRun(ctx, tx, runID); err != nil {
			return err
		}
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM rounds WHERE run_id = ? AND round = ?`, runID, round).Scan(&one)
		if err == nil {
			return fmt.Errorf("round %d of run %d is already stored in %s; a resumed run must skip the rounds RoundsDone reports: %w",
				round, runID, db.path, ErrRoundExists)
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO rounds(run_id, round, done_at, shard, host_id, cpu_model, cores, noise_cv, load_avg) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			runID, round, now, m.Shard, m.HostID, m.CPUModel, m.Cores, cv, load); err != nil {
			if isUniqueViolation(err) {
				// Another process stored the round in the meantime.
				return fmt.Errorf("round %d of run %d was stored by another process in %s: %w", round, runID, db.path, ErrRoundExists)
			}
			return err
		}
		if len(results) == 0 {
			return nil
		}
		insResult, err := tx.PrepareContext(ctx, `INSERT INTO results(run_id, round, seq, name, iters) VALUES (?, ?, ?, ?, ?) RETURNING id`)
		if err != nil {
			return err
		}
		defer insResult.Close()
		insConfig, err := tx.PrepareContext(ctx, `INSERT INTO result_config(result_id, seq, key, value, file) VALUES (?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insConfig.Close()
		insValue, err := tx.PrepareContext(ctx, `INSERT INTO result_values(result_id, seq, value, unit, orig_value, orig_unit) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer insValue.Close()

		for i, r := range results {
			if err := ctx.Err(); err != nil {
				return err
			}
			var id int64
			if err := insResult.QueryRowContext(ctx, runID, round, i, string(r.Name), r.Iters).Scan(&id); err != nil {
				return fmt.Errorf("result %d (%s): %w", i, r.Name, err)
			}
			for j, c := range r.Config {
				if _, err := insConfig.ExecContext(ctx, id, j, c.Key, string(c.Value), c.File); err != nil {
					return fmt.Errorf("result %d (%s) config %q: %w", i, r.Name, c.Key, err)
				}
			}
			for j, v := range r.Values {
				if _, err := insValue.ExecContext(ctx, id, j, floatArg(v.Value), v.Unit, floatArg(v.OrigValue), v.OrigUnit); err != nil {
					return fmt.Errorf("result %d (%s) value %s: %w", i, r.Name, v.Unit, err)
				}
			}
			if addRoundHook != nil {
				addRoundHook(i)
			}
		}
		return nil
	})
	if err != nil {
		var nf *notFoundError
		if errors.As(err, &nf) || errors.Is(err, ErrRoundExists) {
			return err
		}
		return fmt.Errorf("add round %d of run %d to %s (nothing of the round was stored): %w", round, runID, db.path, err)
	}
	return nil
}

// floatArg returns the value to bind for f: SQLite has no NaN, so NaN is
// stored as NULL.
func floatArg(f float64) any {
	if math.IsNaN(f) {
		return nil
	}
	return f
}

// nullFloat reads back a value written by floatArg.
func nullFloat(n sql.NullFloat64) float64 {
	if !n.Valid {
		return math.NaN()
	}
	return n.Float64
}

// Results returns every result of the run, ordered by round and then by
// position within the round.
func (db *DB) Results(ctx context.Context, runID int64) ([]*benchfmt.Result, error) {
	if err := db.checkRun(ctx, db.sql, runID); err != nil {
		return nil, err
	}
	wrap := func(err error) error {
		return fmt.Errorf("read results of run %d from %s: %w", runID, db.path, err)
	}

	// Results first; then their configs and values, each in one query
	// ordered by result ID, merged in.
	var (
		out  []*benchfmt.Result
		byID = map[int64]*benchfmt.Result{}
	)
	rows, err := db.sql.QueryContext(ctx,
		`SELECT id, name, iters FROM results WHERE run_id = ? ORDER BY round, seq`, runID)
	if err != nil {
		return nil, wrap(err)
	}
	for rows.Next() {
		var (
			id    int64
			name  string
			iters int64
		)
		if err := rows.Scan(&id, &name, &iters); err != nil {
			rows.Close()
			return nil, wrap(err)
		}
		r := &benchfmt.Result{Name: benchfmt.Name(name), Iters: int(iters)}
		out = append(out, r)
		byID[id] = r
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap(err)
	}
	if len(out) == 0 {
		return nil, nil
	}

	rows, err = db.sql.QueryContext(ctx,
		`SELECT c.result_id, c.key, c.value, c.file FROM result_config c
		 JOIN results r ON r.id = c.result_id
		 WHERE r.run_id = ? ORDER BY c.result_id, c.seq`, runID)
	if err != nil {
		return nil, wrap(err)
	}
	for rows.Next() {
		var (
			id         int64
			key, value string
			file       bool
		)
		if err := rows.Scan(&id, &key, &value, &file); err != nil {
			rows.Close()
			return nil, wrap(err)
		}
		if r := byID[id]; r != nil {
			r.Config = append(r.Config, benchfmt.Config{Key: key, Value: []byte(value), File: file})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap(err)
	}

	rows, err = db.sql.QueryContext(ctx,
		`SELECT v.result_id, v.value, v.unit, v.orig_value, v.orig_unit FROM result_values v
		 JOIN results r ON r.id = v.result_id
		 WHERE r.run_id = ? ORDER BY v.result_id, v.seq`, runID)
	if err != nil {
		return nil, wrap(err)
	}
	for rows.Next() {
		var (
			id             int64
			value, orig    sql.NullFloat64
			unit, origUnit string
		)
		if err := rows.Scan(&id, &value, &unit, &orig, &origUnit); err != nil {
			rows.Close()
			return nil, wrap(err)
		}
		if r := byID[id]; r != nil {
			r.Values = append(r.Values, benchfmt.Value{Value: nullFloat(value), Unit: unit, OrigValue: nullFloat(orig), OrigUnit: origUnit})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, wrap(err)
	}
	return out, nil
}

// RoundsDone returns the run's stored rounds in increasing order.
func (db *DB) RoundsDone(ctx context.Context, runID int64) ([]int, error) {
	return readList(ctx, db, runID, "rounds",
		`SELECT round FROM rounds WHERE run_id = ? ORDER BY round`,
		func(rows *sql.Rows) (int, error) {
			var r int64
			err := rows.Scan(&r)
			return int(r), err
		})
}
