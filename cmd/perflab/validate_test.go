package main

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/testrun"
)

// TestStatisticalFlagsRefused: a bad statistical flag is a usage error
// (exit 2), in the same words, for every command that takes it, before
// the command reads or runs anything — so a gate given one never exits 0.
func TestStatisticalFlagsRefused(t *testing.T) {
	db := syntheticDB(t, testrun.Options{Seed: 1}, testrun.Options{Seed: 2, Scale: 1.08})
	// The arguments that make each command otherwise valid and quick.
	args := map[string][]string{
		"compare": {"1", "2", "--fail-on", "sec/op>+1%", "--db", db},
		"report":  {"1", "--db", db},
		"analyze": {"1", "--db", db},
		"history": {"Pool/mode=serial/size=64/variant=plain/reuse=25", "--db", db},
		"serve":   {"--db", db, "--addr", "127.0.0.1:0"},
		"run":     {"poolreuse", "--quick", "--db", db},
		"bench":   {".", "--db", db},
		"ab":      {"HEAD~1", "--db", db},
		"bisect":  {"v1", "v2", "-bench", ".", "--db", db},
	}
	for _, tc := range []struct {
		flag, value, want string
	}{
		{"alpha", "-1", "--alpha -1: want a significance level between 0 and 1 (exclusive), such as 0.05"},
		{"alpha", "NaN", "--alpha NaN: want a significance level between 0 and 1"},
		{"alpha", "+Inf", "--alpha +Inf: want a significance level between 0 and 1"},
		{"alpha", "0", "--alpha 0: want a significance level between 0 and 1"},
		{"alpha", "1", "--alpha 1: want a significance level between 0 and 1"},
		{"alpha", "2", "--alpha 2: want a significance level between 0 and 1"},
		{"budget", "-5m", "--budget -5m0s: want a duration of 0 (no budget) or more"},
		{"max-rounds", "-3", "--max-rounds -3: want 0 (the default) or more"},
		{"rounds", "-1", "--rounds -1: want 1 or more"},
		{"permutations", "0", "--permutations 0: want 1 or more"},
		{"fail-on", "sec/op>5", "--fail-on: threshold \"sec/op>5\": the limit must end in '%'"},
		{"fail-on", "sec/op>+NaN%", "--fail-on: threshold \"sec/op>+NaN%\": the limit is not a plain number"},
		{"precision", "200%", "--precision \"200%\": want a half-width"},
	} {
		n := 0
		for _, c := range commands {
			base, ok := args[c.name]
			if !ok || c.flags().Lookup(tc.flag) == nil {
				continue
			}
			n++
			_, stderr, code := perflab(t, append(append([]string{c.name}, base...), "--"+tc.flag, tc.value)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s --%s %s: exit %d, stderr %q; want exit 2 and %q", c.name, tc.flag, tc.value, code, stderr, tc.want)
			}
		}
		if n == 0 {
			t.Errorf("no command takes --%s", tc.flag)
		}
	}
	// A valid α still works, and the gate still fails on the planted change.
	if _, stderr, code := perflab(t, "compare", "1", "2", "--fail-on", "sec/op>+1%", "--alpha", "0.1", "--db", db); code != exitFailed {
		t.Errorf("gate at --alpha 0.1: exit %d, want 1\n%s", code, stderr)
	}
}

