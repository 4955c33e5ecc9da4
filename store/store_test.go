package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// openTemp opens a fresh database in a temporary directory.
// Inside TestStoreSuitePostgres's child process it is a fresh PostgreSQL
// database instead.
func openTemp(t testing.TB) *DB {
	t.Helper()
	path := filepath.Join(t.TempDir(), "perflab.db")
	if c := pgSuiteCluster(); c != nil {
		path = c.NewDatabaseT(t)
	}
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newRun creates a run and returns its ID.
func newRun(t testing.TB, db *DB, experiment string) int64 {
	t.Helper()
	id, err := db.CreateRun(context.Background(), &Run{Experiment: experiment, Mode: "quick"})
	if err != nil {
		t.Fatalf("CreateRun: %v", err)
	}
	return id
}

func TestOpenPragmas(t *testing.T) {
	skipOnPostgres(t)
	db := openTemp(t)
	ctx := context.Background()
	for _, tc := range []struct{ pragma, want string }{
		{"journal_mode", "wal"},
		{"busy_timeout", "5000"},
		{"foreign_keys", "1"},
	} {
		var got string
		if err := db.sql.QueryRowContext(ctx, "PRAGMA "+tc.pragma).Scan(&got); err != nil {
			t.Fatalf("PRAGMA %s: %v", tc.pragma, err)
		}
		if got != tc.want {
			t.Errorf("PRAGMA %s = %q, want %q", tc.pragma, got, tc.want)
		}
	}
	v, err := db.readVersion(ctx, db.sql)
	if err != nil || v != schemaVersion() {
		t.Errorf("schema version = %d, %v; want %d", v, err, schemaVersion())
	}
	if db.Path() == "" || !strings.HasSuffix(db.Path(), "perflab.db") {
		t.Errorf("Path() = %q", db.Path())
	}
}

func TestOpenOddPaths(t *testing.T) {
	for _, name := range []string{"plain.db", "with space.db", "q?uestion.db", "hash#tag.db", "per%20cent.db", "ünï.db"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			db, err := Open(path)
			if err != nil {
				t.Fatalf("Open(%q): %v", path, err)
			}
			newRun(t, db, "x")
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("database file not at %q: %v", path, err)
			}
		})
	}
}

