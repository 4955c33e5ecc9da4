package main

import (
	"bytes"
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/internal/testrun"
	"github.com/perflab/perflab/store"
)

var (
	updateGolden = flag.Bool("update", false, "rewrite the golden files (-golden-dir) from this tree's output")
	// goldenDir holds one file per output a case compares: NAME.stdout,
	// NAME.stderr (cases with stderr set) and NAME.FILE for each file
	// the command writes. scripts/golden-compare.sh writes the outputs
	// of two revisions to two other directories and compares them.
	goldenDir = flag.String("golden-dir", filepath.Join("testdata", "golden"), "`dir` of the golden files TestGolden compares with (or writes, with -update)")
)

// goldenCase is one command line whose output is kept byte for byte.
// Arguments may name $DB (the synthetic database of stored runs),
// $OLDTXT and $NEWTXT (two of its runs as go test -bench output), $OUT
// (a directory of the case's own, where it writes files), $CACHE (a
// cache of built sources and test binaries the measuring cases share),
// $AB (the ab fixture repository), $BISECT (the bisect fixture
// repository) and $GOOD (the bisect fixture's first commit).
type goldenCase struct {
	name   string
	args   []string
	code   int      // the exit status
	files  []string // files the command writes under $OUT
	stderr bool     // compare stderr too
	// after names the case whose store this one reads; run without it
	// (go test -run Golden/NAME), the case is skipped.
	after string
	// live marks a command that measures: its output is normalised
	// (normalizeLive) before it is compared.
	live bool
}

