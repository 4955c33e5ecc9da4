package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/perflab/perflab/launch"
	"github.com/perflab/perflab/store"
)

// Where perflab keeps runs by default (store.FindHome: $PERFLAB_HOME,
// $XDG_DATA_HOME/perflab, the OS's per-user data directory, or a legacy
// ./perflab.db) and how its commands open the database.

// defaultDB is --db's default: perflab.db in perflab's home, or "" when
// there is none (openDB then says why).
func defaultDB() string {
	h, err := store.FindHome()
	if err != nil {
		return ""
	}
	return h.DB
}

// defaultOut is --out's default: runs/ in perflab's home (perflab-runs/
// beside a legacy ./perflab.db). Without a home (no $HOME), and so with an
// explicit --db, it is perflab/runs in the temporary directory: never the
// directory perflab runs in.
func defaultOut() string {
	h, err := store.FindHome()
	if err != nil {
		return filepath.Join(os.TempDir(), "perflab", store.RunsName)
	}
	return h.Out
}

// notes is where a command's one-time notes go (Main points it at the
// command's stderr), and noted what it already said.
var (
	notes io.Writer = os.Stderr
	noted           = map[string]bool{}
)

// noteOnce prints a note once per perflab command.
func noteOnce(key, format string, args ...any) {
	if noted[key] {
		return
	}
	noted[key] = true
	fmt.Fprintf(notes, format, args...)
}

// resetNotes starts a command's notes on w.
func resetNotes(w io.Writer) {
	notes = w
	clear(noted)
}

// openDB opens the database; mustExist refuses to create a new empty one.
// perflab's default database gets its data directory created on demand,
// and a legacy ./perflab.db in use is noted once.
func openDB(path string, mustExist bool) (*store.DB, error) {
	// $PERFLAB_DB stands for the default store, so launchers keep the URL
	// off every command line (and off --help's defaults).
	if env := os.Getenv(launch.DBEnv); env != "" && path == defaultDB() {
		path = env
	}
	if path == "" {
		_, err := store.FindHome()
		if err == nil {
			err = errors.New("--db is empty; pass a file name such as perflab.db")
		}
		return nil, err
	}
	if store.IsServer(path) {
		return store.Open(path)
	}
	h, herr := store.FindHome()
	isDefault := herr == nil && path == h.DB
	if isDefault && h.Legacy {
		noteOnce("legacy", "perflab: using %s, found in the current directory, as earlier versions did; without it, runs are kept in perflab's data directory (see \"perflab help storage\")\n", h.DB)
	}
	if mustExist {
		if _, err := os.Stat(path); err != nil {
			if isDefault {
				return nil, fmt.Errorf("no runs stored yet: %s does not exist (perflab's database, from %s); run an experiment first, or pass --db PATH", path, h.From)
			}
			return nil, fmt.Errorf("no database at %s (run an experiment first, or pass --db PATH)", path)
		}
	} else if isDefault {
		if err := h.MkdirAll(); err != nil {
			return nil, err
		}
	}
	return store.Open(path)
}

// openReadDB opens a store for a command that only reads it (runs,
// report, export, analyze of a run, compare, history, serve): nothing is
// created or written (store.OpenReadOnly), and damaged rows it skips are
// reported on the command's stderr.
func openReadDB(path string) (*store.DB, error) {
	if path == "" {
		_, err := store.FindHome()
		if err == nil {
			err = errors.New("--db is empty; pass a file name such as perflab.db")
		}
		return nil, err
	}
	h, herr := store.FindHome()
	isDefault := !store.IsServer(path) && herr == nil && path == h.DB
	if isDefault && h.Legacy {
		noteOnce("legacy", "perflab: using %s, found in the current directory, as earlier versions did; without it, runs are kept in perflab's data directory (see \"perflab help storage\")\n", h.DB)
	}
	if _, err := os.Stat(path); isDefault && errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("no runs stored yet: %s does not exist (perflab's database, from %s); run an experiment first, or pass --db PATH", path, h.From)
	}
	db, err := store.OpenReadOnly(path)
	if err != nil {
		return nil, err
	}
	db.SetWarnings(notes)
	return db, nil
}

// shownPath is p made absolute for messages (p when that fails).
func shownPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