func TestRunRoundTrip(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	base := time.Date(2026, 3, 1, 12, 0, 0, 123456789, time.FixedZone("X", 3600))
	tests := []struct {
		name string
		run  Run
	}{
		{"full", Run{Experiment: "reuse", Mode: "full", SpecPath: "/specs/reuse.toml", SpecText: "name = \"reuse\"\n",
			Seed: -42, RoundsPlanned: 10, Status: "running", StartedAt: base, Plan: Plan{Mode: "full", Rounds: 10, Benchtime: "20ms", CPU: []int{1, 4},
				Cells: []Cell{{Bench: "BenchmarkX", Levels: []string{"n=1"}, Config: "base"}}, Sources: map[string]string{"base": "/src"},
				Sequential: true, Decide: &Decide{Unit: "cpu-sec/op", UnitChosen: true, Precision: 0.01, GateRatios: []float64{1.05}, MaxRounds: 500, Budget: time.Minute, Repeats: 5}}}},
		{"defaults", Run{Experiment: "bench", Mode: "quick"}},
		{"finished", Run{Experiment: "json", Mode: "custom", Seed: 1 << 62, Status: "complete",
			StartedAt: base.Add(time.Hour), FinishedAt: base.Add(2 * time.Hour)}},
		{"unicode and nul", Run{Experiment: pgText("ünï\x00code"), Mode: "quick", SpecText: pgText("a\x00b"), StartedAt: base.Add(-time.Hour)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.run
			before := time.Now()
			id, err := db.CreateRun(ctx, &r)
			if err != nil {
				t.Fatal(err)
			}
			if id == 0 || r.ID != id {
				t.Fatalf("CreateRun returned %d, r.ID = %d", id, r.ID)
			}
			if tc.run.Status == "" && r.Status != "running" {
				t.Errorf("default Status = %q, want running", r.Status)
			}
			if tc.run.StartedAt.IsZero() && (r.StartedAt.Before(before.Add(-time.Second)) || r.StartedAt.After(time.Now())) {
				t.Errorf("default StartedAt = %v, want about now", r.StartedAt)
			}
			got, err := db.GetRun(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, r) {
				t.Errorf("GetRun = %+v\nwant %+v", *got, r)
			}
			if !tc.run.StartedAt.IsZero() && !got.StartedAt.Equal(tc.run.StartedAt) {
				t.Errorf("StartedAt = %v, want %v", got.StartedAt, tc.run.StartedAt)
			}
			if !got.FinishedAt.Equal(tc.run.FinishedAt) {
				t.Errorf("FinishedAt = %v, want %v", got.FinishedAt, tc.run.FinishedAt)
			}
		})
	}

	// Runs: newest StartedAt first.
	runs, err := db.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var exps []string
	for _, r := range runs {
		exps = append(exps, r.Experiment)
	}
	if want := []string{"bench", "json", "reuse", pgText("ünï\x00code")}; !reflect.DeepEqual(exps, want) {
		t.Errorf("Runs order = %q, want %q", exps, want)
	}
	latest, err := db.LatestRun(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if latest.Experiment != "bench" {
		t.Errorf("LatestRun = %q, want bench", latest.Experiment)
	}

	// FinishRun sets status and finish time.
	if err := db.FinishRun(ctx, latest.ID, "interrupted"); err != nil {
		t.Fatal(err)
	}
	got, err := db.GetRun(ctx, latest.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != "interrupted" || got.FinishedAt.IsZero() || got.FinishedAt.Before(got.StartedAt) {
		t.Errorf("after FinishRun: status %q, finished %v (started %v)", got.Status, got.FinishedAt, got.StartedAt)
	}
	if err := db.FinishRun(ctx, latest.ID, ""); err == nil {
		t.Error("FinishRun with empty status succeeded")
	}
}

func TestCreateRunErrors(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	tests := []struct {
		name string
		run  *Run
	}{
		{"nil", nil},
		{"year too large", &Run{StartedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"finish year negative", &Run{FinishedAt: time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := db.CreateRun(ctx, tc.run); err == nil {
				t.Error("CreateRun succeeded, want error")
			}
		})
	}
	if runs, err := db.Runs(ctx); err != nil || len(runs) != 0 {
		t.Errorf("Runs after failed creates = %v, %v; want none", runs, err)
	}
}

func TestNotFound(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	if _, err := db.LatestRun(ctx); !errors.Is(err, ErrNotFound) {
		t.Errorf("LatestRun on empty database: %v, want ErrNotFound", err)
	}
	if runs, err := db.Runs(ctx); err != nil || len(runs) != 0 {
		t.Errorf("Runs on empty database = %v, %v", runs, err)
	}
	newRun(t, db, "exists")
	const missing = 99
	calls := []struct {
		name string
		call func() error
	}{
		{"GetRun", func() error { _, err := db.GetRun(ctx, missing); return err }},
		{"FinishRun", func() error { return db.FinishRun(ctx, missing, "complete") }},
		{"SetEnv", func() error { return db.SetEnv(ctx, missing, []KV{{"a", "b"}}) }},
		{"Env", func() error { _, err := db.Env(ctx, missing); return err }},
		{"AddConfig", func() error { return db.AddConfig(ctx, missing, Config{Name: "base"}) }},
		{"Configs", func() error { _, err := db.Configs(ctx, missing); return err }},
		{"AddRound", func() error { return db.AddRound(ctx, missing, 0, nil) }},
		{"Results", func() error { _, err := db.Results(ctx, missing); return err }},
		{"RoundsDone", func() error { _, err := db.RoundsDone(ctx, missing); return err }},
		{"SetUnitMeta", func() error { return db.SetUnitMeta(ctx, missing, nil) }},
		{"UnitMeta", func() error { _, err := db.UnitMeta(ctx, missing); return err }},
		{"AddArtifact", func() error { return db.AddArtifact(ctx, missing, Artifact{Kind: "cpu"}) }},
		{"Artifacts", func() error { _, err := db.Artifacts(ctx, missing); return err }},
		{"SetVerdicts", func() error { return db.SetVerdicts(ctx, missing, nil) }},
		{"Verdicts", func() error { _, err := db.Verdicts(ctx, missing); return err }},
		{"AddFailure", func() error { return db.AddFailure(ctx, missing, Failure{}) }},
		{"Failures", func() error { _, err := db.Failures(ctx, missing); return err }},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			err := c.call()
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("error = %v, want ErrNotFound", err)
			}
			if want := "run 99 not found in " + db.Path(); !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err, want)
			}
		})
	}
}