// goldenCases are the outputs a change of the CLI's code must keep.
//
// The stored-run views read a database written through the store
// package from internal/testrun's synthetic runs with fixed seeds and
// start and finish times (goldenFixtures.db), so their output is exact:
// every digit, space and column. The measuring cases (ab, bisect) run
// test binaries of tiny fixture repositories whose planted change (ten
// times the work) makes the verdicts certain; their numbers,
// durations and column padding are normalised (see normalizeLive), and
// their words, rows and verdicts are kept.
var goldenCases = []goldenCase{
	// Stored runs: 1–4 the synthetic sweep, 5–8 the same 20% slower; run
	// 8 has follow-up rounds.
	{name: "runs", args: []string{"runs", "--db", "$DB"}, stderr: true},
	{name: "report", args: []string{"report", "2", "--db", "$DB"}, stderr: true},
	{name: "report-latest", args: []string{"report", "--db", "$DB"}},
	{name: "report-o", args: []string{"report", "1", "--db", "$DB", "-o", "$OUT/report.md"}, files: []string{"report.md"}, stderr: true},
	{name: "report-html", args: []string{"report", "1", "--html", "--db", "$DB", "-o", "$OUT/report.html"}, files: []string{"report.html"}},
	{name: "export", args: []string{"export", "1", "--db", "$DB"}},
	{name: "analyze", args: []string{"analyze", "2", "--db", "$DB"}, stderr: true},
	{name: "analyze-json", args: []string{"analyze", "2", "--db", "$DB", "--json"}, stderr: true},
	{name: "analyze-by", args: []string{"analyze", "8", "--db", "$DB", "--unit", "sec/op", "--by", "variant", "--baseline", "syncpool"}},
	{name: "compare", args: []string{"compare", "1", "2", "--db", "$DB"}, stderr: true},
	{name: "compare-slower", args: []string{"compare", "1", "5", "--db", "$DB"}},
	{name: "compare-json", args: []string{"compare", "1", "8", "--db", "$DB", "--json"}},
	{name: "compare-gate-pass", args: []string{"compare", "1", "2", "--db", "$DB", "--fail-on", "sec/op>+5%"}, stderr: true},
	{name: "compare-gate-fail", args: []string{"compare", "1", "5", "--db", "$DB", "--fail-on", "sec/op>+5%"}, code: 1, stderr: true},
	{name: "compare-gate-fail-json", args: []string{"compare", "latest~7", "latest", "--db", "$DB", "--fail-on", "sec/op>+5%,B/op>+1%", "--json"}, code: 1, stderr: true},
	{name: "compare-gate-require", args: []string{"compare", "1", "2", "--db", "$DB", "--fail-on", "sec/op>+0.1%", "--require-decision"}, code: 3, stderr: true},
	{name: "compare-files", args: []string{"compare", "$OLDTXT", "$NEWTXT", "--fail-on", "sec/op>+5%"}, code: 1, stderr: true},
	{name: "report-no-such-run", args: []string{"report", "99", "--db", "$DB"}, code: 1, stderr: true},
	{name: "history", args: []string{"history", "Pool/mode=serial/size=64/variant=syncpool/reuse=50", "--db", "$DB"}, stderr: true},
	{name: "history-json", args: []string{"history", "BenchmarkPool/mode=serial/size=64/variant=plain/reuse=25", "--db", "$DB", "--json"}},
	{name: "history-bytes", args: []string{"history", "Pool/mode=serial/size=64/variant=tiered/reuse=90", "--unit", "B/op", "--db", "$DB"}},

	// Help and usage.
	{name: "usage", args: nil, code: 2, stderr: true},
	{name: "help-ab", args: []string{"help", "ab"}},
	{name: "help-bisect", args: []string{"help", "bisect"}},
	{name: "help-compare", args: []string{"help", "compare"}},
	{name: "help-ab-all", args: []string{"help", "ab", "--all"}},
	{name: "help-spec", args: []string{"help", "spec"}},

	// Measured: ab of a commit that does ten times the work.
	{name: "ab", live: true, code: 1, stderr: true, files: []string{"summary.md"},
		args: []string{"ab", "HEAD~1", "HEAD", ".", "-C", "$AB", "-bench", "Work", "--rounds", "10", "--benchtime", "5000x", "--layout", "fixed",
			"--seed", "1", "--no-profile", "--fail-on", "sec/op>+5%", "--markdown", "$OUT/summary.md",
			"--db", "$OUT/perflab.db", "--out", "$OUT/runs", "--cache", "$CACHE"}},
	{name: "ab-json", live: true, code: 1,
		args: []string{"ab", "HEAD~1", "HEAD", ".", "-C", "$AB", "-bench", "Work", "--rounds", "10", "--benchtime", "5000x", "--layout", "fixed",
			"--seed", "1", "--no-profile", "--fail-on", "sec/op>+5%", "--json",
			"--db", "$OUT/perflab.db", "--out", "$OUT/runs", "--cache", "$CACHE"}},
	// Measured: bisect of four commits after GOOD, the second of which
	// does not build and the fourth does ten times the work.
	{name: "bisect", live: true, stderr: true, files: []string{"bisect.md"},
		args: []string{"bisect", "$GOOD", "main", ".", "-C", "$BISECT", "-bench", "Work", "--benchtime", "5000x", "--max-rounds", "30", "--layout", "fixed",
			"--seed", "1", "--markdown", "$OUT/bisect.md",
			"--db", "$CACHE/bisect.db", "--out", "$OUT/runs", "--cache", "$CACHE"}},
	// The same bisect again, read back from the store without measuring.
	{name: "bisect-resume", live: true, stderr: true, after: "bisect",
		args: []string{"bisect", "$GOOD", "main", ".", "-C", "$BISECT", "-bench", "Work", "--benchtime", "5000x", "--max-rounds", "30", "--layout", "fixed",
			"--seed", "1", "--resume",
			"--db", "$CACHE/bisect.db", "--out", "$OUT/runs", "--cache", "$CACHE"}},
}

