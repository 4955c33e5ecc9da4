package store

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
// perflab-runs/ beside it), so its history is not lost.
//
// Compiled test binaries and exported sources are a cache, kept apart
// (builtin.CacheDir: $PERFLAB_CACHE or the user cache directory), which
// package cache measures and prunes.

// Names inside perflab's data directory, and of the legacy layout.
const (
	DBName        = "perflab.db"   // the database
	RunsName      = "runs"         // the runs' artifacts, one run-<id>/ each
	LegacyRunsDir = "perflab-runs" // the artifacts beside a legacy ./perflab.db
)

// Home is where perflab stores runs by default.
type Home struct {
	Dir    string // the data directory, absolute
	DB     string // the default database, absolute
	Out    string // the default directory of the runs' artifacts, absolute
	Legacy bool   // DB is a perflab.db found in the working directory
	From   string // what chose Dir, for messages: "$PERFLAB_HOME", "$XDG_DATA_HOME", "the OS default", "./perflab.db"
}

// HomeEnv is what resolving perflab's home reads: the environment, the
// operating system (runtime.GOOS) and the working directory.
type HomeEnv struct {
	Getenv func(string) string
	GOOS   string
	Cwd    string
}

// FindHome resolves perflab's home from the process's environment and
// working directory.
func FindHome() (Home, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return Home{}, fmt.Errorf("finding the current directory: %w", err)
	}
	return HomeEnv{Getenv: os.Getenv, GOOS: runtime.GOOS, Cwd: cwd}.Resolve()
}

// Resolve applies the rules at the top of this file.
func (e HomeEnv) Resolve() (Home, error) {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(e.Cwd, p)
	}
	if d := e.Getenv("PERFLAB_HOME"); d != "" {
		d = abs(d)
		return Home{Dir: d, DB: filepath.Join(d, DBName), Out: filepath.Join(d, RunsName), From: "$PERFLAB_HOME"}, nil
	}
	if legacy := filepath.Join(e.Cwd, DBName); isFile(legacy) {
		return Home{Dir: e.Cwd, DB: legacy, Out: filepath.Join(e.Cwd, LegacyRunsDir), Legacy: true, From: "./" + DBName}, nil
	}
	if d := e.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		d = filepath.Join(d, "perflab")
		return Home{Dir: d, DB: filepath.Join(d, DBName), Out: filepath.Join(d, RunsName), From: "$XDG_DATA_HOME"}, nil
	}
	d, err := e.osDataDir()
	if err != nil {
		return Home{}, err
	}
	d = filepath.Join(d, "perflab")
	return Home{Dir: d, DB: filepath.Join(d, DBName), Out: filepath.Join(d, RunsName), From: "the OS default"}, nil
}

// osDataDir is the OS's per-user data directory.
func (e HomeEnv) osDataDir() (string, error) {
	need := func(name string) (string, error) {
		v := e.Getenv(name)
		if v == "" {
			return "", fmt.Errorf("cannot find perflab's data directory: $%s is not set; set PERFLAB_HOME to a directory for perflab's runs, or pass --db and --out", name)
		}
		if !filepath.IsAbs(v) {
			return "", fmt.Errorf("cannot find perflab's data directory: $%s (%q) is not an absolute path; set PERFLAB_HOME, or pass --db and --out", name, v)
		}
		return v, nil
	}
	switch e.GOOS {
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

// MkdirAll creates the home's data directory, where its database goes,
// unless the home is a legacy ./perflab.db (whose directory exists).
func (h Home) MkdirAll() error {
	if h.Legacy {
		return nil
	}
	if err := os.MkdirAll(h.Dir, 0o755); err != nil {
		return fmt.Errorf("creating perflab's data directory %s (from %s): %w; set PERFLAB_HOME to a writable directory, or pass --db and --out", h.Dir, h.From, err)
	}
	return nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
