package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tempStore returns where a test store goes: a file path in a fresh
// directory, or a fresh PostgreSQL database in the suite's PostgreSQL pass.
func tempStore(t *testing.T) string {
	t.Helper()
	if c := pgSuiteCluster(); c != nil {
		return c.NewDatabaseT(t)
	}
	return filepath.Join(t.TempDir(), "perflab.db")
}

// storeWithRun writes a store holding one run and closes it.
func storeWithRun(t *testing.T, path string) {
	t.Helper()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	newRun(t, db, "kept")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenReadOnlyWritesNothing: a read-only open of anything leaves it as
// it was — no file created, no schema made, no journal mode switched —
// and refuses what is no perflab store with a message naming it.
func TestOpenReadOnlyWritesNothing(t *testing.T) {
	skipOnPostgres(t)
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, dir string) string
		want  string // substring of the error; "" for a store that opens
		noDB  bool   // the error wraps ErrNoStore
	}{
		{"missing file", func(t *testing.T, dir string) string { return filepath.Join(dir, "missing.db") }, "no perflab store at", true},
		{"missing dir", func(t *testing.T, dir string) string { return filepath.Join(dir, "no", "such.db") }, "no perflab store at", true},
		{"empty file", func(t *testing.T, dir string) string { return writeFile(t, dir, "empty.db", nil) }, "no perflab store at", true},
		{"empty database", func(t *testing.T, dir string) string {
			return sqliteFile(t, filepath.Join(dir, "blank.db"), `PRAGMA user_version = 7`) // a valid, table-less file
		}, "no perflab store at", true},
		{"other program's database", func(t *testing.T, dir string) string {
			return sqliteFile(t, filepath.Join(dir, "foreign.db"), `CREATE TABLE customers (id INTEGER PRIMARY KEY); INSERT INTO customers VALUES (1)`)
		}, "not a perflab one", false},
		{"text file", func(t *testing.T, dir string) string {
			return writeFile(t, dir, "notes.db", []byte("not a database\n"))
		}, "not a SQLite database", false},
		{"directory", func(t *testing.T, dir string) string { return dir }, "is a directory", false},
		{"store", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "perflab.db")
			storeWithRun(t, p)
			return p
		}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			before := snapshot(t, dir)
			db, err := OpenReadOnly(path)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("OpenReadOnly: %v", err)
				}
				runs, err := db.Runs(context.Background())
				if err != nil || len(runs) != 1 {
					t.Errorf("Runs of the read-only store: %d runs, %v", len(runs), err)
				}
				if _, err := db.CreateRun(context.Background(), &Run{Experiment: "x", Mode: "quick"}); err == nil {
					t.Error("CreateRun on a read-only store succeeded")
				}
				db.Close()
			} else {
				if err == nil {
					db.Close()
					t.Fatalf("OpenReadOnly(%s) succeeded; want %q", path, tc.want)
				}
				if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
					t.Errorf("error %q: want %q and the path", err, tc.want)
				}
				if errors.Is(err, ErrNoStore) != tc.noDB {
					t.Errorf("errors.Is(%v, ErrNoStore) = %v, want %v", err, !tc.noDB, tc.noDB)
				}
			}
			after := snapshot(t, dir)
			for name, b := range before {
				if !bytes.Equal(after[name], b) {
					t.Errorf("%s changed (%d bytes → %d)", name, len(b), len(after[name]))
				}
			}
			for name := range after {
				if _, ok := before[name]; !ok && !strings.HasSuffix(name, "-wal") && !strings.HasSuffix(name, "-shm") {
					t.Errorf("%s was created", name)
				}
			}
		})
	}
}

// sqliteFile makes a SQLite file at path with query, as another program
// would (rollback journal, no perflab tables), and returns path.
func sqliteFile(t *testing.T, path, query string) string {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(query); err != nil {
		t.Fatal(err)
	}
	return path
}

// snapshot reads every file of dir.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if e.Type().IsRegular() {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out[e.Name()] = b
		}
	}
	return out
}

