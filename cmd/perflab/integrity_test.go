package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/internal/offline"
	"github.com/perflab/perflab/store"
)

// TestSpecMatchingNothingExitsBeforeRound1: a spec whose benchmark or axis
// key matches nothing exits 1 before round 1, naming the selector, and
// records no run.
func TestSpecMatchingNothingExitsBeforeRound1(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	mod := throwaway(t)
	cache := t.TempDir()
	tests := []struct {
		name, bench, axis, want string
	}{
		{"benchmark", "BenchmarkSumm", "n", `benchmark "BenchmarkSumm" matched nothing; did you mean "BenchmarkSum"?`},
		{"axis key", "BenchmarkSum", "m", `axis key "m" matched nothing under BenchmarkSum (its level there is n)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			specPath := filepath.Join(mod, strings.ReplaceAll(tt.name, " ", "-")+".toml")
			text := `name = "typo"
driver = "gotest"
package = "./sum"
benchmarks = ["` + tt.bench + `"]

[[axis]]
key = "` + tt.axis + `"
quick = [10, 100]

[mode.quick]
rounds = 6
benchtime = "10x"

[mode.full]
rounds = 6
`
			if err := os.WriteFile(specPath, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(t.TempDir(), "x.db")
			_, stderr, code := perflab(t, "run", specPath, "--quick", "--no-profile", "--db", db, "--cache", cache, "--out", t.TempDir())
			if code == 0 || !strings.Contains(stderr, tt.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant non-zero and %q", code, stderr, tt.want)
			}
			if strings.Contains(stderr, "round 1/") {
				t.Errorf("a round ran:\n%s", stderr)
			}
			if out, _, _ := perflab(t, "runs", "--db", db); strings.Contains(out, "typo") {
				t.Errorf("a run was recorded:\n%s", out)
			}
		})
	}
}

// TestRunsShowsDeadOwnerAsInterrupted: a run left "running" by a killed
// process is listed as interrupted with the command that resumes it, and
// --resume accepts the same run references as every other command.
func TestRunsShowsDeadOwnerAsInterrupted(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	// Record the child as owner while it lives, then kill it.
	path := filepath.Join(t.TempDir(), "x.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	owner := store.ProcessOwner(cmd.Process.Pid)
	run := &store.Run{Experiment: "killed", Mode: "quick", RoundsPlanned: 6, Owner: owner}
	if _, err := db.CreateRun(context.Background(), run); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cmd.Process.Kill()
	cmd.Wait()

	out, _, code := perflab(t, "runs", "--db", path)
	if code != 0 || !strings.Contains(out, "interrupted (process gone)") || !strings.Contains(out, "perflab run --resume 1 --db "+path) {
		t.Errorf("runs: exit %d\n%s\nwant the run interrupted, with the resume command", code, out)
	}
	for _, ref := range []string{"latest", "latest~0", "1"} {
		_, stderr, _ := perflab(t, "run", "--resume", ref, "--db", path)
		if strings.Contains(stderr, "invalid value") || !strings.Contains(stderr, "run 1") {
			t.Errorf("--resume %s: %s", ref, stderr)
		}
	}
	if _, stderr, code := perflab(t, "run", "--resume", "latest~7", "--db", path); code == 0 || !strings.Contains(stderr, "holds only 1 runs") {
		t.Errorf("--resume latest~7: exit %d, %s", code, stderr)
	}
}

// TestPartialRunExitsNonZero: a run with a config that does not build ends
// "partial" with exit 1, and the terminal and the report give the same
// count of failed cell runs.
func TestPartialRunExitsNonZero(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	mod := throwaway(t)
	specPath := filepath.Join(mod, "partial.toml")
	text := `name = "partial"
driver = "gotest"
package = "./sum"
benchmarks = ["BenchmarkSum"]

[[axis]]
key = "n"
quick = [10, 100]

[mode.quick]
rounds = 6
benchtime = "10x"

[mode.full]
rounds = 6

[[config]]
name = "default"

[[config]]
name = "broken"
goexperiment = "nosuchexperiment"
`
	if err := os.WriteFile(specPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	db, outDir := filepath.Join(t.TempDir(), "x.db"), t.TempDir()
	stdout, stderr, code := perflab(t, "run", specPath, "--quick", "--no-profile", "--db", db, "--cache", t.TempDir(), "--out", outDir)
	if code != 1 || !strings.Contains(stdout, "run 1: partial") || !strings.Contains(stderr, "run 1 is partial") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s\nwant a partial run and exit 1", code, stdout, stderr)
	}
	var terminal int
	for _, l := range strings.Split(stdout, "\n") {
		if strings.Contains(l, "failed cell runs") {
			f := strings.Fields(l[strings.LastIndex(l, ",")+1:])
			terminal = atoiOr(f[0])
		}
	}
	md, _, _ := perflab(t, "report", "1", "--db", db)
	var reported int
	for _, l := range strings.Split(md, "\n") {
		if strings.Contains(l, "cell runs failed") {
			reported = atoiOr(strings.Fields(l)[0])
		}
	}
	if terminal == 0 || terminal != reported {
		t.Errorf("terminal says %d failed cell runs, the report %d", terminal, reported)
	}
	html, err := os.ReadFile(filepath.Join(outDir, "run-1", "report.html"))
	if err != nil || !strings.Contains(string(html), fmt.Sprintf("%d failed cell runs", terminal)) {
		t.Errorf("the HTML report does not say %d failed cell runs (%v)", terminal, err)
	}
	// One run-reference grammar for every command.
	for _, args := range [][]string{{"report", "latest~0"}, {"export", "latest~0"}, {"analyze", "latest~0"}, {"analyze", "1"}, {"compare", "latest~0", "latest"}} {
		if _, stderr, code := perflab(t, append(args, "--db", db)...); code != 0 {
			t.Errorf("perflab %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	if _, stderr, code := perflab(t, "report", "latest~1", "--db", db); code == 0 || !strings.Contains(stderr, "holds only 1 runs") {
		t.Errorf("report latest~1 with one run: exit %d\n%s", code, stderr)
	}
	if out, _, _ := perflab(t, "runs", "--db", db); !strings.Contains(out, "partial") {
		t.Errorf("runs does not show the run as partial:\n%s", out)
	}
}

// TestOfflineConfigNotTestable runs a spec whose second config needs the
// go1.22.12 toolchain with the go command cut off from every download
// (GOPROXY=off, GOFLAGS=-mod=mod, an empty module cache, where toolchains
// are kept): that config is not testable here, with the reason, its
// claim says so, the other config's claim is judged, and the run is
// complete and exits 0. A config that does not compile still fails the
// run (TestPartialRunExitsNonZero).
func TestOfflineConfigNotTestable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	mod := throwaway(t)
	offline.Go(t)
	specPath := filepath.Join(mod, "offline.toml")
	text := `name = "offline"
driver = "gotest"
package = "./sum"
benchmarks = ["BenchmarkSum"]

[[axis]]
key = "n"
quick = [10, 10000]

[mode.quick]
rounds = 6
benchtime = "200x"

[mode.full]
rounds = 6

[[config]]
name = "default"

[[config]]
name = "go1.22"
gotoolchain = "go1.22.12"

[[claim]]
id = "O1"
text = "a longer sum takes longer"
[[claim.check]]
kind = "ratio"
where = "config=default"
num = "n=10000"
den = "n=10"
op = ">"
value = 1

[[claim]]
id = "O2"
text = "go1.22 sums as fast as the installed Go"
[[claim.check]]
kind = "ratio"
where = "n=10000"
num = "config=go1.22"
den = "config=default"
op = "<"
value = 1.5
`
	if err := os.WriteFile(specPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	db, outDir := filepath.Join(t.TempDir(), "x.db"), t.TempDir()
	stdout, stderr, code := perflab(t, "run", specPath, "--quick", "--no-profile", "--db", db, "--cache", t.TempDir(), "--out", outDir)
	const why = "config go1.22's toolchain go1.22.12 could not be downloaded (toolchain not available)"
	if code != 0 || !strings.Contains(stdout, "run 1: complete") {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s\nwant a complete run and exit 0", code, stdout, stderr)
	}
	flat := strings.Join(strings.Fields(stdout), " ") // the claims table wraps its reasons
	for _, want := range []string{
		"not testable here: " + why,
		"config go1.22 is not testable here: its toolchain go1.22.12 could not be downloaded (toolchain not available)",
		"0 failed cell runs",
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "perflab: config go1.22 is not testable here: its toolchain go1.22.12 could not be downloaded (toolchain not available); its cells are skipped") {
		t.Errorf("progress does not say why config go1.22 is skipped:\n%s", stderr)
	}
	for _, l := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "O1") && !strings.Contains(l, "reproduced") {
			t.Errorf("claim O1, on the config that built, is not judged: %s", l)
		}
	}
	md, _, _ := perflab(t, "report", "1", "--db", db)
	if !strings.Contains(strings.Join(strings.Fields(md), " "), "not testable here: "+why) || strings.Contains(md, "cell runs failed") {
		t.Errorf("the report does not say why O2 is not testable, or counts failures:\n%s", md)
	}
	if out, _, _ := perflab(t, "runs", "--db", db); !strings.Contains(out, "complete") {
		t.Errorf("runs does not show the run as complete:\n%s", out)
	}
}

func atoiOr(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			break
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// TestCompareConfigNames: runs whose configs are named differently are
// paired when each has one config, or with --map; a gate with nothing in
// common names that as the cause, not the unit.
func TestCompareConfigNames(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, configs ...string) string {
		var b strings.Builder
		for _, c := range configs {
			b.WriteString("config: " + c + "\n")
			for i := 0; i < 6; i++ {
				b.WriteString("BenchmarkHash/size=64-2  1000  " + itoa(1000+i) + " ns/op\n")
			}
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	one, other := write("old.txt", "default"), write("new.txt", "go126")
	two, twoNew := write("old2.txt", "default", "gogc"), write("new2.txt", "go126", "nogc")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"one config each: paired", []string{one, other, "--fail-on", "sec/op>+5%"}, 0, "configs compared: default (old) with go126 (new)"},
		{"several: the cause named", []string{two, twoNew, "--fail-on", "sec/op>+5%"}, 1, "no benchmark is in both OLD and NEW"},
		{"several: --map", []string{two, twoNew, "--map", "default=go126", "--map", "gogc=nogc", "--fail-on", "sec/op>+5%"}, 0, "@gogc→nogc"},
	}
	for _, tt := range tests {
		stdout, stderr, code := perflab(t, append([]string{"compare"}, tt.args...)...)
		if code != tt.code || !strings.Contains(stdout+stderr, tt.want) {
			t.Errorf("%s: exit %d (want %d)\n%s%s\nwant %q", tt.name, code, tt.code, stdout, stderr, tt.want)
		}
		if strings.Contains(stderr, "reports the unit") {
			t.Errorf("%s: blames the unit:\n%s", tt.name, stderr)
		}
	}
}

func itoa(n int) string { return fmt.Sprint(n) }

// TestBenchAxisPerBenchmark: benchmarks whose levels are not one sweep are
// analysed along --axis each on its own, and the output says so.
func TestBenchAxisPerBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	mod := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/two\n\ngo 1.26\n",
		"two_test.go": `package two

import (
	"strconv"
	"testing"
)

var sink int

func work(n int) {
	s := 0
	for i := range n {
		s += i ^ s
	}
	sink = s
}

func BenchmarkHash(b *testing.B) {
	for _, n := range []int{16, 256, 4096} {
		b.Run("size="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				work(n)
			}
		})
	}
}

func BenchmarkCopy(b *testing.B) {
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run("size="+strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				work(2 * n)
			}
		})
	}
}

