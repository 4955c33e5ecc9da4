package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"
)

// ErrNotFound is wrapped by errors for a run (or the latest run) that is not
// in the database.
var ErrNotFound = errors.New("not found")

// ErrRoundExists is wrapped by the error AddRound returns when the round is
// already stored for the run.
var ErrRoundExists = errors.New("round already stored")

// DB is an open perflab database.
type DB struct {
	sql      *conn // every query goes through it; see the package doc
	path     string
	dialect  dialect
	readOnly bool // opened by OpenReadOnly

	warnMu sync.Mutex
	warn   io.Writer       // where skipped damaged rows are reported; nil: os.Stderr
	warned map[string]bool // what was reported already
}

// SetWarnings sets where db reports the rows it skips because they are
// damaged (a stored time that does not parse, say), each once; os.Stderr
// until it is set.
func (db *DB) SetWarnings(w io.Writer) {
	db.warnMu.Lock()
	defer db.warnMu.Unlock()
	db.warn = w
}

// skipped reports, once, a damaged row a listing left out.
func (db *DB) skipped(err error) {
	db.warnMu.Lock()
	defer db.warnMu.Unlock()
	msg := err.Error()
	if db.warned[msg] {
		return
	}
	if db.warned == nil {
		db.warned = map[string]bool{}
	}
	db.warned[msg] = true
	w := db.warn
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "perflab: warning: %s: %v; the row is skipped (the rest is listed)\n", db.path, err)
}

// SQLite primary result codes this package reports specially.
const (
	sqliteCorrupt  = 11
	sqliteCantOpen = 14
	sqliteNotADB   = 26
)

// Open opens the perflab database at path, creating the file and its schema
// if missing and applying any pending schema migrations.
//
// A path that starts with postgres:// or postgresql:// opens that
// PostgreSQL database instead (the schema is created and migrated the same
// way); the user needs the right to create tables in its current schema.
func Open(path string) (*DB, error) {
	if isPostgresDSN(path) {
		return openPostgres(path)
	}
	if path == "" {
		return nil, errors.New("open database: empty path; pass a file name such as perflab.db")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("open database %s: it is a directory; pass a file name such as %s", path, path+"/perflab.db")
	}
	sqlDB, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	// One connection: writers are serialised, and SQLite sees one client
	// per process.
	sqlDB.SetMaxOpenConns(1)
	db := &DB{sql: &conn{db: sqlDB, d: sqliteDialect}, path: path}
	ctx := context.Background()
	if err := sqlDB.PingContext(ctx); err != nil {
		sqlDB.Close()
		if cerr := db.openFailure(err); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	if err := db.migrate(ctx); err != nil {
		sqlDB.Close()
		if cerr := db.openFailure(err); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	return db, nil
}

// dsn returns the driver data source name for path: a file: URI with the
// pragmas this package relies on. Transactions begin IMMEDIATE, so a writer
// takes the write lock up front and waits on busy_timeout instead of failing
// on a lock upgrade.
func dsn(path string) string {
	// Clean turns a leading "//" into "/", which a URI would read as a host.
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.Clean(path))
	return "file:" + esc +
		"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)&_pragma=foreign_keys(1)&_txlock=immediate"
}

// openFailure returns a descriptive error if err says the file cannot be
// opened, is not a SQLite database or is damaged, and nil otherwise.
func (db *DB) openFailure(err error) error {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteNotADB, sqliteCorrupt:
			return fmt.Errorf("open database %s: the file is not a SQLite database or is damaged; point --db at another file or move this one away: %w", db.path, err)
		case sqliteCantOpen:
			return fmt.Errorf("open database %s: cannot open or create the file; check that its directory exists and is writable: %w", db.path, err)
		}
	}
	return nil
}

// Close closes the database.
func (db *DB) Close() error {
	if err := db.sql.Close(); err != nil {
		return fmt.Errorf("close database %s: %w", db.path, err)
	}
	return nil
}

// Path returns the file name the database was opened with, or the
// PostgreSQL URL without its password.
func (db *DB) Path() string { return db.path }

// querier is what both *sql.DB and *sql.Tx offer.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// notFoundError is an error with its own message that wraps ErrNotFound.
type notFoundError struct{ msg string }

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return ErrNotFound }

