package main

import (
	"strings"

	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// helpTopics are "perflab help TOPIC" pages that are not commands; all
// asks for the whole page ("perflab help TOPIC --all").
var helpTopics = map[string]func(all bool) string{
	"spec":    specHelp,
	"storage": func(bool) string { return storageHelp() },
}

// specHelp is "perflab help spec": a small spec and the sections of the
// format, or with all the whole format (package spec's documentation).
func specHelp(all bool) string {
	const title = "The spec format (perflab run SPEC.toml; perflab init writes one to start from).\n\n"
	if all {
		return title + spec.Doc()
	}
	return title + `A spec is a TOML file that says which benchmarks to run, over which
sweep axes, under which build and runtime configurations, and which
claims the results are checked against. Decoding is strict: an unknown
key, a value of the wrong type or a missing field is an error that names
the file and line.

A small spec (BenchmarkReuse reads its axes as sub-benchmarks,
BenchmarkReuse/variant=syncpool/reuse=50):

` + indent(smallSpec, "    ") + `
` + wrapText(`Run it with "perflab run reuse.toml --quick". The whole format, section by section (`+strings.Join(specSections(), ", ")+`): perflab help spec --all.`, 72) + "\n"
}

// smallSpec is the example of "perflab help spec"; a test parses it.
const smallSpec = `name       = "syncpool-reuse"
driver     = "gotest"
package    = "./bench"              # relative to this file's directory
benchmarks = ["BenchmarkReuse"]

[[axis]]
key   = "variant"
quick = ["plain", "syncpool"]

[[axis]]
key   = "reuse"
quick = [0, 50, 100]
full  = [0, 10, 25, 50, 75, 90, 100]

[mode.quick]
rounds    = 6
benchtime = "50ms"

[mode.full]
rounds    = 20
benchtime = "1000x"

[[config]]
name = "base"

[[config]]
name = "gogc-off"
gogc = "off"

[analysis]
axis     = "reuse"                  # knees and crossovers along it
by       = "variant"                # each value against the baseline
baseline = "plain"

[[claim]]
id   = "pool-wins-when-reused"
text = "With 50% reuse, sync.Pool is at least 2x faster than make."

  [[claim.check]]
  kind  = "ratio"
  where = "reuse=50"
  num   = "variant=syncpool"
  den   = "variant=plain"
  op    = "<"
  value = 0.5
`

// specSections are the headings of the spec format's documentation, in
// lower case.
func specSections() []string {
	var out []string
	lines := strings.Split(spec.Doc(), "\n")
	for i, l := range lines {
		if i > 0 && lines[i-1] == "" && l != "" && strings.ToUpper(l) == l && strings.ToLower(l) != l {
			out = append(out, strings.ToLower(l))
		}
	}
	return out
}

// indent prefixes every non-empty line of s.
func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
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