// TestGolden runs each goldenCase through Main and compares its output
// with testdata/golden/; -update rewrites the files instead.
func TestGolden(t *testing.T) {
	// "perflab runs" prints start times in local time.
	local := time.Local
	time.Local = time.UTC
	t.Cleanup(func() { time.Local = local })

	root := t.TempDir()
	// The HTML report links the articles it finds near the working
	// directory; none here, so the output does not depend on where the
	// tests run.
	t.Setenv("PERFLAB_ARTICLES", filepath.Join(root, "no-articles"))
	cache := filepath.Join(root, "cache")
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	fx := &goldenFixtures{t: t, root: root, vars: map[string]string{"CACHE": cache}}
	ran := map[string]bool{}
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.live && testing.Short() {
				t.Skip("builds and runs test binaries")
			}
			if tc.after != "" && !ran[tc.after] {
				t.Skipf("reads the store of case %s, which did not run", tc.after)
			}
			ran[tc.name] = true
			fx.t = t // a fixture made for this case fails this case
			out := filepath.Join(root, "case-"+tc.name)
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			args := make([]string, len(tc.args))
			for i, a := range tc.args {
				args[i] = os.Expand(a, func(v string) string {
					if v == "OUT" {
						return out
					}
					return fx.get(v)
				})
			}
			var stdout, stderr bytes.Buffer
			code := Main(args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout.String(), stderr.String())
			}
			got := map[string]string{"stdout": stdout.String()}
			if tc.stderr {
				got["stderr"] = stderr.String()
			}
			for _, f := range tc.files {
				b, err := os.ReadFile(filepath.Join(out, f))
				if err != nil {
					t.Errorf("the command wrote no %s: %v", f, err)
					continue
				}
				got[f] = string(b)
			}
			for suffix, text := range got {
				text = strings.ReplaceAll(text, root, "$TMP")
				if home := os.Getenv("PERFLAB_HOME"); home != "" {
					// Set by TestMain, and named by the help of --db and --out.
					text = strings.ReplaceAll(text, home, "$PERFLAB_HOME")
				}
				if tc.live {
					text = fx.normalizeLive(text)
				}
				checkGolden(t, tc.name+"."+suffix, text)
			}
		})
	}
}

// checkGolden compares text with the golden file name, or writes it
// there under -update.
func checkGolden(t *testing.T, name, text string) {
	t.Helper()
	path := filepath.Join(*goldenDir, name)
	if *updateGolden {
		if err := os.MkdirAll(*goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update to create it)", err)
	}
	if string(want) != text {
		t.Errorf("%s differs from %s:\n%s", name, path, lineDiff(string(want), text))
	}
}

// lineDiff shows where got departs from want: the lines from the first
// that differs, a few of each.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(w) && i < len(g) && w[i] == g[i] {
		i++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "first difference at line %d (want %d lines, got %d)\n", i+1, len(w), len(g))
	for j := i; j < len(w) && j < i+8; j++ {
		fmt.Fprintf(&b, "- %s\n", w[j])
	}
	for j := i; j < len(g) && j < i+8; j++ {
		fmt.Fprintf(&b, "+ %s\n", g[j])
	}
	return b.String()
}

// goldenFixtures makes what the cases name, once, when a case first
// needs it.
type goldenFixtures struct {
	t      *testing.T // the case being run
	root   string
	vars   map[string]string
	hashes []string // the fixture repositories' commits, in the order normalizeLive names them
}

func (fx *goldenFixtures) get(v string) string {
	if s, ok := fx.vars[v]; ok {
		return s
	}
	switch v {
	case "DB":
		fx.vars[v] = fx.db()
	case "AB":
		fx.vars[v] = fx.abRepo()
	case "BISECT", "GOOD":
		fx.vars["BISECT"] = fx.bisectRepo()
	case "OLDTXT", "NEWTXT":
		fx.vars["OLDTXT"] = fx.benchfmt("old.txt", testrun.Options{Seed: 1})
		fx.vars["NEWTXT"] = fx.benchfmt("new.txt", testrun.Options{Seed: 5, Scale: 1.2})
	default:
		fx.t.Fatalf("goldenCases name $%s, which no fixture defines", v)
	}
	return fx.vars[v]
}

