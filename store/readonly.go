package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"modernc.org/sqlite"
)

// ErrNoStore is wrapped by the error OpenReadOnly returns for a path that
// holds no perflab store: no file, an empty file, or an empty database.
var ErrNoStore = errors.New("no perflab store")

// sqliteReadOnly is SQLite's primary result code for a write refused by a
// read-only file or directory.
const sqliteReadOnly = 8

// OpenReadOnly opens an existing perflab database for reading only, as the
// commands that only read (runs, report, compare, serve, ...) do. It never
// writes: no file is created, no schema made, no journal mode changed.
//
// A SQLite file is opened with mode=ro; where even that needs a write
// SQLite cannot make (a read-only copy of a WAL-mode store, in a directory
// it may not write, so its -shm index cannot be made) it is opened
// immutable instead. A reader of a WAL-mode store in a writable directory
// may leave its -wal and -shm files beside it, as every SQLite reader does;
// the database file itself is never written. A PostgreSQL database is read
// in read-only transactions (default_transaction_read_only).
//
// A missing file, an empty file or an empty database wraps ErrNoStore;
// another program's database is refused as Open refuses it. A store of an
// older schema is migrated first where it can be written (as Open would),
// and refused with what to do where it cannot.
func OpenReadOnly(path string) (*DB, error) {
	db, err := openReadOnly(path)
	if err != nil {
		return nil, err
	}
	v, err := db.readVersion(context.Background(), db.sql)
	if err == nil && v == 0 {
		err = db.noStore()
	}
	if err == nil && v > schemaVersion() {
		err = fmt.Errorf("database %s was written by a newer perflab (schema %d > %d); upgrade perflab or use another --db", db.path, v, schemaVersion())
	}
	if err == nil && v < schemaVersion() {
		db.Close()
		return migrateThenReadOnly(path, v)
	}
	if err != nil {
		db.Close()
		if cerr := db.openFailure(err); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	return db, nil
}

// noStore says that db's file holds no perflab store.
func (db *DB) noStore() error {
	return &noStoreError{db.path}
}

// noStoreError is ErrNoStore with the path and what to do.
type noStoreError struct{ path string }

func (e *noStoreError) Error() string {
	return fmt.Sprintf("no perflab store at %s; run a measuring command first or pass --db", e.path)
}

func (e *noStoreError) Unwrap() error { return ErrNoStore }

// openReadOnly opens path without writing and checks that it can be read.
func openReadOnly(path string) (*DB, error) {
	if isPostgresDSN(path) {
		return openPostgresReadOnly(path)
	}
	if path == "" {
		return nil, errors.New("open database: empty path; pass a file name such as perflab.db")
	}
	db := &DB{path: path, readOnly: true}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, db.noStore()
	case err != nil:
		return nil, fmt.Errorf("open database %s: %w", path, err)
	case fi.IsDir():
		return nil, fmt.Errorf("open database %s: it is a directory; pass a file name such as %s", path, path+"/perflab.db")
	case fi.Size() == 0:
		return nil, db.noStore()
	}
	err = db.openSQLiteReadOnly(false)
	if err != nil && cannotWrite(err) {
		err = db.openSQLiteReadOnly(true)
	}
	if err != nil {
		if cerr := db.openFailure(err); cerr != nil {
			return nil, cerr
		}
		return nil, fmt.Errorf("open database %s read-only: %w", path, err)
	}
	return db, nil
}

// openSQLiteReadOnly opens db's file read-only (or immutable) and reads it
// once, which opens the file and, for a WAL store, its index.
func (db *DB) openSQLiteReadOnly(immutable bool) error {
	sqlDB, err := sql.Open("sqlite", readOnlyDSN(db.path, immutable))
	if err != nil {
		return err
	}
	sqlDB.SetMaxOpenConns(1)
	var n int
	if err := sqlDB.QueryRowContext(context.Background(), `SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil {
		sqlDB.Close()
		return err
	}
	db.sql = &conn{db: sqlDB, d: sqliteDialect}
	return nil
}

// readOnlyDSN is dsn for a reader: no journal-mode pragma (setting WAL
// writes the header), no IMMEDIATE transactions (they take the write lock).
// immutable tells SQLite the file cannot change, so it needs no lock and no
// -shm index.
func readOnlyDSN(path string, immutable bool) string {
	esc := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.Clean(path))
	q := "mode=ro"
	if immutable {
		q = "immutable=1"
	}
	return "file:" + esc + "?" + q + "&_pragma=busy_timeout(5000)"
}

// cannotWrite reports whether err says SQLite could not open or create a
// file it needs (a WAL store's -shm index in a read-only directory).
func cannotWrite(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqliteCantOpen, sqliteReadOnly:
		return true
	}
	return false
}

// openPostgresReadOnly opens a PostgreSQL database whose every transaction
// is read-only.
func openPostgresReadOnly(dsn string) (*DB, error) {
	shown := redactDSN(dsn)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", shown, err)
	}
	cfg.RuntimeParams["default_transaction_read_only"] = "on"
	sqlDB := stdlib.OpenDB(*cfg)
	sqlDB.SetMaxOpenConns(4)
	db := &DB{sql: &conn{db: sqlDB, d: postgresDialect}, path: shown, dialect: postgresDialect, readOnly: true}
	if err := sqlDB.PingContext(context.Background()); err != nil {
		sqlDB.Close()
		return nil, fmt.Errorf("open database %s: cannot reach the PostgreSQL server; check the URL, that the server runs and that the user may connect: %w", shown, err)
	}
	return db, nil
}

// migrateThenReadOnly brings a store of an older schema up to date (what
// any perflab command that stores runs would do to it) and opens it again
// read-only; a store that cannot be written is refused with what to do.
func migrateThenReadOnly(path string, v int) (*DB, error) {
	db, err := Open(path)
	if err != nil {
		return nil, fmt.Errorf("database %s was written by an older perflab (schema %d < %d) and cannot be brought up to date here: %w; run a perflab command that stores runs on a writable copy of it first", redactedPath(path), v, schemaVersion(), err)
	}
	db.Close()
	return OpenReadOnly(path)
}

// redactedPath is path for messages: a PostgreSQL URL without its password.
func redactedPath(path string) string {
	if isPostgresDSN(path) {
		return redactDSN(path)
	}
	return path
}

// ReadOnly reports whether db was opened with OpenReadOnly.
func (db *DB) ReadOnly() bool { return db.readOnly }

// Files returns the files a SQLite store at path consists of: the
// database, its write-ahead log, its shared-memory index and its rollback
// journal, whether or not they exist now. A PostgreSQL URL has none.
func Files(path string) []string {
	if path == "" || isPostgresDSN(path) {
		return nil
	}
	return []string{path, path + "-wal", path + "-shm", path + "-journal"}
}