func TestEnv(t *testing.T) {
	tests := []struct {
		name  string
		calls [][]KV
		want  []KV
	}{
		{"empty", nil, nil},
		{"order kept", [][]KV{{{"goversion", "go1.26"}, {"cpu", "x"}, {"arch", "amd64"}}},
			[]KV{{"goversion", "go1.26"}, {"cpu", "x"}, {"arch", "amd64"}}},
		{"upsert keeps first position", [][]KV{{{"a", "1"}, {"b", "2"}}, {{"c", "3"}, {"a", "9"}}},
			[]KV{{"a", "9"}, {"b", "2"}, {"c", "3"}}},
		{"duplicate key in one call", [][]KV{{{"a", "1"}, {"b", "2"}, {"a", "3"}}},
			[]KV{{"a", "3"}, {"b", "2"}}},
		{"empty strings", [][]KV{{{"", ""}, {"k", ""}}}, []KV{{"", ""}, {"k", ""}}},
	}
	db := openTemp(t)
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := newRun(t, db, tc.name)
			for _, c := range tc.calls {
				if err := db.SetEnv(ctx, id, c); err != nil {
					t.Fatal(err)
				}
			}
			got, err := db.Env(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Env = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestConfigs(t *testing.T) {
	base := Config{Name: "base", BuildEnv: []string{"GOEXPERIMENT="}, BuildFlags: []string{"-gcflags=-N -l", "-tags=x"},
		ExecEnv: []string{"GOMAXPROCS=4", "GOGC=100"}, BinaryHash: "abc123"}
	empty := Config{Name: "empty", BuildEnv: []string{}, BuildFlags: []string{}, ExecEnv: []string{}}
	broken := Config{Name: "broken", Error: "build failed: exit status 1"}
	offline := Config{Name: "go1.22", BuildEnv: []string{"GOTOOLCHAIN=go1.22.12"}, Error: "go env failed",
		NotFetched: NotFetched{What: "toolchain go1.22.12", Why: "toolchain not available"}}
	base2 := base
	base2.BinaryHash = "def456"
	base2.ExecEnv = nil
	tests := []struct {
		name  string
		calls []Config
		want  []Config
	}{
		{"none", nil, nil},
		{"insertion order", []Config{base, broken, empty}, []Config{base, broken, empty}},
		{"not fetched", []Config{offline, base}, []Config{offline, base}},
		{"upsert keeps position", []Config{base, broken, base2}, []Config{base2, broken}},
	}
	db := openTemp(t)
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := newRun(t, db, tc.name)
			for _, c := range tc.calls {
				if err := db.AddConfig(ctx, id, c); err != nil {
					t.Fatal(err)
				}
			}
			got, err := db.Configs(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Configs = %#v\nwant %#v", got, tc.want)
			}
		})
	}
	if err := db.AddConfig(ctx, newRun(t, db, "x"), Config{}); err == nil {
		t.Error("AddConfig with empty name succeeded")
	}
}