// TestOutputsNeverClobberTheStore: no output flag may name a file of the
// store — the database, its -wal, -shm or -journal — of --db or of
// perflab's default store, directly, through a symbolic link (also one to
// a file not made yet, or in a linked directory) or a hard link; the
// refusal names both paths, and the store still reads.
func TestOutputsNeverClobberTheStore(t *testing.T) {
	dir := t.TempDir()
	db := syntheticDB(t, testrun.Options{Seed: 1})
	home := t.TempDir()
	t.Setenv("PERFLAB_HOME", home)
	def := syntheticDBAt(t, filepath.Join(home, "perflab.db"), testrun.Options{Seed: 1})
	link := func(name, target string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hard := filepath.Join(dir, "hard.md")
	if err := os.Link(db, hard); err != nil {
		t.Fatal(err)
	}
	dbDir := link("dbdir", filepath.Dir(db))
	for _, tc := range []struct {
		args  []string
		store string // the store file named in the refusal
	}{
		{[]string{"report", "1", "--db", db, "-o", db}, db},
		{[]string{"report", "1", "--db", db, "--html", "-o", db + "-wal"}, db + "-wal"},
		{[]string{"report", "1", "--db", db, "-o", db + "-shm"}, db + "-shm"},
		{[]string{"report", "1", "--db", db, "-o", db + "-journal"}, db + "-journal"},
		{[]string{"report", "1", "--db", db, "-o", def}, def},
		{[]string{"report", "1", "-o", def + "-wal"}, def + "-wal"},
		{[]string{"report", "1", "--db", db, "-o", link("link.md", db)}, db},
		{[]string{"report", "1", "--db", db, "-o", link("dangling.md", db+"-journal")}, db + "-journal"},
		{[]string{"report", "1", "--db", db, "-o", filepath.Join(dbDir, filepath.Base(db))}, db},
		{[]string{"report", "1", "--db", db, "-o", hard}, db},
		{[]string{"ab", "HEAD~1", "--db", db, "--markdown", db}, db},
		{[]string{"bisect", "v1", "v2", "-bench", ".", "--db", db, "--html", db}, db},
		{[]string{"bisect", "v1", "v2", "-bench", ".", "--db", db, "--markdown", def}, def},
		{[]string{"bench", ".", "--db", db, "--save-spec", db}, db},
		{[]string{"init", ".", "-o", def, "--force"}, def},
		{[]string{"load", "http://127.0.0.1:1/", "--bench-out", def}, def},
		{[]string{"load", "http://127.0.0.1:1/", "--hdr-log", def + "-shm"}, def + "-shm"},
	} {
		before := readAll(t, db, def)
		_, stderr, code := perflab(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, "would overwrite "+shownPath(tc.store)) || !strings.Contains(stderr, "a file of the perflab store") {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 naming %s", tc.args, code, stderr, tc.store)
		}
		if after := readAll(t, db, def); !bytes.Equal(before, after) {
			t.Errorf("%q changed the store", tc.args)
		}
	}
	for _, p := range []string{db, def} {
		if out, stderr, code := perflab(t, "runs", "--db", p); code != 0 || !strings.Contains(out, "poolmini") {
			t.Errorf("runs --db %s after the refusals: exit %d\n%s%s", p, code, out, stderr)
		}
	}
	// Another file is written as before.
	md := filepath.Join(dir, "report.md")
	if _, stderr, code := perflab(t, "report", "1", "--db", db, "-o", md); code != 0 || !strings.Contains(readFile(t, md), "# poolmini") {
		t.Errorf("report -o another file: exit %d\n%s", code, stderr)
	}
}

// syntheticDBAt is syntheticDB at a path of the test's choosing.
func syntheticDBAt(t *testing.T, path string, opts ...testrun.Options) string {
	t.Helper()
	src := syntheticDB(t, opts...)
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func readAll(t *testing.T, paths ...string) []byte {
	t.Helper()
	var b []byte
	for _, p := range paths {
		d, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, d...)
	}
	return b
}

// TestReadingCommandsWriteNothing: the commands that only read leave any
// --db as it was — another program's database keeps its journal mode, an
// empty file stays empty, a missing one is not made — and say so; a
// read-only copy of a store is listed, reported, compared and exported.
func TestReadingCommandsWriteNothing(t *testing.T) {
	dir := t.TempDir()
	foreign := filepath.Join(dir, "foreign.db")
	raw, err := sql.Open("sqlite", foreign)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`CREATE TABLE t(x); INSERT INTO t VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	empty := filepath.Join(dir, "empty.db")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.db")
	readers := [][]string{
		{"runs"}, {"report", "1"}, {"export", "1"}, {"analyze", "1"}, {"compare", "1", "2"},
		{"history", "Pool/mode=serial/size=64/variant=plain/reuse=25"},
	}
	for _, tc := range []struct {
		db, want string
	}{
		{foreign, "not a perflab one"},
		{empty, "no perflab store at " + empty + "; run a measuring command first or pass --db"},
		{missing, "no perflab store at " + missing},
	} {
		for _, r := range readers {
			before, _ := os.ReadFile(tc.db)
			_, stderr, code := perflab(t, append(r, "--db", tc.db)...)
			if code != exitFailed || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s --db %s: exit %d, stderr %q; want exit 1 and %q", r[0], tc.db, code, stderr, tc.want)
			}
			after, err := os.ReadFile(tc.db)
			if tc.db == missing {
				if err == nil {
					t.Errorf("%s made %s", r[0], missing)
				}
			} else if !bytes.Equal(before, after) {
				t.Errorf("%s --db %s changed the file (header bytes 18-19: %v → %v)", r[0], tc.db, before[18:20], after[18:20])
			}
		}
	}
	// A read-only copy: the file 0444 in a 0555 directory.
	src := syntheticDB(t, testrun.Options{Seed: 1}, testrun.Options{Seed: 2})
	roDir := filepath.Join(dir, "ro")
	if err := os.Mkdir(roDir, 0o755); err != nil {
		t.Fatal(err)
	}
	cp := syntheticDBAt(t, filepath.Join(roDir, "copy.db"))
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cp, data, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(cp, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(roDir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(roDir, 0o755) })
	for _, r := range readers {
		if out, stderr, code := perflab(t, append(r, "--db", cp)...); code != 0 || out == "" {
			t.Errorf("%s of a read-only copy: exit %d\n%s", r[0], code, stderr)
		}
	}
	if after, _ := os.ReadFile(cp); !bytes.Equal(after, data) {
		t.Error("the read-only copy changed")
	}
}

// TestDamagedRowSkipped: a run whose stored time is damaged is left out of
// runs and history with a warning naming it; the rest still shows.
func TestDamagedRowSkipped(t *testing.T) {
	db := syntheticDB(t, testrun.Options{Seed: 1}, testrun.Options{Seed: 2}, testrun.Options{Seed: 3})
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE runs SET started_at = 'not a time' WHERE id = 2`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"runs"}, []string{"\n1 ", "\n3 "}},
		{[]string{"history", "Pool/mode=serial/size=64/variant=plain/reuse=25"}, []string{"over 2 runs"}},
	} {
		out, stderr, code := perflab(t, append(tc.args, "--db", db)...)
		if code != 0 || !strings.Contains(stderr, `run 2: stored time "not a time" is damaged`) || !strings.Contains(stderr, "skipped") {
			t.Errorf("%s: exit %d, stderr %q; want exit 0 and a warning naming run 2", tc.args[0], code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s lacks %q:\n%s", tc.args[0], w, out)
			}
		}
	}
	if _, stderr, code := perflab(t, "report", "2", "--db", db); code != exitFailed || !strings.Contains(stderr, "damaged") {
		t.Errorf("report of the damaged run: exit %d, %q", code, stderr)
	}
}