func (db *DB) runNotFound(runID int64) error {
	return &notFoundError{fmt.Sprintf("run %d not found in %s; list the stored runs to pick another", runID, db.path)}
}

// checkRun returns an error wrapping ErrNotFound unless the run exists.
func (db *DB) checkRun(ctx context.Context, q querier, runID int64) error {
	var one int
	err := q.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE id = ?`, runID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return db.runNotFound(runID)
	}
	if err != nil {
		return fmt.Errorf("look up run %d in %s: %w", runID, db.path, err)
	}
	return nil
}

// inTx runs fn in one transaction, committing if fn succeeds and rolling
// back otherwise.
func (db *DB) inTx(ctx context.Context, fn func(tx *txn) error) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction on %s: %w", db.path, err)
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit to %s: %w", db.path, err)
	}
	return nil
}

// timeLayout is a fixed-width UTC layout, so stored times sort as text.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

func formatTime(t time.Time) (string, error) {
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return "", fmt.Errorf("time %v is outside years 0-9999 and cannot be stored", t)
	}
	return t.Format(timeLayout), nil
}

func parseTime(s string) (time.Time, error) {
	t, err := time.Parse(timeLayout, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("stored time %q is damaged: %w", s, err)
	}
	return t, nil
}

// schemaVersion is the schema version this code writes and understands.
func schemaVersion() int { return len(migrations) }

// migrate brings the schema up to schemaVersion, one migration per
// transaction, or refuses a database from a newer perflab.
func (db *DB) migrate(ctx context.Context) error {
	for {
		done, err := db.migrateStep(ctx)
		if err != nil || done {
			return err
		}
	}
}

// migrateStep applies the next missing migration, if any, in one
// transaction. It reports done when the schema is current.
func (db *DB) migrateStep(ctx context.Context) (done bool, err error) {
	err = db.inTx(ctx, func(tx *txn) error {
		if db.dialect == postgresDialect {
			// Shards opening one database at once migrate it one at a time.
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(7268836185)`); err != nil {
				return fmt.Errorf("lock schema of %s for migration: %w", db.path, err)
			}
		}
		v, err := db.readVersion(ctx, tx)
		if err != nil {
			return err
		}
		if v > schemaVersion() {
			return fmt.Errorf("database %s was written by a newer perflab (schema %d > %d); upgrade perflab or use another --db", db.path, v, schemaVersion())
		}
		if v == schemaVersion() {
			done = true
			return nil
		}
		if _, err := tx.ExecContext(ctx, db.dialect.ddl(migrations[v])); err != nil {
			return fmt.Errorf("migrate database %s to schema %d: %w", db.path, v+1, err)
		}
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO meta(key, value) VALUES ('schema_version', ?)
			 ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
			strconv.Itoa(v+1)); err != nil {
			return fmt.Errorf("record schema %d in %s: %w", v+1, db.path, err)
		}
		return nil
	})
	return done, err
}

// readVersion returns the stored schema version: 0 for a new, empty
// database. A SQLite database that holds tables but no perflab meta table
// is refused, so perflab never writes into another program's database.
func (db *DB) readVersion(ctx context.Context, q querier) (int, error) {
	var hasMeta, others int
	var err error
	if db.dialect == postgresDialect {
		hasMeta, others, err = db.readVersionPostgres(ctx, q)
	} else {
		err = q.QueryRowContext(ctx,
			`SELECT COALESCE(SUM(name = 'meta'), 0), COALESCE(SUM(name <> 'meta'), 0)
			 FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\_%' ESCAPE '\'`).Scan(&hasMeta, &others)
	}
	if err != nil {
		return 0, fmt.Errorf("read schema of %s: %w", db.path, err)
	}
	if hasMeta == 0 {
		if others > 0 {
			return 0, fmt.Errorf("database %s is a database but not a perflab one (no meta table); use another --db", db.path)
		}
		return 0, nil
	}
	var s string
	err = q.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'schema_version'`).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("database %s has a meta table without schema_version; it is damaged or not a perflab database; use another --db", db.path)
	}
	if err != nil {
		return 0, fmt.Errorf("read schema version of %s: %w", db.path, err)
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("database %s has a damaged schema_version %q; use another --db", db.path, s)
	}
	return v, nil
}
