package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// throwaway writes a module that is not perflab, with /n= sub-benchmarks.
func throwaway(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/throwaway\n\ngo 1.26\n",
		"sum/sum_test.go": `package sum

import (
	"strconv"
	"testing"
)

var sink int

func BenchmarkSum(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				s := 0
				for i := range n {
					s += i ^ s
				}
				sink = s
			}
		})
	}
}
`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestBenchOnThrowawayModule(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	mod := throwaway(t)
	tmp := t.TempDir()
	db := filepath.Join(tmp, "perflab.db")
	saved := filepath.Join(tmp, "saved.toml")
	out, stderr, code := perflab(t, "bench", "-C", mod, "./sum", "-bench", "Sum", "--axis", "n", "--rounds", "6", "--benchtime", "20000x",
		"--db", db, "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"), "--no-profile", "--save-spec", saved)
	if code != 0 {
		t.Fatalf("bench exited %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "4 benchmarks × 1 configs") || !strings.Contains(stderr, "round 6/6 stored") {
		t.Errorf("progress:\n%s", stderr)
	}
	// The results, not "(no claims)": a table per unit, with no table of
	// zero allocations. (B/op may catch a stray runtime allocation in a
	// sample, so only allocs/op is required to collapse.)
	for _, want := range []string{"sec/op:", "BenchmarkSum/n=10000", "95% interval"} {
		if !strings.Contains(out, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^(B/op, )?allocs/op: 0 for every benchmark$`).MatchString(out) {
		t.Errorf("bench output does not collapse the all-zero allocs/op into one line:\n%s", out)
	}
	if strings.Contains(out, "(no claims)") {
		t.Errorf("bench output says (no claims) instead of results:\n%s", out)
	}
	d, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	results, err := d.Results(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 4*6 {
		t.Errorf("stored %d results, want 24 (4 benchmarks × 6 rounds)", len(results))
	}
	s, err := spec.Load(saved)
	if err != nil {
		t.Fatalf("--save-spec wrote an invalid spec: %v", err)
	}
	if len(s.Axes) != 1 || s.Axes[0].Key != "n" || s.Analysis.Axis != "n" || s.Package != "../"+filepath.Base(mod)+"/sum" && !strings.HasSuffix(s.Package, "/sum") {
		t.Errorf("saved spec: axes %+v, analysis %+v, package %q", s.Axes, s.Analysis, s.Package)
	}
	report, err := os.ReadFile(filepath.Join(tmp, "runs", "run-1", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(report), "| series \\ n |") {
		t.Errorf("report lacks the table along n:\n%.1500s", report)
	}
}

// TestBenchPackages: "./..." runs the benchmarks of every package that
// has some as one run, each result labelled with its package, and names
// the packages without any; --save-spec, whose spec names one package,
// refuses.
func TestBenchPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	mod := throwaway(t)
	other := strings.ReplaceAll(strings.ReplaceAll(readFile(t, filepath.Join(mod, "sum", "sum_test.go")), "package sum", "package other"), "BenchmarkSum", "BenchmarkOther")
	for name, text := range map[string]string{"other/other_test.go": other, "plain/plain.go": "package plain\n"} {
		p := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	db := filepath.Join(tmp, "perflab.db")
	args := []string{"bench", "-C", mod, "./...", "-bench", ".", "--rounds", "2", "--benchtime", "100x",
		"--db", db, "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"), "--no-profile"}
	out, stderr, code := perflab(t, args...)
	if code != 0 {
		t.Fatalf("bench ./... exited %d\n%s\n%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "8 benchmarks in 2 packages") {
		t.Errorf("progress does not count the packages:\n%s", stderr)
	}
	d, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	results, err := d.Results(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, r := range results {
		seen[r.GetConfig("package")+" "+strings.SplitN(string(r.Name), "/", 2)[0]]++
	}
	if seen["./other Other"] != 8 || seen["./sum Sum"] != 8 || len(seen) != 2 {
		t.Errorf("results by package and benchmark = %v; want 8 of ./sum's and 8 of ./other's", seen)
	}
	_, stderr, code = perflab(t, append(args, "--save-spec", filepath.Join(tmp, "s.toml"))...)
	if code == 0 || !strings.Contains(stderr, "a spec names one package") {
		t.Errorf("--save-spec over two packages: exit %d\n%s", code, stderr)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestInit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary")
	}
	mod := throwaway(t)
	out := filepath.Join(t.TempDir(), "perflab.toml")
	stdout, stderr, code := perflab(t, "init", "-C", mod, "./sum", "-o", out, "--cache", t.TempDir())
	if code != 0 || !strings.Contains(stdout, "4 benchmarks, 1 axes") {
		t.Fatalf("init exited %d: %s %s", code, stdout, stderr)
	}
	s, err := spec.Load(out)
	if err != nil {
		t.Fatalf("init wrote an invalid spec: %v", err)
	}
	if s.Axes[0].Key != "n" || len(s.Axes[0].Quick) != 4 {
		t.Errorf("axes = %+v", s.Axes)
	}
	if _, stderr, code := perflab(t, "init", "-C", mod, "./sum", "-o", out); code == 0 || !strings.Contains(stderr, "exists") {
		t.Errorf("init overwrote %s: code %d %s", out, code, stderr)
	}
}

// buildPerflab compiles the command for tests that signal it.
func buildPerflab(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "perflab")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startUntil starts perflab and waits until its stderr prints marker. The
// returned wait reads stderr to its end and then waits for the process, in
// that order: exec.Cmd.Wait closes the pipe, so waiting first could lose
// the last lines the process wrote.
func startUntil(t *testing.T, bin, marker string, args ...string) (cmd *exec.Cmd, all *strings.Builder, wait func() error) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	all = new(strings.Builder)
	seen := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		once := false
		for sc.Scan() {
			all.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), marker) {
				once = true
				close(seen)
			}
		}
	}()
	select {
	case <-seen:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("perflab never printed %q:\n%s", marker, all.String())
	}
	return cmd, all, func() error {
		<-done
		return cmd.Wait()
	}
}

// TestKillAndResume kills a run with SIGKILL mid-run, then resumes it: the
// finished run holds exactly the planned samples per cell, none twice, and
// follow-up rounds only of the two cells of T1 (b/a at n=16), the tiny
// spec's one counted check, when the first look left it open, as a busy
// machine can (one reversed round of six keeps it open).
func TestKillAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perflab and runs test binaries")
	}
	bin := buildPerflab(t)
	tmp := t.TempDir()
	db := filepath.Join(tmp, "perflab.db")
	spec := filepath.Join("..", "..", "engine", "testdata", "tiny", "spec.toml")
	args := []string{"run", spec, "--quick", "--db", db, "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"), "--no-profile"}
	// --verbose: a log gets every round's line, so the kill can wait
	// for round 2.
	cmd, _, wait := startUntil(t, bin, "round 2/6 stored", append(args, "--verbose")...)
	cmd.Process.Signal(syscall.SIGKILL)
	wait()

	d, err := store.Open(db)
	if err != nil {
		t.Fatalf("database after kill -9: %v", err)
	}
	run, err := d.GetRun(context.Background(), 1)
	d.Close()
	if err != nil || run.Status != "running" {
		t.Fatalf("killed run: %+v, %v", run, err)
	}
	out, stderr, code := perflab(t, "run", "--resume", "1", "--db", db, "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"))
	if code != 0 {
		t.Fatalf("resume exited %d\n%s\n%s", code, out, stderr)
	}
	d, _ = store.Open(db)
	defer d.Close()
	results, _ := d.Results(context.Background(), 1)
	perCell := map[string]map[int]int{}
	last := 0 // the last round stored
	for _, r := range results {
		k := string(r.Name.Full()) + "@" + r.GetConfig("config")
		if perCell[k] == nil {
			perCell[k] = map[int]int{}
		}
		round, err := strconv.Atoi(r.GetConfig("round"))
		if err != nil {
			t.Fatalf("result %s has round %q", k, r.GetConfig("round"))
		}
		perCell[k][round]++
		last = max(last, round)
	}
	if len(perCell) != 12 {
		t.Errorf("%d cells after resume, want 12", len(perCell))
	}
	// T1 reads b and a at n=16 in config default: the only cells that
	// may run after round 6, and then both in every follow-up round.
	followUp := regexp.MustCompile(`^Work/variant=[ab]/n=16(-[0-9]+)?@default$`)
	for k, rounds := range perCell {
		want := 6
		if followUp.MatchString(k) {
			want = last
		}
		if len(rounds) != want {
			t.Errorf("cell %s has samples from %d rounds, want %d (6 planned, follow-up rounds to round %d for T1's cells)", k, len(rounds), want, last)
		}
		for r, n := range rounds {
			if n != 1 || r < 1 || r > want {
				t.Errorf("cell %s has %d samples from round %d, want one from each of rounds 1 to %d", k, n, r, want)
			}
		}
	}
	if run, _ := d.GetRun(context.Background(), 1); run.Status != "complete" {
		t.Errorf("status after resume = %s", run.Status)
	}
}

// TestInterruptSaysHowToResume sends SIGINT mid-run.
func TestInterruptSaysHowToResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perflab and runs test binaries")
	}
	bin := buildPerflab(t)
	tmp := t.TempDir()
	db := filepath.Join(tmp, "perflab.db")
	spec := filepath.Join("..", "..", "engine", "testdata", "tiny", "spec.toml")
	cmd, all, wait := startUntil(t, bin, "round 1/6 stored", "run", spec, "--quick", "--db", db, "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"), "--no-profile")
	cmd.Process.Signal(os.Interrupt)
	err := wait()
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Errorf("exit code %d (%v), want 1", code, err)
	}
	for _, want := range []string{"interrupted", "perflab run --resume 1", "perflab report 1"} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, all.String())
		}
	}
	d, _ := store.Open(db)
	defer d.Close()
	if run, _ := d.GetRun(context.Background(), 1); run == nil || run.Status != "interrupted" {
		t.Errorf("run after SIGINT: %+v", run)
	}
}