// TestSmallerRefusals: each is refused, naming what is wrong, before
// anything is written.
func TestSmallerRefusals(t *testing.T) {
	db := syntheticDB(t, testrun.Options{Seed: 1}, testrun.Options{Seed: 2})
	export := filepath.Join(t.TempDir(), "one.txt")
	out, _, code := perflab(t, "export", "1", "--db", db)
	if code != 0 {
		t.Fatal("export failed")
	}
	if err := os.WriteFile(export, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	nan := filepath.Join(t.TempDir(), "nan.txt")
	if err := os.WriteFile(nan, []byte(strings.Repeat("BenchmarkPool/mode=serial/size=64/variant=plain/reuse=25 100 NaN ns/op\n", 8)), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"compare", "1", "2", "--db", db, "--map", "nosuch=other"}, 2, `--map: OLD has no config "nosuch" (its configs: default); NEW has no config "other" (its configs: default)`},
		{[]string{"compare", "1", "2", "--db", db, "--map", "default=other"}, 2, `NEW has no config "other"`},
		{[]string{"compare", export, export, "--map", "x=default"}, 2, `OLD has no config "x"`},
		{[]string{"analyze", export, "--axis", "nosuch"}, 2, `--axis "nosuch": no benchmark name has a /nosuch=… level (the keys are: mode, size, variant, reuse)`},
		{[]string{"analyze", "1", "--db", db, "--by", "nosuch"}, 2, `--by "nosuch"`},
		{[]string{"run", filepath.Join("..", "..", "engine", "testdata", "tiny", "spec.toml"), "--shard", "1/2", "--db", fresh}, 1, "--shard K/N and --run-key KEY go together"},
		{[]string{"serve", "--db", db, "--addr", "0.0.0.0:0"}, 2, "--addr 0.0.0.0:0 is reachable from other machines"},
		{[]string{"serve", "--db", db, "--addr", ":0"}, 2, "reachable from other machines"},
		{[]string{"serve", "--db", db, "--addr", "nohost"}, 2, "want host:port"},
		{[]string{"analyze", "/dev/zero"}, 1, "line 1 is longer than 1 MiB"},
		{[]string{"compare", nan, export, "--fail-on", "sec/op>+5%"}, 1, "8 values that are not numbers left out (" + nan + ":1: NaN sec/op"},
	} {
		_, stderr, code := perflab(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Errorf("run --shard without --run-key made %s", fresh)
	}
	// The maps that name configs both sides have still pair them.
	if _, stderr, code := perflab(t, "compare", "1", "2", "--db", db, "--map", "default=default"); code != 0 {
		t.Errorf("--map default=default: exit %d\n%s", code, stderr)
	}
}
