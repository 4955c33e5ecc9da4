// Command bisectdemo writes a git repository for trying perflab bisect on a
// history with a known answer: a module with one CPU-bound function and a
// benchmark of it, then a run of commits of which exactly one makes the
// function do more work (by -extra percent) and the others change
// comments, tests, documentation or an unrelated function. With -layout K,
// commit K adds helper functions that never run (reachable only from an
// init guarded by an environment variable nobody sets) in a file the
// linker places before Work: it moves Work's code, not its work.
//
// Usage:
//
//	go run ./scripts/bisectdemo -dir /tmp/demo [-commits 32] [-culprit 19] [-extra 3] [-layout 7]
//
// It prints the GOOD and BAD commits and the culprit's hash and subject,
// as shell assignments (GOOD=…), so a script can eval them. Author and
// committer dates are fixed, so the same flags give the same hashes.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	dir := flag.String("dir", "", "`directory` to create the repository in (must not exist, or be empty)")
	commits := flag.Int("commits", 32, "commits after GOOD")
	culprit := flag.Int("culprit", 19, "the commit (1 … -commits) that adds the work")
	extra := flag.Float64("extra", 3, "`percent` more work the culprit adds")
	layout := flag.Int("layout", 0, "the commit (1 … -commits, not the culprit) that adds never-run helpers placed before Work; 0 for none")
	flag.Parse()
	if err := run(*dir, *commits, *culprit, *extra, *layout); err != nil {
		fmt.Fprintln(os.Stderr, "bisectdemo:", err)
		os.Exit(1)
	}
}

// steps is the work one call does before the culprit.
const steps = 100000

const workGo = `// Package demo has one CPU-bound function whose cost is linear in its steps.
package demo

// Steps is how much work one call of Work does.%s
const Steps = %d

// Work hashes the numbers 0…Steps-1 with FNV-1a, a chain of dependent
// multiplications the compiler cannot remove.
func Work() uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < Steps; i++ {
		h ^= uint64(i)
		h *= 1099511628211
	}
	return h
}
`

const benchGo = `package demo

import "testing"

var sink uint64

func BenchmarkWork(b *testing.B) {
	for range b.N {
		sink = Work()
	}
}
`

const utilGo = `package demo

// Clamp limits x to [lo, hi].%s
func Clamp(x, lo, hi int) int {
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x%s
}
`

// helpersGo never runs: nothing sets the variable its init reads. Its
// file name sorts before work.go, so the linker's default layout puts its
// functions before Work.
const helpersGo = `package demo

import "os"

func unusedMix(x uint64) uint64 {
	for i := 0; i < 7; i++ {
		x = x*6364136223846793005 + 1442695040888963407
		x ^= x >> 29
	}
	return x
}

func unusedSpread(xs []uint64) (s uint64) {
	for i, x := range xs {
		s += unusedMix(x) << (i % 13)
	}
	return s
}

var unusedSink uint64

func init() {
	if os.Getenv("DEMO_NEVER_SET") == "yes" {
		unusedSink = unusedSpread([]uint64{1, 2, 3})
	}
}
`

func run(dir string, commits, culprit int, extra float64, layout int) error {
	if dir == "" {
		return fmt.Errorf("-dir is required")
	}
	if commits < 1 || culprit < 1 || culprit > commits {
		return fmt.Errorf("want 1 ≤ -culprit (%d) ≤ -commits (%d)", culprit, commits)
	}
	if layout < 0 || layout > commits || layout == culprit {
		return fmt.Errorf("want 0 ≤ -layout (%d) ≤ -commits (%d), not the culprit", layout, commits)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return fmt.Errorf("%s is not empty; give a new directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	g := &repo{dir: dir}
	g.git("init", "-q", "-b", "main")
	n := steps
	comment, clampNote, clampTail := "", "", ""
	g.write(map[string]string{
		"go.mod":       "module example.com/demo\n\ngo 1.22\n",
		"work.go":      fmt.Sprintf(workGo, comment, n),
		"work_test.go": benchGo,
		"util.go":      fmt.Sprintf(utilGo, clampNote, clampTail),
		"README.md":    "# demo\n\nA module for perflab bisect.\n",
	})
	g.commit("demo: Work and its benchmark")
	good := g.head()
	var culpritHash, culpritSubject, layoutHash string
	for i := 1; i <= commits; i++ {
		var subject string
		switch {
		case i == culprit:
			n = int(float64(steps) * (1 + extra/100))
			g.write(map[string]string{"work.go": fmt.Sprintf(workGo, comment, n)})
			subject = fmt.Sprintf("demo: Work takes %d steps", n)
		case i == layout:
			g.write(map[string]string{"helpers.go": helpersGo})
			subject = "demo: helpers that never run, placed before Work"
		case i%4 == 1:
			comment = fmt.Sprintf("\n// (revised %d times)", i)
			g.write(map[string]string{"work.go": fmt.Sprintf(workGo, comment, n)})
			subject = fmt.Sprintf("demo: reword Work's comment (%d)", i)
		case i%4 == 2:
			clampNote = fmt.Sprintf(" It is used %d times.", i)
			clampTail = fmt.Sprintf(" // clamp %d", i)
			g.write(map[string]string{"util.go": fmt.Sprintf(utilGo, clampNote, clampTail)})
			subject = fmt.Sprintf("demo: touch Clamp, unrelated to Work (%d)", i)
		case i%4 == 3:
			g.write(map[string]string{fmt.Sprintf("clamp%d_test.go", i): fmt.Sprintf(
				"package demo\n\nimport \"testing\"\n\nfunc TestClamp%d(t *testing.T) {\n\tif Clamp(%d, 0, 10) != 10 {\n\t\tt.Fatal(\"clamp\")\n\t}\n}\n", i, 10+i)})
			subject = fmt.Sprintf("demo: test Clamp (%d)", i)
		default:
			g.write(map[string]string{"README.md": fmt.Sprintf("# demo\n\nA module for perflab bisect, revision %d.\n", i)})
			subject = fmt.Sprintf("docs: README revision %d", i)
		}
		g.commit(subject)
		if i == culprit {
			culpritHash, culpritSubject = g.head(), subject
		}
		if i == layout {
			layoutHash = g.head()
		}
	}
	if g.err != nil {
		return g.err
	}
	fmt.Printf("GOOD=%s\nBAD=%s\nCULPRIT=%s\nCULPRIT_SUBJECT=%q\n", good, g.head(), culpritHash, culpritSubject)
	if layout > 0 {
		fmt.Printf("LAYOUT=%s\n", layoutHash)
	}
	return nil
}

// repo runs git in one directory with a fixed identity and dates; the
// first error sticks.
type repo struct {
	dir   string
	clock int
	err   error
}

func (r *repo) git(args ...string) string {
	if r.err != nil {
		return ""
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	date := fmt.Sprintf("2025-01-01T%02d:%02d:00Z", r.clock/60, r.clock%60)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Demo Author", "GIT_AUTHOR_EMAIL=demo@example.com", "GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME=Demo Author", "GIT_COMMITTER_EMAIL=demo@example.com", "GIT_COMMITTER_DATE="+date)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.err = fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(files map[string]string) {
	for name, text := range files {
		if r.err == nil {
			r.err = os.WriteFile(filepath.Join(r.dir, name), []byte(text), 0o644)
		}
	}
}

func (r *repo) commit(subject string) {
	r.git("add", "-A")
	r.git("commit", "-q", "-m", subject)
	r.clock++
}

func (r *repo) head() string { return r.git("rev-parse", "HEAD") }
