package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// KV is one environment entry of a run.
type KV struct{ Key, Value string }

// A Config is a named build/exec configuration of a run.
type Config struct {
	Name       string
	BuildEnv   []string // "KEY=VAL"
	BuildFlags []string
	ExecEnv    []string
	BinaryHash string
	Error      string // non-empty when the config failed to build
	// NotFetched is set when the config did not build only because the
	// go command could not download what its build needs (no network,
	// GOPROXY=off, a proxy that refuses): the config is not testable
	// here, which is no failure of the run. Error still holds the go
	// command's output.
	NotFetched NotFetched
}

// NotFetched is what a config's build could not download, and why.
type NotFetched struct {
	What string // "toolchain go1.22.12", "module golang.org/x/text@v0.14.0", "modules"
	Why  string // the go command's reason, e.g. "toolchain not available"
}

// UnitMeta is one benchfmt unit metadata entry ("Unit <unit> <key>=<value>"),
// e.g. {"sec/op", "Assume", "nothing"} or {"hits/op", "Better", "higher"}.
type UnitMeta struct{ Unit, Key, Value string }

// An Artifact is a file a run produced.
type Artifact struct {
	Config string // config name
	Cell   string // the cell (benchmark name) a per-cell artifact belongs to; "" for a whole config
	Kind   string // "cpu" | "heap" | "mutex" | "block" | "trace" | "log" ...
	Path   string // absolute path on disk
	Bytes  int64
}

// A Verdict is the outcome of checking one claim in a run.
type Verdict struct {
	ClaimID  string
	Verdict  string // "reproduced" | "contradicted" | "inconclusive" | "not testable"
	Claimed  string
	Measured string
	Reason   string
}

// A Failure records a benchmark cell that failed to build or run, or that
// skipped itself. Failures are kept with the run; they do not end it.
type Failure struct {
	Round  int
	Config string
	Cell   string
	Reason string
	// Skip marks a cell that did not fail but has no sample: its benchmark
	// called b.Skip (not applicable here), or skipped itself this round.
	// Reason then says why it skipped.
	Skip bool
}

// LeftOutPrefix begins the Reason of a skip row the engine records for a
// cell a sequential run's budget left out (engine/leaveout.go).
const LeftOutPrefix = "left out for the budget after round "

// LeftOut reports whether the row records a cell the budget left out.
func (f Failure) LeftOut() bool { return f.Skip && strings.HasPrefix(f.Reason, LeftOutPrefix) }

