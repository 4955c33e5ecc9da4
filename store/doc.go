// Package store persists perflab runs in an embedded SQLite database: each
// run's metadata and environment, its build/runtime configs, every benchmark
// sample (as golang.org/x/perf/benchfmt records), unit metadata, artifacts
// such as profiles and traces, single-cell failures and claim verdicts.
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
//	runs           one row per run: experiment, mode, spec source, seed, status, times
//	env            ordered key/value environment of a run (Go version, CPU, ...)
//	configs        named build/exec configurations of a run
//	rounds         completed rounds of a run; guards against storing a round twice
//	results        one benchmark record: run, round, position, name, iterations
//	result_config  the record's configuration keys, in order
//	result_values  the record's measurements (value, unit, original value/unit), in order
//	unit_meta      benchfmt unit metadata ("Unit sec/op Assume=nothing")
//	artifacts      files a run produced (profiles, traces, logs)
//	verdicts       claim verdicts of a run
//	failures       benchmark cells that failed to build or run
//
// A DB uses a single connection, so it is safe for concurrent use by
// multiple goroutines, which are serialised. Several processes may open the
// same file; SQLite's locking and the busy timeout arbitrate between them.
package store
