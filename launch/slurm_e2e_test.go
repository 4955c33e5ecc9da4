//go:build linux

package launch_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/perflab/perflab/internal/pgtest"
	"github.com/perflab/perflab/internal/slurmtest"
	"github.com/perflab/perflab/internal/workmod"
	"github.com/perflab/perflab/store"
)

// e2e is one end-to-end Slurm test: a cluster, a database, perflab built
// from this tree, and a directory for the tasks' homes and logs.
type e2e struct {
	t       *testing.T
	slurm   *slurmtest.Cluster
	dsn     string
	perflab string
	dir     string
}

func newE2E(t *testing.T) *e2e {
	if testing.Short() {
		t.Skip("builds perflab and runs a Slurm job array")
	}
	s := slurmtest.ForTest(t)
	pg := pgtest.ForTest(t)
	e := &e2e{t: t, slurm: s, dsn: pg.NewDatabaseT(t), dir: t.TempDir()}
	// The schema first, as perflab makes it: this test's own queries
	// (psql's too) take no part in the shards' one-at-a-time migration.
	db, err := store.Open(e.dsn)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	e.perflab = filepath.Join(e.dir, "perflab")
	build := exec.Command("go", "build", "-o", e.perflab, "github.com/perflab/perflab/cmd/perflab")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build perflab: %v\n%s", err, out)
	}
	return e
}

// script writes the sbatch script perflab slurm writes for args, with the
// URL in a file only the tasks read.
func (e *e2e) script(args ...string) string {
	dbFile := filepath.Join(e.dir, "dsn")
	if err := os.WriteFile(dbFile, []byte(e.dsn+"\n"), 0o600); err != nil {
		e.t.Fatal(err)
	}
	argv := append([]string{"slurm", "--perflab", e.perflab, "--db-file", dbFile, "--exclusive=false", "--cpus", "1",
		"--output", filepath.Join(e.dir, "task-%a.out")}, args...)
	cmd := exec.Command(e.perflab, argv...)
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("perflab %s: %v", strings.Join(argv, " "), err)
	}
	e.t.Logf("$ perflab %s\n%s", strings.Join(argv, " "), out)
	p := filepath.Join(e.dir, "job.sbatch")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// submit runs sbatch with perflab's home and cache in the test directory.
func (e *e2e) submit(script string) string {
	job, err := e.slurm.Submit(script, "PERFLAB_HOME="+filepath.Join(e.dir, "home"), "PERFLAB_CACHE="+filepath.Join(e.dir, "cache"))
	if err != nil {
		e.t.Fatal(err)
	}
	return job
}

// psql logs the output of query run by psql against the database, as a
// user would see it; nothing where psql is not installed.
func (e *e2e) psql(query string) {
	bin, err := exec.LookPath("psql")
	if err != nil {
		return
	}
	out, err := exec.Command(bin, e.dsn, "-c", query).CombinedOutput()
	if err != nil {
		e.t.Errorf("psql: %v\n%s", err, out)
	}
	e.t.Logf("$ psql \"$PERFLAB_DB\" -c %q\n%s", query, out)
}

// taskLogs is every task's output, for a failure.
func (e *e2e) taskLogs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(e.dir, "task-*.out"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		fmt.Fprintf(&b, "\n--- %s:\n%s", filepath.Base(f), data)
	}
	return b.String()
}

// roundsOf counts the stored rounds of shard k of the run under key.
func roundsOf(db *sql.DB, key string, shard int) int {
	var n int
	db.QueryRow(`SELECT count(*) FROM rounds r JOIN runs u ON u.id = r.run_id WHERE u.run_key = $1 AND r.shard = $2`, key, shard).Scan(&n)
	return n
}

// killOneShard waits until shard 2 (array task 1) has stored a round but
// not all of its planned ones (when planned > 0), kills it with SIGKILL,
// and returns the rounds it had stored, each with when it was stored.
func (e *e2e) killOneShard(ctx context.Context, job, key string, planned int) map[int]string {
	db, err := sql.Open("pgx", e.dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	var before int
	for before = roundsOf(db, key, 2); before < 1; before = roundsOf(db, key, 2) {
		select {
		case <-ctx.Done():
			e.t.Fatalf("shard 2 stored no round: %v%s%s", ctx.Err(), e.taskLogs(), e.slurm.Logs())
		case <-time.After(50 * time.Millisecond):
		}
	}
	// SIGKILL to the task's batch step, which is perflab (the script
	// execs it): no signal it could catch first, as when a node dies.
	task := job + "_1"
	if out, err := e.slurm.Command("scancel", "--batch", "--signal=KILL", task).CombinedOutput(); err != nil {
		e.t.Fatalf("scancel --batch --signal=KILL %s: %v %s", task, err, out)
	}
	tasks, err := e.slurm.Wait(ctx, job, func(ts []slurmtest.Task) bool { return taskDone(ts, 1) })
	if err != nil {
		e.t.Fatal(err)
	}
	killed := storedRounds(e.t, db, key, 2)
	for _, ts := range tasks {
		if ts.Index == 1 {
			e.t.Logf("$ scancel --batch --signal=KILL %s  (shard 2 had stored %d rounds; the task ended %s, exit %s)", task, len(killed), ts.State, ts.ExitCode)
		}
	}
	if planned > 0 && len(killed) >= planned {
		e.t.Fatalf("shard 2 stored all %d of its rounds before it was killed: the test kills too late", len(killed))
	}
	return killed
}

// storedRounds returns shard k's stored rounds, each with when it was
// stored.
func storedRounds(t *testing.T, db *sql.DB, key string, k int) map[int]string {
	rows, err := db.Query(`SELECT r.round, r.done_at FROM rounds r JOIN runs u ON u.id = r.run_id WHERE u.run_key = $1 AND r.shard = $2`, key, k)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var round int
		var done string
		if err := rows.Scan(&round, &done); err != nil {
			t.Fatal(err)
		}
		out[round] = done
	}
	return out
}

