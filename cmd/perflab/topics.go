package main

import (
	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// helpTopics are "perflab help TOPIC" pages that are not commands.
var helpTopics = map[string]func() string{
	"spec": func() string {
		return "The spec format (perflab run SPEC.toml; perflab init writes one to start from).\n\n" + spec.Doc()
	},
	"storage": storageHelp,
}

// storageHelp is "perflab help storage": where runs, reports and caches
// are kept, as they resolve here and now.
func storageHelp() string {
	where := "here: "
	if h, err := store.FindHome(); err != nil {
		where += err.Error()
	} else {
		where += h.Dir + " (from " + h.From + ")"
	}
	cache := "here: "
	if d, err := cacheDirForHelp(); err != nil {
		cache += err.Error()
	} else {
		cache += d
	}
	return `Where perflab keeps what it stores.

Runs and reports. Every command that stores a run (run, bench, ab,
bisect) keeps it in perflab's data directory, not in the directory it runs
in, and prints where ("stored: run 12 in …/perflab.db", "report: …"):

  DIR/perflab.db          the SQLite database of every run   (--db PATH)
  DIR/runs/run-<id>/      profiles, report.md, report.html  (--out DIR)

DIR is the first of:
  $PERFLAB_HOME
  $XDG_DATA_HOME/perflab   when XDG_DATA_HOME is an absolute path
  ~/.local/share/perflab   (Linux and other Unix systems)
  ~/Library/Application Support/perflab   (macOS)
  %LocalAppData%\perflab   (Windows)
and is created when the first run is stored; ` + where + `.

An existing perflab.db in the current directory, where earlier versions
of perflab stored runs, stays the default there (with perflab-runs/
beside it), so its history is not lost; perflab says so each time. Move
it into DIR, or pass --db, to stop. With $PERFLAB_HOME set it is ignored.
The commands that read runs (runs, report, export, analyze, compare,
history, serve) use the same default, so they find what was stored.

Cache. Compiled test binaries (bin/) and exported sources (src/) live in
perflab's cache directory: $PERFLAB_CACHE, or perflab in the user cache
directory (~/.cache/perflab on Linux; --cache DIR); ` + cache + `.
"perflab cache" shows its size and the Go build cache's (go env GOCACHE),
and "perflab cache prune" / "perflab cache clean" free them.

Examples:
  perflab runs                               # the runs in DIR
  PERFLAB_HOME=~/perf perflab bench . -bench Encode
  perflab run poolreuse --quick --db team.db --out team-runs
  perflab cache prune --keep 500MB
`
}

// cacheDirForHelp is perflab's default cache directory.
func cacheDirForHelp() (string, error) {
	d, err := builtin.CacheDir()
	if err != nil {
		return "", err
	}
	return shownPath(d), nil
}
