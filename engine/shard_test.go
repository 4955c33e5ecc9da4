package engine

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/perflab/perflab/internal/pgtest"
	"github.com/perflab/perflab/store"
)

// shardHelperEnv makes TestShardHelper run one shard: "DSN K N KEY CACHE".
const shardHelperEnv = "PERFLAB_ENGINE_SHARD_HELPER"

// shardOptions are the options every shard and the single-process run of
// these tests share: the same spec, seed and plan. A shard process writes
// its artifacts under art, a directory of the parent test, so a shard
// that is killed leaves nothing behind.
func shardOptions(t *testing.T, db *store.DB, cache, art string) Options {
	return Options{
		Spec: tinySpec(t), Mode: "quick", DB: db, ArtifactDir: art, CacheDir: cache,
		Seed: 42, Rounds: 6, Benchtime: "200x", NoProfile: true, NoiseRuns: 2, NamesOnly: true,
	}
}

// TestShardHelper is not a test: run as a child process by the shard tests,
// it runs one shard of a run, like "perflab run --shard K/N --run-key KEY".
func TestShardHelper(t *testing.T) {
	arg := os.Getenv(shardHelperEnv)
	if arg == "" {
		t.Skip("runs only as a shard process of the shard tests")
	}
	f := strings.Fields(arg)
	k, _ := strconv.Atoi(f[1])
	n, _ := strconv.Atoi(f[2])
	db, err := store.Open(f[0])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	opt := shardOptions(t, db, f[4], filepath.Join(f[4], fmt.Sprintf("artifacts-%d-%d", k, os.Getpid())))
	opt.Shard = &Shard{K: k, N: n, Key: f[3], Machine: store.Machine{HostID: fmt.Sprintf("host-%d", k)}}
	res, err := Run(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("shard %d/%d: run %d, %d rounds here, status %s", k, n, res.RunID, res.RoundsDone, res.Status)
}

func startShard(t *testing.T, dsn string, k, n int, key, cache string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestShardHelper$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d %s %s", shardHelperEnv, dsn, k, n, key, cache))
	out, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// cellRounds is the set of stored (round, cell) samples of a run, each with
// how often it is stored.
func cellRounds(t *testing.T, db *store.DB, runID int64) map[string]int {
	t.Helper()
	results, err := db.Results(context.Background(), runID)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int{}
	for _, r := range results {
		m[fmt.Sprintf("round %s %s@%s", r.GetConfig("round"), r.Name.Full(), r.GetConfig("config"))]++
	}
	return m
}

func waitAll(t *testing.T, cmds ...*exec.Cmd) {
	t.Helper()
	for i, c := range cmds {
		if err := c.Wait(); err != nil {
			b, _ := os.ReadFile(c.Stdout.(*os.File).Name())
			t.Fatalf("shard process %d: %v\n%s", i+1, err, b)
		}
	}
}

func TestShardsConcurrentOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries in several processes")
	}
	c := pgtest.ForTest(t)
	dsn := c.NewDatabaseT(t)
	cache := t.TempDir()
	// Warm the build cache so the shard processes do not build at once.
	single := openStore(t)
	want, err := Run(context.Background(), shardOptions(t, single, cache, t.TempDir()))
	if err != nil || want.Status != "complete" {
		t.Fatalf("single-process run: %+v, %v", want, err)
	}

	var cmds []*exec.Cmd
	for k := 1; k <= 3; k++ {
		cmds = append(cmds, startShard(t, dsn, k, 3, "sweep-1", cache))
	}
	waitAll(t, cmds...)

	db, err := store.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, err := db.Runs(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs in PostgreSQL = %d (%v), want exactly 1 shared run", len(runs), err)
	}
	run := runs[0]
	if run.Status != "complete" {
		t.Errorf("run status %q after all shards, want complete", run.Status)
	}
	got := cellRounds(t, db, run.ID)
	wantCells := cellRounds(t, single, want.RunID)
	const cells, rounds = 12, 6
	if len(got) != cells*rounds {
		t.Errorf("sharded run stores %d distinct (round, cell) samples, want %d cells × %d rounds", len(got), cells, rounds)
	}
	for k, n := range got {
		if n != 1 {
			t.Errorf("%s stored %d times", k, n)
		}
		if wantCells[k] != 1 {
			t.Errorf("%s is in the sharded run but not in the single-process run", k)
		}
	}
	if len(wantCells) != len(got) {
		t.Errorf("single-process run has %d (round, cell) samples, sharded %d", len(wantCells), len(got))
	}
	infos, err := db.Rounds(context.Background(), run.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, ri := range infos {
		if wantK := (ri.Round-1)%3 + 1; ri.Machine.Shard != wantK || ri.Machine.HostID != fmt.Sprintf("host-%d", wantK) {
			t.Errorf("round %d ran on %+v, want shard %d", ri.Round, ri.Machine, wantK)
		}
	}
	t.Logf("3 shards stored %d (round, cell) samples in run %d, each once, equal to the single-process run", len(got), run.ID)
}

func TestShardKilledAndRestarted(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries in several processes")
	}
	c := pgtest.ForTest(t)
	dsn := c.NewDatabaseT(t)
	cache := t.TempDir()
	raw, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()

	// Shard 1 of 2 runs rounds 1, 3 and 5; kill it once round 1 is stored.
	cmd := startShard(t, dsn, 1, 2, "kill-1", cache)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int
		raw.QueryRow(`SELECT count(*) FROM rounds`).Scan(&n)
		if n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("shard stored no round within 60s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	var before int
	raw.QueryRow(`SELECT count(*) FROM rounds`).Scan(&before)

	// Restarted with the same K it completes its rounds; shard 2 the rest.
	waitAll(t, startShard(t, dsn, 1, 2, "kill-1", cache), startShard(t, dsn, 2, 2, "kill-1", cache))

	db, err := store.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, _ := db.Runs(context.Background())
	if len(runs) != 1 || runs[0].Status != "complete" {
		t.Fatalf("runs = %+v, want one complete run", runs)
	}
	got := cellRounds(t, db, runs[0].ID)
	if len(got) != 12*6 {
		t.Errorf("stored %d distinct (round, cell) samples, want 72", len(got))
	}
	for k, n := range got {
		if n != 1 {
			t.Errorf("%s stored %d times", k, n)
		}
	}
	done, _ := db.RoundsDone(context.Background(), runs[0].ID)
	sort.Ints(done)
	if fmt.Sprint(done) != "[1 2 3 4 5 6]" {
		t.Errorf("rounds stored %v, want 1..6", done)
	}
	t.Logf("shard 1 killed with SIGKILL after %d round(s) stored; restarted, the run holds rounds %v, 72 samples, none twice", before, done)
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in, index string
		k, n      int
		ok        bool
	}{
		{"2/3", "", 2, 3, true},
		{"1/1", "", 1, 1, true},
		{"/3", "2", 3, 3, true},
		{"/3", "", 0, 0, false},
		{"/3", "3", 0, 0, false},
		{"/3", "x", 0, 0, false},
		{"4/3", "", 0, 0, false},
		{"0/3", "", 0, 0, false},
		{"2", "", 0, 0, false},
		{"a/b", "", 0, 0, false},
		{"", "", 0, 0, false},
	} {
		t.Run(tc.in+"@"+tc.index, func(t *testing.T) {
			t.Setenv("JOB_COMPLETION_INDEX", tc.index)
			k, n, err := ParseShard(tc.in)
			if (err == nil) != tc.ok || k != tc.k || n != tc.n {
				t.Errorf("ParseShard(%q) with index %q = %d, %d, %v; want %d, %d, ok=%v", tc.in, tc.index, k, n, err, tc.k, tc.n, tc.ok)
			}
		})
	}
}

func FuzzParseShard(f *testing.F) {
	for _, s := range []string{"1/3", "/3", "3/3", "-1/2", "1/-1", "9999999999999999999/1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, n, err := ParseShard(s)
		if err == nil && (k < 1 || k > n) {
			t.Errorf("ParseShard(%q) = %d/%d without error", s, k, n)
		}
	})
}
