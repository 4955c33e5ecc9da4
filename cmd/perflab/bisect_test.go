package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/internal/workmod"
	"github.com/perflab/perflab/store"
)

// bisectRepo makes a throwaway repository of commits after GOOD, each
// setting BenchmarkWork's steps (0: a commit that does not build) and a
// subject; it returns the repository and every commit's hash, GOOD first.
func bisectRepo(t *testing.T, steps []int, subjects []string) (string, []string) {
	t.Helper()
	var commits []workmod.Commit
	for i, n := range steps {
		commits = append(commits, workmod.Commit{Steps: n, Subject: subjects[i]})
	}
	return workmod.Repo(t, commits...)
}

// TestBisectFindsTheCulprit bisects five commits after GOOD, where the
// second does not build and the fourth makes BenchmarkWork do four times
// the work: the culprit is named with its effect, the unbuildable commit
// is skipped and named, every step's rounds are a stored run with the
// bisect's env keys, the repository is left alone, and --resume reads
// every step back from the store without measuring again.
func TestBisectFindsTheCulprit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	subjects := []string{"work: 1000 steps", "work: comment", "work: broken", "work: fixed", "work: 4000 steps", "docs: nothing"}
	repo, hashes := bisectRepo(t, []int{1000, 1000, 0, 1000, 4000, 4000}, subjects)
	before := repoState(t, repo)
	tmp := t.TempDir()
	db := filepath.Join(tmp, "perflab.db")
	// One link per side (--layout fixed): the search is under test here,
	// and 40 rounds of 20 ms cells would give a step too few random
	// layouts for an interval (engine/layout_test.go covers layouts).
	args := []string{"bisect", hashes[0][:10], "main", ".", "-C", repo, "-bench", "Work", "--benchtime", "20ms", "--max-rounds", "40", "--layout", "fixed",
		"--db", db, "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"), "--markdown", filepath.Join(tmp, "bisect.md"), "--html", filepath.Join(tmp, "bisect.html")}
	out, stderr, code := perflab(t, args...)
	if code != 0 {
		t.Fatalf("bisect exited %d, want 0\n%s\n%s", code, out, stderr)
	}
	culprit := hashes[4][:12]
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{"Culprit: " + culprit + " work: 4000 steps", "Effect at the culprit: sec/op +", "over its parent " + hashes[3][:12],
		"work: broken", "skipped: does not build: ./work.go:3:1: syntax error", "BenchmarkWork", "How it was decided"} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(stderr, "skipping "+hashes[2][:12]+" (work: broken): does not build") {
		t.Errorf("stderr does not name the skipped commit:\n%s", stderr)
	}
	for _, f := range []string{"bisect.md", "bisect.html"} {
		if b, err := os.ReadFile(filepath.Join(tmp, f)); err != nil || !strings.Contains(string(b), culprit) {
			t.Errorf("%s does not name the culprit (%v)", f, err)
		}
	}
	if after := repoState(t, repo); after != before {
		t.Errorf("the repository changed:\n%s\nwas\n%s", after, before)
	}

	d, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	runs, err := d.Runs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Endpoints, then 2 (skipped), 1, 3 and 4: four measuring steps.
	if len(runs) != 4 {
		t.Fatalf("%d runs stored, want one per measuring step (4)", len(runs))
	}
	env, _ := d.Env(ctx, runs[0].ID)
	id := envValue(env, findings.BisectKey)
	stored, err := findings.BisectRuns(ctx, d, id)
	if err != nil || len(stored) != 4 {
		t.Fatalf("bisect %q's runs: %+v, %v", id, stored, err)
	}
	want := [][3]string{{hashes[0], "", hashes[5]}, {hashes[0], hashes[1], hashes[5]}, {hashes[1], hashes[3], hashes[5]}, {hashes[3], hashes[4], hashes[5]}}
	for i, r := range stored {
		if r.Step != i+1 || [3]string{r.Lo, r.Mid, r.Hi} != want[i] || r.Status != "complete" || r.RoundsStored < 8 {
			t.Errorf("step %d's run: %+v; want step %d of %v, complete, 8 rounds or more", i+1, r, i+1, want[i])
		}
	}
	d.Close()

	out2, stderr2, code := perflab(t, append(args, "--resume")...)
	if code != 0 || !strings.Contains(out2, "Culprit: "+culprit) {
		t.Fatalf("--resume exited %d:\n%s\n%s", code, out2, stderr2)
	}
	if strings.Contains(stderr2, "perflab: run ") || !strings.Contains(stderr2, "resuming bisect "+id) {
		t.Errorf("--resume measured again, or did not say what it resumed:\n%s", stderr2)
	}
}