func TestUnitMeta(t *testing.T) {
	tests := []struct {
		name  string
		calls [][]UnitMeta
		want  []UnitMeta
	}{
		{"none", nil, nil},
		{"order kept", [][]UnitMeta{{{"sec/op", "Assume", "nothing"}, {"hits/op", "Better", "higher"}}},
			[]UnitMeta{{"sec/op", "Assume", "nothing"}, {"hits/op", "Better", "higher"}}},
		{"upsert by unit and key", [][]UnitMeta{
			{{"sec/op", "Assume", "nothing"}, {"hits/op", "Better", "higher"}},
			{{"sec/op", "Assume", "exact"}, {"sec/op", "Better", "lower"}}},
			[]UnitMeta{{"sec/op", "Assume", "exact"}, {"hits/op", "Better", "higher"}, {"sec/op", "Better", "lower"}}},
	}
	db := openTemp(t)
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := newRun(t, db, tc.name)
			for _, c := range tc.calls {
				if err := db.SetUnitMeta(ctx, id, c); err != nil {
					t.Fatal(err)
				}
			}
			got, err := db.UnitMeta(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("UnitMeta = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestArtifactsAndFailures(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	id := newRun(t, db, "a")
	other := newRun(t, db, "b")
	arts := []Artifact{
		{Config: "base", Kind: "cpu", Path: "/tmp/run1/base.cpu.pprof", Bytes: 12345},
		{Config: "base", Cell: "BenchmarkX/n=1", Kind: "cpu", Path: "/tmp/run1/base/x/cpu.pprof", Bytes: 7},
		{Config: "green", Kind: "trace", Path: "/tmp/run1/green.trace", Bytes: 1 << 40},
		{Config: "base", Kind: "log", Path: "/tmp/run1/base.log"},
	}
	fails := []Failure{
		{Round: 0, Config: "green", Cell: "BenchmarkX/n=1", Reason: "exit status 2: panic"},
		{Round: 3, Config: "base", Cell: "BenchmarkY", Reason: "timeout"},
		{Round: 1, Config: "base", Cell: "BenchmarkZ", Reason: "needs GOEXPERIMENT=arenas", Skip: true},
	}
	for _, a := range arts {
		if err := db.AddArtifact(ctx, id, a); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range fails {
		if err := db.AddFailure(ctx, id, f); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.AddArtifact(ctx, other, Artifact{Kind: "heap"}); err != nil {
		t.Fatal(err)
	}
	gotA, err := db.Artifacts(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotA, arts) {
		t.Errorf("Artifacts = %+v, want %+v", gotA, arts)
	}
	gotF, err := db.Failures(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotF, fails) {
		t.Errorf("Failures = %+v, want %+v", gotF, fails)
	}
	if gotF, err := db.Failures(ctx, other); err != nil || gotF != nil {
		t.Errorf("Failures of other run = %+v, %v; want none", gotF, err)
	}
}

func TestVerdictsReplace(t *testing.T) {
	v1 := []Verdict{
		{ClaimID: "reuse-25", Verdict: "reproduced", Claimed: "2x faster", Measured: "2.1x (CI 1.9-2.3)", Reason: "p=0.002"},
		{ClaimID: "reuse-75", Verdict: "inconclusive", Claimed: "no change", Measured: "+1%", Reason: "p=0.4"},
	}
	v2 := []Verdict{{ClaimID: "json", Verdict: "not testable", Reason: "needs 64 cores"}}
	tests := []struct {
		name  string
		calls [][]Verdict
		want  []Verdict
	}{
		{"none", nil, nil},
		{"set", [][]Verdict{v1}, v1},
		{"replace", [][]Verdict{v1, v2}, v2},
		{"clear", [][]Verdict{v1, nil}, nil},
	}
	db := openTemp(t)
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id := newRun(t, db, tc.name)
			for _, c := range tc.calls {
				if err := db.SetVerdicts(ctx, id, c); err != nil {
					t.Fatal(err)
				}
			}
			got, err := db.Verdicts(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Verdicts = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "perflab.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	id := newRun(t, db, "persist")
	want := readTestResults(t)
	steps := []error{
		db.SetEnv(ctx, id, []KV{{"goversion", "go1.26.8"}}),
		db.AddConfig(ctx, id, Config{Name: "base", ExecEnv: []string{"GOGC=off"}}),
		db.AddRound(ctx, id, 0, want),
		db.SetUnitMeta(ctx, id, []UnitMeta{{"sec/op", "Assume", "nothing"}}),
		db.AddArtifact(ctx, id, Artifact{Config: "base", Kind: "cpu", Path: "/p", Bytes: 1}),
		db.SetVerdicts(ctx, id, []Verdict{{ClaimID: "c", Verdict: "reproduced"}}),
		db.AddFailure(ctx, id, Failure{Round: 0, Config: "base", Cell: "B", Reason: "r"}),
		db.FinishRun(ctx, id, "complete"),
	}
	for i, err := range steps {
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	before, err := db.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	after, err := db.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("run after reopen = %+v, want %+v", after, before)
	}
	got, err := db.Results(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	compareResults(t, got, want)
	counts := []struct {
		name string
		n    func() (int, error)
	}{
		{"env", func() (int, error) { v, err := db.Env(ctx, id); return len(v), err }},
		{"configs", func() (int, error) { v, err := db.Configs(ctx, id); return len(v), err }},
		{"unit meta", func() (int, error) { v, err := db.UnitMeta(ctx, id); return len(v), err }},
		{"artifacts", func() (int, error) { v, err := db.Artifacts(ctx, id); return len(v), err }},
		{"verdicts", func() (int, error) { v, err := db.Verdicts(ctx, id); return len(v), err }},
		{"failures", func() (int, error) { v, err := db.Failures(ctx, id); return len(v), err }},
		{"rounds", func() (int, error) { v, err := db.RoundsDone(ctx, id); return len(v), err }},
	}
	for _, c := range counts {
		if n, err := c.n(); err != nil || n != 1 {
			t.Errorf("%s after reopen: %d entries, %v; want 1", c.name, n, err)
		}
	}
}

func TestTwoHandlesOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	idA := newRun(t, a, "from a")
	if err := b.AddRound(ctx, idA, 0, readTestResults(t)[:2]); err != nil {
		t.Fatalf("AddRound through second handle: %v", err)
	}
	got, err := a.Results(ctx, idA)
	if err != nil || len(got) != 2 {
		t.Errorf("Results through first handle: %d results, %v; want 2", len(got), err)
	}
}

func TestNewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "future.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.sql.ExecContext(context.Background(), `UPDATE meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(path)
	if err == nil {
		t.Fatal("Open of a newer-schema database succeeded")
	}
	want := fmt.Sprintf("database %s was written by a newer perflab (schema 99 > %d); upgrade perflab or use another --db", path, len(migrations))
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
}

// writeFile writes data to a new file in dir and returns its path.
func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenBadFiles(t *testing.T) {
	garbage, err := os.ReadFile("testdata/garbage.db")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the path to open
		want  string                                // substring of the error
	}{
		{"text file", func(t *testing.T, dir string) string {
			return writeFile(t, dir, "garbage.db", garbage)
		}, "not a SQLite database or is damaged"},
		{"zeros", func(t *testing.T, dir string) string {
			return writeFile(t, dir, "zeros.db", make([]byte, 8192))
		}, "not a SQLite database or is damaged"},
		{"damaged sqlite", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "damaged.db")
			db, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			newRun(t, db, "x")
			db.Close()
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for i := 100; i < len(data); i++ {
				data[i] = 0xA5
			}
			return writeFile(t, dir, "damaged.db", data)
		}, "damaged"},
		{"other program's sqlite", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "other.db")
			sdb, err := sql.Open("sqlite", p)
			if err != nil {
				t.Fatal(err)
			}
			defer sdb.Close()
			if _, err := sdb.Exec(`CREATE TABLE customers (id INTEGER PRIMARY KEY)`); err != nil {
				t.Fatal(err)
			}
			return p
		}, "not a perflab one"},
		{"damaged schema_version", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "meta.db")
			db, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.sql.ExecContext(context.Background(), `UPDATE meta SET value = 'seven' WHERE key = 'schema_version'`); err != nil {
				t.Fatal(err)
			}
			return p
		}, `damaged schema_version "seven"`},
		{"missing schema_version", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "meta.db")
			db, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.sql.ExecContext(context.Background(), `DELETE FROM meta`); err != nil {
				t.Fatal(err)
			}
			return p
		}, "without schema_version"},
		{"directory", func(t *testing.T, dir string) string { return dir }, "is a directory"},
		{"missing parent", func(t *testing.T, dir string) string {
			return filepath.Join(dir, "no", "such", "dir", "x.db")
		}, "check that its directory exists"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.setup(t, t.TempDir())
			db, err := Open(path)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) succeeded, want error", path)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the path %q", err, path)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
		})
	}
	if _, err := Open(""); err == nil {
		t.Error(`Open("") succeeded`)
	}
}

