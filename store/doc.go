// Package store persists perflab runs in an embedded SQLite database: each
// run's metadata, its typed plan (Plan, the stored-run contract: how the
// run was planned and sampled) and environment, its build/runtime configs,
// every benchmark sample (as golang.org/x/perf/benchfmt records), each
// round's machine and the noise measured before it, unit metadata,
// artifacts such as profiles and traces, single-cell failures and skips,
// and claim verdicts.
//
// The database is a single file opened through the pure-Go driver
// modernc.org/sqlite (no cgo) in WAL mode with a busy timeout and foreign
// keys enabled. Its schema is versioned: the meta table records
// schema_version, and Open applies any missing migrations, each in its own
// transaction. A database written by a newer perflab is refused rather than
// misread.
//
// Tables:
//
//	meta           key/value pairs; schema_version
//	runs           one row per run: experiment, mode, spec source, seed, status, times, plan (note, JSON), how sampling stopped
//	env            ordered key/value environment of a run (Go version, CPU, ...)
//	configs        named build/exec configurations of a run
//	rounds         completed rounds of a run, their machine and noise; guards against storing a round twice
//	results        one benchmark record: run, round, position, name, iterations
//	result_config  the record's configuration keys, in order
//	result_values  the record's measurements (value, unit, original value/unit), in order
//	unit_meta      benchfmt unit metadata ("Unit sec/op Assume=nothing")
//	artifacts      files a run produced (profiles, traces, logs)
//	verdicts       claim verdicts of a run
//	failures       benchmark cells that failed to build or run, or skipped themselves
//
// PostgreSQL: Open of a postgres:// or postgresql:// URL (driver
// github.com/jackc/pgx/v5/stdlib) gives the same *DB, schema, table and
// column names. Code is written once, for SQLite, under one rule: every
// query goes through db.sql (a *conn) or a *txn from db.inTx, never a raw
// *sql.DB or *sql.Tx, so the dialect is translated in one place
// (dialect.go): ? placeholders become $n, bool arguments 0/1, and migration
// DDL loses STRICT and WITHOUT ROWID, INTEGER PRIMARY KEY becomes a BIGINT
// identity, INTEGER BIGINT and ANY DOUBLE PRECISION. Write new IDs with
// INSERT … RETURNING id (both dialects), never LastInsertId; detect
// constraint clashes with isUniqueViolation. PostgreSQL text holds no NUL
// byte and only valid UTF-8; such values are refused with an error.
// Migrations take an advisory lock there, so shards may open one database
// at once.
//
// A SQLite DB uses a single connection, so it is safe for concurrent use by
// multiple goroutines, which are serialised. Several processes may open the
// same file; SQLite's locking and the busy timeout arbitrate between them.
package store