// writeList inserts items for a run in one transaction, after checking the
// run exists and running the optional reset statement.
func writeList[T any](ctx context.Context, db *DB, runID int64, what, reset, insert string, items []T, args func(int, T) []any) error {
	err := db.inTx(ctx, func(tx *txn) error {
		if err := db.checkRun(ctx, tx, runID); err != nil {
			return err
		}
		if reset != "" {
			if _, err := tx.ExecContext(ctx, reset, runID); err != nil {
				return err
			}
		}
		if len(items) == 0 {
			return nil
		}
		stmt, err := tx.PrepareContext(ctx, insert)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i, it := range items {
			if _, err := stmt.ExecContext(ctx, append([]any{runID}, args(i, it)...)...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		var nf *notFoundError
		if errors.As(err, &nf) {
			return err
		}
		return fmt.Errorf("store %s of run %d in %s: %w", what, runID, db.path, err)
	}
	return nil
}

// readList returns the rows of query (with the run ID as its only argument)
// after checking the run exists.
func readList[T any](ctx context.Context, db *DB, runID int64, what, query string, scan func(*sql.Rows) (T, error)) ([]T, error) {
	if err := db.checkRun(ctx, db.sql, runID); err != nil {
		return nil, err
	}
	rows, err := db.sql.QueryContext(ctx, query, runID)
	if err != nil {
		return nil, fmt.Errorf("read %s of run %d from %s: %w", what, runID, db.path, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("read %s of run %d from %s: %w", what, runID, db.path, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read %s of run %d from %s: %w", what, runID, db.path, err)
	}
	return out, nil
}

// SetEnv adds or updates the run's environment entries by key. A key keeps
// the position of its first insertion; a later value replaces an earlier one.
func (db *DB) SetEnv(ctx context.Context, runID int64, kv []KV) error {
	return writeList(ctx, db, runID, "environment", "",
		`INSERT INTO env(run_id, key, value) VALUES (?, ?, ?)
		 ON CONFLICT(run_id, key) DO UPDATE SET value = excluded.value`,
		kv, func(_ int, e KV) []any { return []any{e.Key, e.Value} })
}

// Env returns the run's environment in first-insertion order.
func (db *DB) Env(ctx context.Context, runID int64) ([]KV, error) {
	return readList(ctx, db, runID, "environment",
		`SELECT key, value FROM env WHERE run_id = ? ORDER BY id`,
		func(rows *sql.Rows) (KV, error) {
			var e KV
			err := rows.Scan(&e.Key, &e.Value)
			return e, err
		})
}

// AddConfig adds the config to the run, or replaces the run's config of the
// same name (which keeps its position).
func (db *DB) AddConfig(ctx context.Context, runID int64, c Config) error {
	if c.Name == "" {
		return fmt.Errorf("add config to run %d: empty config name; give every config a name", runID)
	}
	var js [3]string
	for i, l := range [][]string{c.BuildEnv, c.BuildFlags, c.ExecEnv} {
		b, err := json.Marshal(l)
		if err != nil {
			return fmt.Errorf("add config %q to run %d: %w", c.Name, runID, err)
		}
		js[i] = string(b)
	}
	return writeList(ctx, db, runID, "config "+c.Name, "",
		`INSERT INTO configs(run_id, name, build_env, build_flags, exec_env, binary_hash, error, fetch_what, fetch_why)
		 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		 ON CONFLICT(run_id, name) DO UPDATE SET
		   build_env = excluded.build_env, build_flags = excluded.build_flags,
		   exec_env = excluded.exec_env, binary_hash = excluded.binary_hash, error = excluded.error,
		   fetch_what = excluded.fetch_what, fetch_why = excluded.fetch_why`,
		[]Config{c}, func(_ int, c Config) []any {
			return []any{c.Name, js[0], js[1], js[2], c.BinaryHash, c.Error, c.NotFetched.What, c.NotFetched.Why}
		})
}

// Configs returns the run's configs in insertion order. A list stored as nil
// reads back as nil, an empty one as empty.
func (db *DB) Configs(ctx context.Context, runID int64) ([]Config, error) {
	return readList(ctx, db, runID, "configs",
		`SELECT name, build_env, build_flags, exec_env, binary_hash, error, fetch_what, fetch_why
		 FROM configs WHERE run_id = ? ORDER BY id`,
		func(rows *sql.Rows) (Config, error) {
			var c Config
			var js [3]string
			if err := rows.Scan(&c.Name, &js[0], &js[1], &js[2], &c.BinaryHash, &c.Error, &c.NotFetched.What, &c.NotFetched.Why); err != nil {
				return c, err
			}
			for i, dst := range []*[]string{&c.BuildEnv, &c.BuildFlags, &c.ExecEnv} {
				if err := json.Unmarshal([]byte(js[i]), dst); err != nil {
					return c, fmt.Errorf("config %q has a damaged list %q: %w", c.Name, js[i], err)
				}
			}
			return c, nil
		})
}

// SetUnitMeta adds or updates the run's unit metadata by (unit, key). An
// entry keeps the position of its first insertion.
func (db *DB) SetUnitMeta(ctx context.Context, runID int64, m []UnitMeta) error {
	return writeList(ctx, db, runID, "unit metadata", "",
		`INSERT INTO unit_meta(run_id, unit, key, value) VALUES (?, ?, ?, ?)
		 ON CONFLICT(run_id, unit, key) DO UPDATE SET value = excluded.value`,
		m, func(_ int, u UnitMeta) []any { return []any{u.Unit, u.Key, u.Value} })
}

// UnitMeta returns the run's unit metadata in first-insertion order.
func (db *DB) UnitMeta(ctx context.Context, runID int64) ([]UnitMeta, error) {
	return readList(ctx, db, runID, "unit metadata",
		`SELECT unit, key, value FROM unit_meta WHERE run_id = ? ORDER BY id`,
		func(rows *sql.Rows) (UnitMeta, error) {
			var u UnitMeta
			err := rows.Scan(&u.Unit, &u.Key, &u.Value)
			return u, err
		})
}

// AddArtifact records a file the run produced.
func (db *DB) AddArtifact(ctx context.Context, runID int64, a Artifact) error {
	return writeList(ctx, db, runID, "artifact "+a.Path, "",
		`INSERT INTO artifacts(run_id, config, cell, kind, path, bytes) VALUES (?, ?, ?, ?, ?, ?)`,
		[]Artifact{a}, func(_ int, a Artifact) []any { return []any{a.Config, a.Cell, a.Kind, a.Path, a.Bytes} })
}

// Artifacts returns the run's artifacts in insertion order.
func (db *DB) Artifacts(ctx context.Context, runID int64) ([]Artifact, error) {
	return readList(ctx, db, runID, "artifacts",
		`SELECT config, cell, kind, path, bytes FROM artifacts WHERE run_id = ? ORDER BY id`,
		func(rows *sql.Rows) (Artifact, error) {
			var a Artifact
			err := rows.Scan(&a.Config, &a.Cell, &a.Kind, &a.Path, &a.Bytes)
			return a, err
		})
}

// SetVerdicts replaces all of the run's verdicts with v, in one transaction.
func (db *DB) SetVerdicts(ctx context.Context, runID int64, v []Verdict) error {
	return writeList(ctx, db, runID, "verdicts",
		`DELETE FROM verdicts WHERE run_id = ?`,
		`INSERT INTO verdicts(run_id, seq, claim_id, verdict, claimed, measured, reason) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		v, func(i int, v Verdict) []any { return []any{i, v.ClaimID, v.Verdict, v.Claimed, v.Measured, v.Reason} })
}

// Verdicts returns the run's verdicts in the order they were set.
func (db *DB) Verdicts(ctx context.Context, runID int64) ([]Verdict, error) {
	return readList(ctx, db, runID, "verdicts",
		`SELECT claim_id, verdict, claimed, measured, reason FROM verdicts WHERE run_id = ? ORDER BY seq`,
		func(rows *sql.Rows) (Verdict, error) {
			var v Verdict
			err := rows.Scan(&v.ClaimID, &v.Verdict, &v.Claimed, &v.Measured, &v.Reason)
			return v, err
		})
}

// AddFailure records a failed (or, with Skip, a skipped) benchmark cell of
// the run.
func (db *DB) AddFailure(ctx context.Context, runID int64, f Failure) error {
	return writeList(ctx, db, runID, "failure", "",
		`INSERT INTO failures(run_id, round, config, cell, reason, skip) VALUES (?, ?, ?, ?, ?, ?)`,
		[]Failure{f}, func(_ int, f Failure) []any { return []any{f.Round, f.Config, f.Cell, f.Reason, f.Skip} })
}

// Failures returns the run's failures in insertion order.
func (db *DB) Failures(ctx context.Context, runID int64) ([]Failure, error) {
	return readList(ctx, db, runID, "failures",
		`SELECT round, config, cell, reason, skip FROM failures WHERE run_id = ? ORDER BY id`,
		func(rows *sql.Rows) (Failure, error) {
			var f Failure
			var round int64
			err := rows.Scan(&round, &f.Config, &f.Cell, &f.Reason, &f.Skip)
			f.Round = int(round)
			return f, err
		})
}