// db writes eight synthetic runs through the store, an hour apart from
// 2026-01-01 00:00 UTC, each taking 2m30s: 1–4 with seeds 1–4, 5–8
// with seeds 5–8 and every sec/op 20% higher, and run 8 with four
// follow-up rounds.
func (fx *goldenFixtures) db() string {
	path := filepath.Join(fx.root, "stored.db")
	db, err := store.Open(path)
	if err != nil {
		fx.t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 8 {
		o := testrun.Options{Seed: uint64(i + 1), StartedAt: start.Add(time.Duration(i) * time.Hour)}
		if i >= 4 {
			o.Scale = 1.2
		}
		if i == 7 {
			o.FollowUp = 4
		}
		if _, err := testrun.Store(context.Background(), db, o); err != nil {
			fx.t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		fx.t.Fatal(err)
	}
	// FinishRun stamps the wall clock; each run is given a finish 2m30s
	// after its start instead, so the reports' "took" is fixed.
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		fx.t.Fatal(err)
	}
	defer raw.Close()
	for i := range 8 {
		end := start.Add(time.Duration(i)*time.Hour + 150*time.Second)
		if _, err := raw.Exec(`UPDATE runs SET finished_at = ? WHERE id = ?`, end.Format("2006-01-02T15:04:05.000000000Z"), i+1); err != nil {
			fx.t.Fatal(err)
		}
	}
	return path
}

// benchfmt writes a synthetic run as go test -bench output to name.
func (fx *goldenFixtures) benchfmt(name string, o testrun.Options) string {
	path := filepath.Join(fx.root, name)
	if err := os.WriteFile(path, []byte(testrun.Benchfmt(o)), 0o644); err != nil {
		fx.t.Fatal(err)
	}
	return path
}

// goldenWorkGo is the fixture package: Work's cost is linear in N, and
// Buf allocates Size bytes.
const goldenWorkGo = `// Package work has one CPU-bound function whose cost is linear in N.
package work

// N is how much work one call does.
const N = %d

// Size is how many bytes Buf allocates.
const Size = %d

// Work runs n steps of a xorshift generator, a chain of dependent operations.
func Work(n int) uint64 {
	x := uint64(88172645463325252)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// Buf allocates Size bytes.
func Buf() []byte { return make([]byte, Size) }
`

// goldenWorkTestGo is the fixture's benchmark: with one allocation of
// Size bytes in every op, B/op and allocs/op stay the same integers
// however often the runtime allocates a few kilobytes of its own in a
// benchmark process (without one, B/op reads 0 or 1 from run to run).
const goldenWorkTestGo = `package work

import "testing"

var (
	sink uint64
	buf  []byte
)

func BenchmarkWork(b *testing.B) {
	for range b.N {
		sink = Work(N)
		buf = Buf()
	}
}
`

// abRepo is a repository of two commits: BenchmarkWork at 200 steps and
// 64 bytes, then at 2000 steps and 128 bytes, with BenchmarkWorkExtra
// added (on the new side only).
func (fx *goldenFixtures) abRepo() string {
	dir := filepath.Join(fx.root, "ab")
	fx.git(dir, "init", "-q", "-b", "main")
	fx.write(dir, map[string]string{"go.mod": "module example.com/work\n\ngo 1.22\n", "work.go": fmt.Sprintf(goldenWorkGo, 200, 64), "work_test.go": goldenWorkTestGo})
	fx.commit(dir, "work: the baseline")
	fx.write(dir, map[string]string{
		"work.go":       fmt.Sprintf(goldenWorkGo, 2000, 128),
		"extra_test.go": "package work\n\nimport \"testing\"\n\nfunc BenchmarkWorkExtra(b *testing.B) {\n\tfor range b.N {\n\t\tsink = Work(1)\n\t}\n}\n",
	})
	fx.commit(dir, "work: ten times the work, twice the bytes")
	return dir
}

// bisectRepo is a repository of GOOD (BenchmarkWork at 200 steps) and
// four commits after it: a comment, one that does not build (the first
// midpoint), its fix, and ten times the work (the culprit, and BAD). It sets $GOOD.
func (fx *goldenFixtures) bisectRepo() string {
	dir := filepath.Join(fx.root, "bisect")
	fx.git(dir, "init", "-q", "-b", "main")
	fx.write(dir, map[string]string{"go.mod": "module example.com/work\n\ngo 1.22\n", "work_test.go": goldenWorkTestGo})
	steps := []int{200, 200, 0, 200, 2000}
	subjects := []string{"work: the baseline", "work: comment", "work: broken", "work: fixed", "work: ten times the work"}
	for i, n := range steps {
		text := fmt.Sprintf(goldenWorkGo, n, 64) + fmt.Sprintf("\n// Revision %d.\n", i)
		if n == 0 {
			text = "package work\n\nthis does not compile\n"
		}
		fx.write(dir, map[string]string{"work.go": text})
		h := fx.commit(dir, subjects[i])
		if i == 0 {
			fx.vars["GOOD"] = h[:10]
		}
	}
	return dir
}

// commit commits everything in dir at a fixed time, records its hash
// for normalizeLive, and returns it.
func (fx *goldenFixtures) commit(dir, subject string) string {
	fx.git(dir, "add", ".")
	fx.git(dir, "commit", "-q", "-m", subject)
	h := strings.TrimSpace(fx.git(dir, "rev-parse", "HEAD"))
	fx.hashes = append(fx.hashes, h)
	return h
}

// git runs git in dir with a fixed identity and date and no user
// configuration, so a fixture's commits are the same on every run.
func (fx *goldenFixtures) git(dir string, args ...string) string {
	fx.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fx.t.Fatal(err)
	}
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		fx.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (fx *goldenFixtures) write(dir string, files map[string]string) {
	fx.t.Helper()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			fx.t.Fatal(err)
		}
	}
}