// TestBisectErrors: arguments and histories bisect refuses, each with an
// error that says what to do.
func TestBisectErrors(t *testing.T) {
	repo, hashes := bisectRepo(t, []int{1000, 1000}, []string{"first", "second"})
	tmp := t.TempDir()
	common := []string{"-C", repo, "--db", filepath.Join(tmp, "p.db"), "--cache", filepath.Join(tmp, "cache")}
	withFile := filepath.Join(tmp, "extra_test.go")
	if err := os.WriteFile(withFile, []byte(workmod.ExtraTestGo), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bisect", "main"}, 1, "want GOOD and BAD"},
		{[]string{"bisect", "main~1", "main"}, 1, "-bench REGEX is required"},
		{[]string{"bisect", "main", "main~1", "-bench", "Work"}, 1, "comes after BAD"},
		{[]string{"bisect", "nosuch", "main", "-bench", "Work"}, 1, `GOOD "nosuch" is not a commit`},
		{[]string{"bisect", "main", "main", "-bench", "Work"}, 1, "nothing between them"},
		{[]string{"bisect", "main~1", "main", "./...", "-bench", "Work", "--with", withFile}, 1, "--with adds its files to one package, and ./... names several"},
		{[]string{"bisect", "main~1", "main", "-bench", "Work", "--min-effect", "x"}, 2, "want a change such as 2%"},
		{[]string{"bisect", "main~1", "main", "-bench", "Work", "--unit", "instructions/op"}, 1, "needs --measure instructions"},
		{[]string{"bisect", "main~1", "main", "-bench", "Work", "--alpha", "0.7"}, 1, "--alpha 0.7"},
		{[]string{"bisect", "main~1", "main", "-bench", "Work", "--resume"}, 1, "holds no bisect with these arguments"},
		{[]string{"bisect", "main~1", "main", "-bench", "Work", "--with", filepath.Join(tmp, "nosuch_test.go")}, 1, "--with: reading"},
	}
	for _, tc := range tests {
		_, stderr, code := perflab(t, append(tc.args, common...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	if testing.Short() {
		return
	}
	// Benchmarks that exist nowhere, and then on one side only.
	_, stderr, code := perflab(t, append([]string{"bisect", hashes[0], "main", "-bench", "Nope"}, common...)...)
	if code != 1 || !strings.Contains(stderr, `GOOD `+hashes[0][:12]+` (first): -bench "Nope" matches no benchmark; the package has: BenchmarkWork`) {
		t.Errorf("no benchmark: exit %d, stderr %q", code, stderr)
	}
	_, stderr, code = perflab(t, append([]string{"bisect", hashes[0], "main", "-bench", "Work", "--bench-for", "Other"}, common...)...)
	if code != 1 || !strings.Contains(stderr, "--bench-for Other: no such benchmark") {
		t.Errorf("--bench-for a benchmark not selected: exit %d, stderr %q", code, stderr)
	}
	// A budget whose share for the first step is below a step's least,
	// and endpoints whose benchmark fails whenever it is measured (it
	// lists, at one iteration): each a clear error, never a panic.
	_, stderr, code = perflab(t, append([]string{"bisect", hashes[0], "main", "-bench", "Work", "--budget", "1s"}, common...)...)
	if code != 1 || !strings.Contains(stderr, "s of --budget 1s and a step starts with 5s or more") || !strings.Contains(stderr, "or more would run the search") {
		t.Errorf("--budget 1s: exit %d, stderr %q", code, stderr)
	}
	boom := filepath.Join(tmp, "boom_test.go")
	if err := os.WriteFile(boom, []byte("package work\n\nimport \"testing\"\n\nfunc BenchmarkBoom(b *testing.B) {\n\tif b.N > 1 {\n\t\tpanic(\"boom\")\n\t}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = perflab(t, append([]string{"bisect", hashes[0], "main", "-bench", "Boom", "--with", boom, "--max-rounds", "8", "--layout", "fixed"}, common...)...)
	if code != 1 || !strings.Contains(stderr, "GOOD and BAD could not be measured: its benchmark fails") {
		t.Errorf("a benchmark that fails when measured: exit %d, stderr %q", code, stderr)
	}
}

// TestBisectNothingToBisect: GOOD and BAD run the same code, so they are
// not shown to differ by more than --min-effect: exit status 2 and
// "nothing to bisect", after one step.
func TestBisectNothingToBisect(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	repo, _ := bisectRepo(t, []int{1000, 1000, 1000}, []string{"first", "comment", "another comment"})
	tmp := t.TempDir()
	out, stderr, code := perflab(t, "bisect", "main~2", "main", "-C", repo, "-bench", "Work", "--benchtime", "20ms", "--max-rounds", "12", "--layout", "fixed",
		"--min-effect", "50%", "--db", filepath.Join(tmp, "p.db"), "--cache", filepath.Join(tmp, "cache"), "--out", filepath.Join(tmp, "runs"))
	if code != 2 || !strings.Contains(out, "othing to bisect") || strings.Count(stderr, "nothing to bisect") != 1 || strings.Contains(stderr, "step 2") {
		t.Errorf("exit %d; want 2 and nothing to bisect, said once, after the endpoints\n%s\n%s", code, out, stderr)
	}
}

// TestBisectInterruptAndResume stops a bisect with SIGINT while its
// midpoint step is measuring: it says how to continue, the step's run is
// stored as interrupted with its rounds, and --resume reads the endpoints
// from the store, pools the interrupted run's rounds with a new run of
// the same step and names the culprit.
func TestBisectInterruptAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perflab and runs test binaries")
	}
	bin := buildPerflab(t)
	repo, hashes := bisectRepo(t, []int{1000, 1000, 4000}, []string{"first", "comment", "work: 4000 steps"})
	tmp := t.TempDir()
	db := filepath.Join(tmp, "perflab.db")
	args := []string{"bisect", "main~2", "main", "-C", repo, "-bench", "Work", "--benchtime", "20ms", "--max-rounds", "40", "--layout", "fixed",
		"--db", db, "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache")}
	// A round of the midpoint step stores 4 results (the endpoints' 2).
	cmd, all, wait := startUntil(t, bin, "round 2/8 stored: 4 results", append(args, "-v")...)
	cmd.Process.Signal(os.Interrupt)
	wait()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(all.String(), "interrupted after 1 steps") || !strings.Contains(all.String(), "--resume") {
		t.Fatalf("after SIGINT: exit %d; want 1 and how to continue:\n%s", code, all.String())
	}
	d, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	runs, err := d.Runs(ctx)
	if err != nil || len(runs) != 2 {
		t.Fatalf("%d runs stored (%v), want the endpoints' and the interrupted step's", len(runs), err)
	}
	env, _ := d.Env(ctx, runs[0].ID)
	stored, err := findings.BisectRuns(ctx, d, envValue(env, findings.BisectKey))
	if err != nil || len(stored) != 2 || stored[1].Mid != hashes[1] || stored[1].Status != "interrupted" || stored[1].RoundsStored < 2 {
		t.Fatalf("the bisect's runs after SIGINT: %+v (%v); want the midpoint's run interrupted with its rounds", stored, err)
	}
	d.Close()

	out, stderr, code := perflab(t, append(args, "--resume")...)
	if code != 0 || !strings.Contains(out, "Culprit: "+hashes[2][:12]) {
		t.Fatalf("--resume exited %d:\n%s\n%s", code, out, stderr)
	}
	pooled := fmt.Sprintf("%d, %d", stored[1].ID, stored[1].ID+1)
	if !strings.Contains(out, pooled) || strings.Count(stderr, "perflab: run ") != 1 {
		t.Errorf("--resume did not measure the interrupted step once more, pooling runs %s:\n%s\n%s", pooled, out, stderr)
	}
}