// TestOpenReadOnlyCopy: a store copied read-only (a CI artifact, another
// user's file) can be read, through SQLite's immutable open when it cannot
// even make the WAL index.
func TestOpenReadOnlyCopy(t *testing.T) {
	skipOnPostgres(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "perflab.db")
	storeWithRun(t, src)
	roDir := filepath.Join(dir, "ro")
	if err := os.Mkdir(roDir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	cp := writeFile(t, roDir, "copy.db", data)
	if err := os.Chmod(cp, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(roDir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(roDir, 0o755) })
	for _, immutable := range []bool{false, true} {
		db := &DB{path: cp, readOnly: true}
		if err := db.openSQLiteReadOnly(immutable); err != nil {
			if !immutable && os.Geteuid() != 0 && cannotWrite(err) {
				continue // what OpenReadOnly retries immutable
			}
			t.Fatalf("immutable=%v: %v", immutable, err)
		}
		runs, err := db.Runs(context.Background())
		db.Close()
		if err != nil || len(runs) != 1 || runs[0].Experiment != "kept" {
			t.Errorf("immutable=%v: runs %+v, %v", immutable, runs, err)
		}
	}
	db, err := OpenReadOnly(cp)
	if err != nil {
		t.Fatalf("OpenReadOnly of a read-only copy: %v", err)
	}
	defer db.Close()
	if runs, err := db.Runs(context.Background()); err != nil || len(runs) != 1 {
		t.Errorf("runs of the read-only copy: %d, %v", len(runs), err)
	}
	if got, err := os.ReadFile(cp); err != nil || !bytes.Equal(got, data) {
		t.Errorf("the read-only copy changed")
	}
}

// TestOpenReadOnlyBothDialects: a store opens read-only and reads, writes
// are refused, and an empty database is no store and stays empty.
func TestOpenReadOnlyBothDialects(t *testing.T) {
	path := tempStore(t)
	ctx := context.Background()
	if _, err := OpenReadOnly(path); !errors.Is(err, ErrNoStore) {
		t.Fatalf("OpenReadOnly of an empty database: %v, want ErrNoStore", err)
	}
	if pgSuiteCluster() != nil {
		// Nothing was created: a writer still finds an empty database.
		raw, err := sql.Open("pgx", path)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		err = raw.QueryRow(`SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()`).Scan(&n)
		raw.Close()
		if err != nil || n != 0 {
			t.Errorf("the read-only open left %d tables (%v)", n, err)
		}
	} else if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the read-only open created %s", path)
	}
	storeWithRun(t, path)
	db, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.ReadOnly() {
		t.Error("ReadOnly() = false")
	}
	runs, err := db.Runs(ctx)
	if err != nil || len(runs) != 1 {
		t.Fatalf("Runs: %d, %v", len(runs), err)
	}
	if err := db.FinishRun(ctx, runs[0].ID, "complete"); err == nil {
		t.Error("FinishRun through a read-only handle succeeded")
	}
	if r, err := db.GetRun(ctx, runs[0].ID); err != nil || r.Status != "running" {
		t.Errorf("the run changed: %+v, %v", r, err)
	}
}

// TestOpenReadOnlyMigratesOlderStore: a store of an older schema that can
// be written is brought up to date, as any command would, then read.
func TestOpenReadOnlyMigratesOlderStore(t *testing.T) {
	skipOnPostgres(t)
	path := filepath.Join(t.TempDir(), "v1.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{migrations[0], `INSERT INTO meta(key, value) VALUES ('schema_version', '1')`} {
		if _, err := raw.Exec(q); err != nil {
			raw.Close()
			t.Fatal(err)
		}
	}
	raw.Close()
	db, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("OpenReadOnly of a version-1 store: %v", err)
	}
	defer db.Close()
	if v, err := db.readVersion(context.Background(), db.sql); err != nil || v != schemaVersion() {
		t.Errorf("schema %d, %v; want %d", v, err, schemaVersion())
	}
}

// TestDamagedRunSkipped: a run whose stored time is damaged is left out of
// the list with a warning naming it; the others are listed, and looking
// the run up says what is wrong.
func TestDamagedRunSkipped(t *testing.T) {
	for _, col := range []string{"started_at", "finished_at"} {
		t.Run(col, func(t *testing.T) {
			db := openTemp(t)
			ctx := context.Background()
			var ids []int64
			for i := range 3 {
				id, err := db.CreateRun(ctx, &Run{Experiment: "x", Mode: "quick", StartedAt: time.Date(2026, 1, 1+i, 0, 0, 0, 0, time.UTC)})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			if _, err := db.sql.ExecContext(ctx, `UPDATE runs SET `+col+` = 'not a time' WHERE id = ?`, ids[1]); err != nil {
				t.Fatal(err)
			}
			var warn strings.Builder
			db.SetWarnings(&warn)
			for range 2 {
				runs, err := db.Runs(ctx)
				if err != nil {
					t.Fatalf("Runs: %v", err)
				}
				if len(runs) != 2 || runs[0].ID != ids[2] || runs[1].ID != ids[0] {
					t.Errorf("Runs = %v, want runs %d and %d", runs, ids[2], ids[0])
				}
			}
			w := warn.String()
			if strings.Count(w, "\n") != 1 || !strings.Contains(w, "run 2:") || !strings.Contains(w, `"not a time"`) || !strings.Contains(w, "skipped") {
				t.Errorf("warning (once, naming the run and the value): %q", w)
			}
			if _, err := db.GetRun(ctx, ids[1]); err == nil || !strings.Contains(err.Error(), "damaged") {
				t.Errorf("GetRun of the damaged run: %v", err)
			}
		})
	}
}
