package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/perflab/perflab/launch"
	"github.com/perflab/perflab/store"
)

// Where perflab keeps what it stores.
//
// Runs (the SQLite database) and their artifacts (profiles, report.md,
// report.html) live in perflab's data directory, never in the directory
// perflab runs in unless asked (--db, --out, -o):
//
//  1. $PERFLAB_HOME, when set;
//  2. else $XDG_DATA_HOME/perflab, when XDG_DATA_HOME is an absolute path
//     (the XDG Base Directory rule: a relative value is ignored);
//  3. else the per-user data directory of the OS: ~/.local/share/perflab
//     on Linux and other Unix systems, ~/Library/Application Support/perflab
//     on macOS, %LocalAppData%\perflab on Windows, $home/lib/perflab on
//     Plan 9.
//
// It holds perflab.db and runs/run-<id>/, and is created when a command
// first stores a run. Earlier versions of perflab wrote ./perflab.db and
// ./perflab-runs/ instead: when $PERFLAB_HOME is not set and the current
// directory holds a perflab.db, that database stays the default (with
// perflab-runs/ beside it), so its history is not lost, and perflab says so.
//
// Compiled test binaries and exported sources are a cache, kept apart
// (builtin.CacheDir: $PERFLAB_CACHE or the user cache directory), and
// "perflab cache" shows and prunes it.

// Names inside perflab's data directory, and of the legacy layout.
const (
	dbName        = "perflab.db"
	runsName      = "runs"
	legacyRunsDir = "perflab-runs"
)

// home is where perflab stores runs by default.
type home struct {
	Dir    string // the data directory, absolute
	DB     string // the default --db, absolute
	Out    string // the default --out, absolute
	Legacy bool   // DB is a perflab.db found in the working directory
	From   string // what chose Dir, for messages: "$PERFLAB_HOME", "$XDG_DATA_HOME", "the OS default", "./perflab.db"
}

// homeEnv is what resolving perflab's home reads, so tests can fix it.
type homeEnv struct {
	getenv func(string) string
	goos   string
	cwd    string
}

// findHome resolves perflab's home from the process's environment and
// working directory.
func findHome() (home, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return home{}, fmt.Errorf("finding the current directory: %w", err)
	}
	return homeEnv{getenv: os.Getenv, goos: runtime.GOOS, cwd: cwd}.resolve()
}

// resolve applies the rules at the top of this file.
func (e homeEnv) resolve() (home, error) {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(e.cwd, p)
	}
	if d := e.getenv("PERFLAB_HOME"); d != "" {
		d = abs(d)
		return home{Dir: d, DB: filepath.Join(d, dbName), Out: filepath.Join(d, runsName), From: "$PERFLAB_HOME"}, nil
	}
	if legacy := filepath.Join(e.cwd, dbName); isFile(legacy) {
		return home{Dir: e.cwd, DB: legacy, Out: filepath.Join(e.cwd, legacyRunsDir), Legacy: true, From: "./" + dbName}, nil
	}
	if d := e.getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		d = filepath.Join(d, "perflab")
		return home{Dir: d, DB: filepath.Join(d, dbName), Out: filepath.Join(d, runsName), From: "$XDG_DATA_HOME"}, nil
	}
	d, err := e.osDataDir()
	if err != nil {
		return home{}, err
	}
	d = filepath.Join(d, "perflab")
	return home{Dir: d, DB: filepath.Join(d, dbName), Out: filepath.Join(d, runsName), From: "the OS default"}, nil
}

// osDataDir is the OS's per-user data directory.
func (e homeEnv) osDataDir() (string, error) {
	need := func(name string) (string, error) {
		v := e.getenv(name)
		if v == "" {
			return "", fmt.Errorf("cannot find perflab's data directory: $%s is not set; set PERFLAB_HOME to a directory for perflab's runs, or pass --db and --out", name)
		}
		if !filepath.IsAbs(v) {
			return "", fmt.Errorf("cannot find perflab's data directory: $%s (%q) is not an absolute path; set PERFLAB_HOME, or pass --db and --out", name, v)
		}
		return v, nil
	}
	switch e.goos {
	case "windows":
		return need("LocalAppData")
	case "darwin", "ios":
		h, err := need("HOME")
		return filepath.Join(h, "Library", "Application Support"), err
	case "plan9":
		h, err := need("home")
		return filepath.Join(h, "lib"), err
	}
	h, err := need("HOME")
	return filepath.Join(h, ".local", "share"), err
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// defaultDB is --db's default: perflab.db in perflab's home, or "" when
// there is none (openDB then says why).
func defaultDB() string {
	h, err := findHome()
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
	h, err := findHome()
	if err != nil {
		return filepath.Join(os.TempDir(), "perflab", runsName)
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
		_, err := findHome()
		if err == nil {
			err = errors.New("--db is empty; pass a file name such as perflab.db")
		}
		return nil, err
	}
	if store.IsServer(path) {
		return store.Open(path)
	}
	h, herr := findHome()
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
	} else if isDefault && !h.Legacy {
		if err := os.MkdirAll(h.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("creating perflab's data directory %s (from %s): %w; set PERFLAB_HOME to a writable directory, or pass --db and --out", h.Dir, h.From, err)
		}
	}
	return store.Open(path)
}

// shownPath is p made absolute for messages (p when that fails).
func shownPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