// checkKept checks that the rounds a killed shard had stored are still
// stored, as they were: the requeued shard ran the rest, not them again.
func (e *e2e) checkKept(key string, killed map[int]string) {
	db, err := sql.Open("pgx", e.dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	after := storedRounds(e.t, db, key, 2)
	for round, done := range killed {
		if after[round] != done {
			e.t.Errorf("round %d, stored at %s before the kill, is now stored at %q", round, done, after[round])
		}
	}
	e.t.Logf("shard 2: %d rounds stored before SIGKILL, all kept as they were; %d after the requeue", len(killed), len(after))
}

func taskDone(ts []slurmtest.Task, index int) bool {
	for _, t := range ts {
		if t.Index == index {
			return t.Done()
		}
	}
	return false
}

func allDone(ts []slurmtest.Task) bool {
	for _, t := range ts {
		if !t.Done() {
			return false
		}
	}
	return len(ts) > 0
}

// finish waits for the other task to end, checks that the run waits for
// the killed shard, requeues it and waits until every task completed.
func (e *e2e) finish(ctx context.Context, job, key string) {
	if _, err := e.slurm.Wait(ctx, job, func(ts []slurmtest.Task) bool { return taskDone(ts, 0) }); err != nil {
		e.t.Fatalf("%v%s", err, e.taskLogs())
	}
	db, err := sql.Open("pgx", e.dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	var status string
	if err := db.QueryRow(`SELECT status FROM runs WHERE run_key = $1`, key).Scan(&status); err != nil || status != "running" {
		e.t.Errorf("with shard 2 killed and shard 1 done, the run is %q (%v), want running", status, err)
	}
	e.t.Logf("shard 1 done, shard 2 killed: run %s is %s", key, status)
	task := job + "_1"
	if err := e.slurm.Requeue(task); err != nil {
		e.t.Fatal(err)
	}
	e.t.Logf("$ scontrol requeue %s", task)
	tasks, err := e.slurm.Wait(ctx, job, allDone)
	if err != nil {
		e.t.Fatalf("%v%s%s", err, e.taskLogs(), e.slurm.Logs())
	}
	for _, ts := range tasks {
		if ts.State != "COMPLETED" {
			e.t.Fatalf("task %s ended %s (exit %s)%s", ts.ID, ts.State, ts.ExitCode, e.taskLogs())
		}
	}
	for _, ts := range tasks {
		if want := map[int]int{0: 0, 1: 1}[ts.Index]; ts.Restarts != want {
			e.t.Errorf("task %s restarted %d times, want %d", ts.ID, ts.Restarts, want)
		}
	}
}

// checkRounds checks the run stored under key: each planned round once
// (planned: a run of fixed rounds; 0: a sequential one, whose rounds each
// shard adds until the pooled decision), each run by its shard on a
// recorded machine, every cell once a round, and the run complete. It
// logs the rounds as a table.
func (e *e2e) checkRounds(key string, planned, shards, cells int) *store.Run {
	ctx := context.Background()
	db, err := store.Open(e.dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	defer db.Close()
	raw, err := sql.Open("pgx", e.dsn)
	if err != nil {
		e.t.Fatal(err)
	}
	defer raw.Close()
	var id int64
	if err := raw.QueryRow(`SELECT id FROM runs WHERE run_key = $1`, key).Scan(&id); err != nil {
		e.t.Fatalf("no run under key %s: %v", key, err)
	}
	run, err := db.GetRun(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	rounds, err := db.Rounds(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	var table strings.Builder
	fmt.Fprintf(&table, "run %d (key %s) %s:\n round | shard | host_id | cores\n", id, key, run.Status)
	seen := map[int]int{}
	for _, r := range rounds {
		seen[r.Round]++
		fmt.Fprintf(&table, " %5d | %5d | %s | %d\n", r.Round, r.Machine.Shard, r.Machine.HostID, r.Machine.Cores)
		if want := (r.Round-1)%shards + 1; r.Machine.Shard != want {
			e.t.Errorf("round %d ran on shard %d, want %d", r.Round, r.Machine.Shard, want)
		}
		if r.Machine.HostID == "" || r.Machine.CPUModel == "" || r.Machine.Cores < 1 {
			e.t.Errorf("round %d: machine not recorded: %+v", r.Round, r.Machine)
		}
	}
	e.t.Log(table.String())
	e.psql(`SELECT shard, host_id, count(*) AS rounds, min(round) AS first, max(round) AS last, count(DISTINCT round) AS distinct_rounds FROM rounds GROUP BY shard, host_id ORDER BY shard`)
	for round := 1; round <= max(planned, run.RoundsPlanned); round++ {
		if seen[round] != 1 {
			e.t.Errorf("round %d stored %d times, want once", round, seen[round])
		}
	}
	if planned > 0 && len(rounds) != planned {
		e.t.Errorf("%d rounds stored, want %d", len(rounds), planned)
	}
	planned = len(rounds)
	results, err := db.Results(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	perCell := map[string]int{}
	for _, r := range results {
		perCell[fmt.Sprintf("%s %s@%s", r.GetConfig("round"), r.Name.Full(), r.GetConfig("config"))]++
	}
	for k, n := range perCell {
		if n != 1 {
			e.t.Errorf("%s stored %d times", k, n)
		}
	}
	if len(perCell) != planned*cells {
		e.t.Errorf("%d (round, cell) samples stored, want %d rounds × %d cells", len(perCell), planned, cells)
	}
	if run.Status != "complete" {
		e.t.Errorf("run %d is %s, want complete", id, run.Status)
	}
	return run
}

// TestSlurmShardedRunSurvivesAKilledTask runs a spec as two array tasks of
// a real Slurm cluster into PostgreSQL, kills one task with SIGKILL in the
// middle of its rounds, requeues it, and checks that the run completes
// with every round stored once, by its shard, nothing lost.
func TestSlurmShardedRunSurvivesAKilledTask(t *testing.T) {
	e := newE2E(t)
	spec, err := filepath.Abs(filepath.Join("testdata", "shardtiny", "spec.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const key, planned = "slurm-run-1", 16
	script := e.script(spec, "--shards", "2", "--run-key", key, "--seed", "7", "--", "--quick", "--rounds", fmt.Sprint(planned), "--no-profile")
	job := e.submit(script)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	killed := e.killOneShard(ctx, job, key, planned/2)
	e.finish(ctx, job, key)
	e.checkRounds(key, planned, 2, 2)
	e.checkKept(key, killed)
}

// TestSlurmShardedABSurvivesAKilledTask compares two commits as two array
// tasks of a real Slurm cluster, sampling sequentially within a budget:
// each shard builds both sides, runs its own rounds and layouts, and
// stops on the one decision the judge pools over both. One task is killed
// with SIGKILL in its initial pass and requeued: the run completes with
// every round stored once, none lost, and the last shard prints the
// pooled verdict, as perflab report does.
func TestSlurmShardedABSurvivesAKilledTask(t *testing.T) {
	e := newE2E(t)
	repo, _ := workmod.Repo(t, workmod.Commit{Steps: 1000, Subject: "work: 1000 steps"}, workmod.Commit{Steps: 10000, Subject: "work: 10000 steps"})
	const key = "slurm-ab-1"
	script := e.script("ab", "HEAD~1", "HEAD", ".", "--shards", "2", "--run-key", key, "--seed", "5", "--chdir", repo,
		"--", "-bench", "Work", "--benchtime", "10ms", "--budget", "3m")
	job := e.submit(script)
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	killed := e.killOneShard(ctx, job, key, 0)
	e.finish(ctx, job, key)
	run := e.checkRounds(key, 0, 2, 2)
	if run.Plan.Stop.Reason != store.StopDecided || run.Plan.Shards != 2 {
		t.Errorf("run stopped %+v with %d shards, want decided over 2", run.Plan.Stop, run.Plan.Shards)
	}
	logs := e.taskLogs()
	if strings.Count(logs, "every compared ratio is decided (pooled over the shards)") < 2 {
		t.Errorf("both shards must stop on the pooled decision:%s", logs)
	}
	var said []string
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "---") || strings.Contains(line, "stops sampling") || strings.Contains(line, "still at work") || strings.Contains(line, "BenchmarkWork") {
			said = append(said, line)
		}
	}
	t.Logf("the tasks' logs, in part:\n%s", strings.Join(said, "\n"))
	report := exec.Command(e.perflab, "report", fmt.Sprint(run.ID), "--db", e.dsn)
	report.Env = append(os.Environ(), "PERFLAB_HOME="+filepath.Join(e.dir, "home"))
	out, err := report.CombinedOutput()
	if err != nil {
		t.Fatalf("perflab report: %v\n%s", err, out)
	}
	t.Logf("$ perflab report %d --db URL\n%s", run.ID, out)
	// The last shard prints the pooled comparison, the others none; the
	// report says the same of the same rounds.
	if n := strings.Count(logs, "still at work"); n != 1 {
		t.Errorf("%d shards said the run goes on without them, want 1:%s", n, logs)
	}
	if !strings.Contains(logs, "slower") || !strings.Contains(string(out), "differs from 1") {
		t.Errorf("the pooled verdict is missing from the last shard's output or the report:%s\n%s", logs, out)
	}
	e.checkKept(key, killed)
}