var (
	// bisectIDRE is a bisect's ID: a hash of its arguments (temporary
	// paths among them) and its start time.
	bisectIDRE = regexp.MustCompile(`\b[0-9a-f]{12}\.[0-9]{8}T[0-9]{6}\.[0-9]{6}\b`)
	// hexRE is a hash or a prefix of one, after a character that cannot
	// precede one (a decimal point can: the digits of 6.930123456789e-06).
	hexRE = regexp.MustCompile(`(^|[^0-9A-Za-z_.])([0-9a-f]{7,64})\b`)
	// cpuRE is the machine's CPU, which summaries name.
	cpuRE = regexp.MustCompile(`(?m)\bcpu: (.*?)( *)$`)
	// numberRE is a number, with its sign, decimals, exponent and the
	// unit or SI prefix written against it (12ms, 3.1µ, 1m2.5s).
	numberRE = regexp.MustCompile(`[-+−]?(?:[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?:ns|µs|us|ms|s|m|h|n|µ|u|k|M|G)?)+`)
	// spacesRE is a run of blanks: the padding of a column whose width
	// follows its numbers.
	spacesRE = regexp.MustCompile(`[ \t]+`)
)

// goldenDate is the fixture commits' date as the bisect views write it;
// normalizeLive keeps it.
const goldenDate = "2026-01-01 00:00:00 +0000"

// normalizeLive makes a measuring command's output comparable across
// runs and machines:
//
//   - a bisect's ID becomes BISECT-ID;
//   - a fixture commit's hash, whole or a prefix of 7 or more hex
//     digits, becomes <commit-X> (X counts the fixtures' commits from A:
//     the ab repository's, then the bisect repository's); any other
//     word of 7 or more hex digits with a digit among them (a binary's
//     hash) becomes HEX;
//   - the CPU's name becomes CPU;
//   - every number, with its sign, decimals and exponent, and with a
//     duration's unit or an SI prefix written against it (12ms, 1m2.5s,
//     3.1µ), becomes N; the fixture commits' date (goldenDate) is kept;
//   - every run of spaces and tabs becomes one space, since a table's
//     padding follows the widths of its numbers;
//   - the progress lines of rounds ("perflab: round N/N stored: …",
//     "perflab: after N rounds …") are dropped, since a sequential step
//     runs as many rounds as it needs, and so are the lines saying how
//     many repetitions a process runs ("perflab: repetitions a process,
//     chosen …", "perflab: N cells whose set-up costs more …"), chosen
//     from the times and variances measured.
//
// Words, punctuation, line breaks and the order of rows are kept.
func (fx *goldenFixtures) normalizeLive(s string) string {
	s = bisectIDRE.ReplaceAllString(s, "BISECT-ID")
	s = hexRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := hexRE.FindStringSubmatch(m)
		pre, h := sub[1], sub[2]
		for i, full := range fx.hashes {
			if strings.HasPrefix(full, h) {
				return pre + fmt.Sprintf("<commit-%c>", 'A'+i)
			}
		}
		if strings.ContainsAny(h, "0123456789") && strings.ContainsAny(h, "abcdef") {
			return pre + "HEX"
		}
		return m
	})
	s = cpuRE.ReplaceAllString(s, "cpu: CPU$2")
	s = strings.ReplaceAll(s, goldenDate, "\x00")
	s = numberRE.ReplaceAllString(s, "N")
	s = strings.ReplaceAll(s, "\x00", goldenDate)
	s = spacesRE.ReplaceAllString(s, " ")
	var kept []string
	for _, l := range strings.SplitAfter(s, "\n") {
		if !strings.HasPrefix(l, "perflab: round N/N stored:") && !strings.HasPrefix(l, "perflab: after N rounds") &&
			!strings.HasPrefix(l, "perflab: repetitions a process, chosen") && !strings.Contains(l, " cells whose set-up costs more than their timed loop ") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "")
}