func TestOpenEmptyFile(t *testing.T) {
	path := writeFile(t, t.TempDir(), "empty.db", nil)
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open of an empty file: %v", err)
	}
	defer db.Close()
	newRun(t, db, "x")
}

// TestMigrateFromVersion1 opens a database written at schema version 1
// and checks that it is migrated in place, keeping its data.
func TestMigrateFromVersion1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "v1.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		migrations[0],
		`INSERT INTO meta(key, value) VALUES ('schema_version', '1')`,
		`INSERT INTO runs(id, experiment, mode, spec_path, spec_text, seed, rounds_planned, status, started_at, finished_at, note)
		 VALUES (1, 'old', 'quick', '', '', 1, 6, 'complete', '2026-01-01T00:00:00Z', '', '')`,
		`INSERT INTO artifacts(run_id, config, kind, path, bytes) VALUES (1, 'default', 'cpu', '/old/cpu.pprof', 10)`,
	} {
		if _, err := raw.Exec(q); err != nil {
			raw.Close()
			t.Skipf("cannot build a version-1 database by hand (%v); the schema's columns changed", err)
		}
	}
	raw.Close()
	db, err := Open(path)
	if err != nil {
		t.Fatalf("Open of a version-1 database: %v", err)
	}
	defer db.Close()
	arts, err := db.Artifacts(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(arts) != 1 || arts[0].Path != "/old/cpu.pprof" || arts[0].Cell != "" {
		t.Errorf("artifacts after migration = %+v", arts)
	}
}
