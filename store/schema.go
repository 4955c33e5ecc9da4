package store

// migrations are the schema steps in order: migrations[i] takes the schema
// from version i to version i+1. Append new steps; never edit a released one.
//
// Tables are STRICT, so SQLite enforces column types. Measurement columns are
// ANY so a float64 is stored as given (REAL affinity would turn -0 into 0);
// SQLite stores NaN as NULL, which this package reads back as NaN.
var migrations = []string{
	// 1: initial schema.
	`
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

CREATE TABLE runs (
	id             INTEGER PRIMARY KEY,
	experiment     TEXT    NOT NULL,
	mode           TEXT    NOT NULL,
	spec_path      TEXT    NOT NULL,
	spec_text      TEXT    NOT NULL,
	seed           INTEGER NOT NULL,
	rounds_planned INTEGER NOT NULL,
	status         TEXT    NOT NULL,
	started_at     TEXT    NOT NULL, -- UTC, fixed width, sorts as text
	finished_at    TEXT,             -- NULL until the run finishes
	note           TEXT    NOT NULL
) STRICT;
CREATE INDEX runs_started ON runs(started_at);

CREATE TABLE env (
	id     INTEGER PRIMARY KEY, -- insertion order
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	key    TEXT    NOT NULL,
	value  TEXT    NOT NULL,
	UNIQUE (run_id, key)
) STRICT;

CREATE TABLE configs (
	id          INTEGER PRIMARY KEY, -- insertion order
	run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	name        TEXT    NOT NULL,
	build_env   TEXT    NOT NULL, -- JSON array of strings, or null
	build_flags TEXT    NOT NULL, -- JSON array of strings, or null
	exec_env    TEXT    NOT NULL, -- JSON array of strings, or null
	binary_hash TEXT    NOT NULL,
	error       TEXT    NOT NULL,
	UNIQUE (run_id, name)
) STRICT;

CREATE TABLE rounds (
	run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	round   INTEGER NOT NULL,
	done_at TEXT    NOT NULL,
	PRIMARY KEY (run_id, round)
) STRICT, WITHOUT ROWID;

CREATE TABLE results (
	id     INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL,
	round  INTEGER NOT NULL,
	seq    INTEGER NOT NULL, -- position within the round
	name   TEXT    NOT NULL,
	iters  INTEGER NOT NULL,
	FOREIGN KEY (run_id, round) REFERENCES rounds(run_id, round) ON DELETE CASCADE
) STRICT;
CREATE UNIQUE INDEX results_run_round ON results(run_id, round, seq);

CREATE TABLE result_config (
	result_id INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
	seq       INTEGER NOT NULL,
	key       TEXT    NOT NULL,
	value     TEXT    NOT NULL,
	file      INTEGER NOT NULL, -- 1 for a file configuration key
	PRIMARY KEY (result_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE result_values (
	result_id  INTEGER NOT NULL REFERENCES results(id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	value      ANY,              -- NULL is NaN
	unit       TEXT    NOT NULL,
	orig_value ANY,              -- NULL is NaN
	orig_unit  TEXT    NOT NULL,
	PRIMARY KEY (result_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE unit_meta (
	id     INTEGER PRIMARY KEY, -- insertion order
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	unit   TEXT    NOT NULL,
	key    TEXT    NOT NULL,
	value  TEXT    NOT NULL,
	UNIQUE (run_id, unit, key)
) STRICT;

CREATE TABLE artifacts (
	id     INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	config TEXT    NOT NULL,
	kind   TEXT    NOT NULL,
	path   TEXT    NOT NULL,
	bytes  INTEGER NOT NULL
) STRICT;
CREATE INDEX artifacts_run ON artifacts(run_id);

CREATE TABLE verdicts (
	run_id   INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	seq      INTEGER NOT NULL,
	claim_id TEXT    NOT NULL,
	verdict  TEXT    NOT NULL,
	claimed  TEXT    NOT NULL,
	measured TEXT    NOT NULL,
	reason   TEXT    NOT NULL,
	PRIMARY KEY (run_id, seq)
) STRICT, WITHOUT ROWID;

CREATE TABLE failures (
	id     INTEGER PRIMARY KEY,
	run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
	round  INTEGER NOT NULL,
	config TEXT    NOT NULL,
	cell   TEXT    NOT NULL,
	reason TEXT    NOT NULL
) STRICT;
CREATE INDEX failures_run ON failures(run_id);
`,
	// 2: artifacts of a single cell (per-cell profiling passes).
	`ALTER TABLE artifacts ADD COLUMN cell TEXT NOT NULL DEFAULT '';`,
	// 3: the process that owns a running run, so a dead owner can be told apart.
	`ALTER TABLE runs ADD COLUMN owner_host TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN owner_pid INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN owner_start TEXT NOT NULL DEFAULT '';`,
	// 4: shards of one run: the key every shard names it by, the shard count,
	// and the machine each round ran on.
	`ALTER TABLE runs ADD COLUMN run_key TEXT; -- NULL for a run of one process
CREATE UNIQUE INDEX runs_run_key ON runs(run_key);
ALTER TABLE runs ADD COLUMN shards INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN shard INTEGER NOT NULL DEFAULT 0;
ALTER TABLE rounds ADD COLUMN host_id TEXT NOT NULL DEFAULT '';
ALTER TABLE rounds ADD COLUMN cpu_model TEXT NOT NULL DEFAULT '';
ALTER TABLE rounds ADD COLUMN cores INTEGER NOT NULL DEFAULT 0;`,
	// 5: the stored-run contract typed: how a sequential run stopped, the
	// noise measured before each round, and skips told from failures.
	// Failure rows that older versions marked with a "skipped: " prefix
	// become skips without it.
	`ALTER TABLE runs ADD COLUMN stop_round INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN stop_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN stop_elapsed INTEGER NOT NULL DEFAULT 0; -- nanoseconds
ALTER TABLE runs ADD COLUMN stop_cell_cost INTEGER NOT NULL DEFAULT 0; -- nanoseconds
ALTER TABLE rounds ADD COLUMN noise_cv ANY; -- NULL: not measured
ALTER TABLE rounds ADD COLUMN load_avg ANY; -- NULL: not measured or unreadable
ALTER TABLE failures ADD COLUMN skip INTEGER NOT NULL DEFAULT 0;
UPDATE failures SET skip = 1, reason = substr(reason, 10) WHERE substr(reason, 1, 9) = 'skipped: ';`,
	// 6: a config whose toolchain or modules could not be downloaded:
	// what, and the go command's reason (Config.NotFetched).
	`ALTER TABLE configs ADD COLUMN fetch_what TEXT NOT NULL DEFAULT '';
ALTER TABLE configs ADD COLUMN fetch_why TEXT NOT NULL DEFAULT '';`,
}