func BenchmarkPlain(b *testing.B) {
	for b.Loop() {
		work(5)
	}
}
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(mod, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	stdout, stderr, code := perflab(t, "bench", "-C", mod, ".", "--axis", "size", "--rounds", "6", "--benchtime", "100x", "--no-profile",
		"--db", filepath.Join(tmp, "db"), "--out", filepath.Join(tmp, "runs"), "--cache", filepath.Join(tmp, "cache"))
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"each is analysed along size on its own", "BenchmarkHash: size = 16, 256, 4096",
		"BenchmarkCopy: size = 10, 100, 1000, 10000", "no size level, measured but not analysed along it: BenchmarkPlain"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "ignored") {
		t.Errorf("--axis was ignored:\n%s", stderr)
	}
	md, err := os.ReadFile(filepath.Join(tmp, "runs", "run-1", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"BenchmarkHash", "BenchmarkCopy", "| series \\ size |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q:\n%.3000s", want, md)
		}
	}
	if _, stderr, code := perflab(t, "bench", "-C", mod, ".", "--axis", "sise", "--rounds", "6", "--no-profile",
		"--db", filepath.Join(tmp, "db"), "--cache", filepath.Join(tmp, "cache")); code == 0 || !strings.Contains(stderr, "no benchmark has a sise=… level (their keys: size)") {
		t.Errorf("--axis sise: exit %d\n%s", code, stderr)
	}
}

// TestHelpTopics: the spec format is one command away, and init's help
// lists only the flags init uses.
func TestHelpTopics(t *testing.T) {
	out, _, code := perflab(t, "help", "spec")
	if code != 0 || !strings.Contains(out, "[[config]]") || !strings.Contains(out, "[[claim.check]]") {
		t.Errorf("help spec: exit %d\n%.500s", code, out)
	}
	out, _, _ = perflab(t, "help", "init")
	for _, runOnly := range []string{"-budget", "-seed", "-no-profile", "-out ", "-db ", "-alpha", "-save-spec", "-v\n"} {
		if strings.Contains(out, "\n  "+strings.TrimSpace(runOnly)) {
			t.Errorf("help init lists the run-only flag %s:\n%s", runOnly, out)
		}
	}
	for _, f := range []string{"-bench", "-axis", "-config", "-o ", "-force"} {
		if !strings.Contains(out, "\n  "+f) {
			t.Errorf("help init lacks %s:\n%s", f, out)
		}
	}
	out, _, _ = perflab(t, "help", "compare")
	if !strings.Contains(out, "Benjamini-Hochberg") || strings.Contains(out, "(p < --alpha)") {
		t.Errorf("help compare does not describe the gate as the code applies it:\n%s", out)
	}
}
