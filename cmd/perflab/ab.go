package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/report"
)

var cmdAB = &command{
	rank:    16,
	name:    "ab",
	summary: "did my change make it faster? two revisions interleaved in one run, with a verdict",
	usage:   "OLD [NEW] [PKG...] [-bench REGEX] [--budget D] [--fail-on RULES] [flags]",
	help: `
AB answers "did my change make it faster?". It builds the package's test
binary at two revisions, OLD and NEW (by default the working tree,
uncommitted changes included; your tree is never touched), and runs the
selected benchmarks of both in interleaved, shuffled rounds, relinked
with fresh random function layouts, so that the machine's drift and where
the linker put the code hit both sides alike. Per benchmark and unit it
prints the old and new medians, the paired change new/old with its
interval, and a verdict that matches the interval: faster or slower when
it excludes no change, "median within ±1%" when it lies within ±1%,
undecided otherwise. Without --rounds it samples until every row is
decided or the budget is spent (--budget; by default 2m, or more when
the first interval of every row needs it). --fail-on makes it a CI gate;
the run is stored like any other.

Examples:
  perflab ab HEAD~1                        # the last commit + your uncommitted changes vs its parent
  perflab ab main HEAD ./codec -bench Encode --budget 3m
  perflab ab "$BASE_SHA" HEAD ./... -bench . --fail-on 'sec/op>+5%' --markdown "$GITHUB_STEP_SUMMARY"`,
	more: `
` + wrapText("How it decides. "+analysis.PairedMethod, 72) + `

Sampling. Given neither --rounds, --budget, --precision nor
--max-rounds, ab samples sequentially within a default budget of 2m,
grown to twice what the first interval of every benchmark needs when 2m
cannot hold it (it says so); a --budget too small for it, even at one
layout a round, is refused with the budget that would do. A sequential
run looks after each cluster of rounds on one layout and adds rounds of
the benchmarks still undecided; its intervals are anytime-valid
confidence sequences, so looking often does not inflate errors. It stops
a row once its interval at 1 − α/m (m: the unit's rows) is decided, and
at the end decides the rows together by e-BH at --alpha, printing each
at 1 − α·k/m (k rows decided; 1 − α/m when none is). With --rounds N the
rows are judged once, each at 1 − α/m; rounds too few to give any row an
interval are refused before anything is measured, with the rounds that
would do. A budget the first rounds outgrow runs one repetition a
process for benchmarks whose set-up outweighs their timed loop, then
leaves out those whose rounds cost most, saying which and what budget
would have held them.

Link layouts. Each side is relinked with a fresh random function layout
(-ldflags=-randlayout) between rounds, and the rounds on one layout count
as one observation, so a verdict holds for the source over layouts, not
for two binaries. After the first rounds a sequential run chooses how
many rounds a layout serves from how much of the variance is layout and
what a link and a round cost, and prints why. The "layout" column says
how much layout alone moves each benchmark. --layout fixed links each
side once (its verdicts hold for those two binaries only); --funcalign N
pins every function's alignment to N bytes on both sides while layouts
are still sampled. A toolchain whose linker lacks -randlayout (go1.22 and
older) keeps one layout, and ab says so. With --measure instructions, a
time change whose instructions/op did not move is marked as not in the
executed work.

OLD and NEW are git revisions (a commit, branch, tag, HEAD~1, …) or
directories. Revisions are exported into perflab's cache (git archive)
and the working tree is copied there (tracked files as they are on disk,
and untracked files git does not ignore). A directory is used in place
and stands for the module directory; write it as an absolute path or
starting with ../ when it is NEW, since "." and "./x" are package
patterns. PKG is a package relative to the module directory (-C), "." by
default; name several, or a pattern such as ./... (the packages with test
files go list finds on each side): each side builds one test binary per
package, the rounds interleave the benchmarks of all of them, each row
names its package ("pkg: ./codec"), and one geomean and one gate cover
the whole selection. Benchmarks that exist on one side only are listed,
not compared. A side that does not build is named and ab exits 1.

--fail-on makes ab a CI gate on the paired changes ("sec/op>+5%" fails on
slow-downs of more than 5%); a sequential run then samples until every
gated time ratio (sec/op, cpu-sec/op, instructions/op) clears the limits,
or the budget is spent. --markdown writes a summary for a pull-request
comment or $GITHUB_STEP_SUMMARY, --json the comparison and the gate's
rulings.

` + gateRulesHelp(`its whole interval lies beyond the limit and its p-value
             times the unit's m rows is at most --alpha (Bonferroni): the
             row is marked FAIL.`) + `

--config pairs compare other axes of the same question: the first applies
to OLD, the second to NEW, e.g. the same revision with GOGC changed, or
with PGO off against a profile (PGO=off, PGO=auto or PGO=FILE).

Shards: a comparison too large for one machine's budget runs as N shards
sharing one run in PostgreSQL, each building both sides and running its
own interleaved rounds on its own layouts; the verdict pools every
shard's clusters and decides once, and every shard stops on it (--budget
is each machine's own time). perflab slurm and perflab k8s write the
jobs; see docs/shards.md.

More examples:
  perflab ab main HEAD ./codec -bench Encode --budget 2m --precision 1%   # stop once every ratio is known to ±1%
  perflab ab main HEAD ./codec -bench Encode --measure instructions     # instructions/op beside time
  perflab ab "$BASE_SHA" HEAD ./pkg -bench . --budget 5m --fail-on 'sec/op>+2%' --require-decision   # exit 3 unless every row is decided
  perflab ab main HEAD ./codec -bench Encode --rounds 40                # a fixed number of rounds, judged once
  perflab ab HEAD HEAD . --config old:PGO=off --config new:PGO=cpu.pprof
  perflab ab main HEAD ./codec -bench Encode --layout fixed             # these two binaries only: one link per side
  perflab ab main HEAD ./codec -bench Encode --funcalign 64             # functions aligned to 64 bytes on both sides
  perflab ab /src/lib-v1 /src/lib-v2 ./parse
  perflab ab v1.2.0 v1.3.0 ./codec --budget 10m --db postgres://u@db/perflab --run-key codec-1.3 --shard 2/4`,
	common: []string{"C", "bench", "budget", "rounds", "precision", "fail-on", "require-decision", "markdown", "json", "measure"},
	docs:   []string{"docs/ab.md", "docs/ci.md", "docs/sequential.md", "docs/shards.md"},
}

type abFlags struct {
	runFlags
	gateFlags
	dir       string
	regex     string
	cpu       string
	configs   multiFlag
	markdown  string
	asJSON    bool
	profile   bool
	funcAlign int
}

func (f *abFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs, alphaAB)
	fs.StringVar(&f.dir, "C", ".", "the module's `dir` (in the git repository OLD and NEW refer to)")
	fs.StringVar(&f.regex, "bench", ".", "`regex` selecting benchmarks, as go test -bench")
	fs.IntVar(&f.rounds, "rounds", 0, "a fixed number of interleaved rounds (default: sample sequentially until every benchmark is decided, under --budget, 2m unless given, grown if the first interval of every benchmark needs more)")
	fs.StringVar(&f.benchtime, "benchtime", "100ms", "-test.benchtime of each cell")
	fs.StringVar(&f.cpu, "cpu", "", "-test.cpu `list`, e.g. 1,4")
	fs.IntVar(&f.funcAlign, "funcalign", ab.DefaultFuncAlign, "pin every function's alignment to `N` bytes on both sides (-ldflags=-funcalign=N); layouts are still sampled; 0 keeps the linker's default (32 on amd64)")
	fs.Var(&f.configs, "config", "`NAME:KEY=VAL,...` settings of one side (GOEXPERIMENT, GOGC, GODEBUG, PGO, …); give two: OLD's, then NEW's")
	f.engineFlags(fs)
	fs.BoolVar(&f.profile, "profile", false, "also profile both sides after the rounds (CPU, heap, mutex and block profiles and a trace); off by default, so the budget goes to the rounds")
	f.gateFlags.declare(fs)
	f.shardFlags(fs)
	fs.StringVar(&f.markdown, "markdown", "", "also write a Markdown summary to `file` (a PR comment, $GITHUB_STEP_SUMMARY)")
	fs.BoolVar(&f.asJSON, "json", false, "print the comparison and the gate's rulings (failures, undecided rows) as JSON instead of the table")
}

func init() {
	define(cmdAB, func(f *abFlags, pos []string, stdout, stderr io.Writer) error {
		oldArg, newArg, pkgs, err := splitABArgs(pos)
		if err != nil {
			return usageError(err)
		}
		opt, err := f.options(oldArg, newArg, pkgs, stderr)
		if err != nil {
			return err
		}
		ctx, stop := interruptible()
		defer stop()

		// The database is opened once both sides build, so a side that
		// does not leaves none behind.
		p, err := ab.Prepare(ctx, opt)
		if err != nil {
			return err
		}
		db, err := openDB(f.db, false)
		if err != nil {
			return err
		}
		defer db.Close()
		res, err := p.Measure(ctx, db)
		var run *engine.Result
		if res != nil {
			run = res.Run
		}
		// The run's own summary and report paths go to stderr with the
		// progress, so stdout holds the comparison alone. A partial run
		// (a cell that crashed in some round) is still compared, on the
		// rounds it has, and then exits 1.
		partial := afterRun(ctx, db, run, err, f.runFlags, stderr, stderr)
		if partial != nil && (err != nil || run == nil || run.Status != "partial") {
			return partial
		}
		if err == nil && run.ShardsRunning > 0 {
			return nil // another shard prints the pooled comparison
		}
		if err := res.Compare(ctx); err != nil {
			return err
		}
		if err := f.print(res, stdout, stderr); err != nil {
			return err
		}
		return partial
	})
}

// options are the comparison's options from the flags and arguments; a
// bad flag is a usage error.
func (f *abFlags) options(oldArg, newArg string, pkgs []string, progress io.Writer) (ab.Options, error) {
	rules, err := f.rules()
	if err != nil {
		return ab.Options{}, err
	}
	cpu, err := parseCPU(f.cpu)
	if err != nil {
		return ab.Options{}, usageError(err)
	}
	if f.rounds < 0 {
		return ab.Options{}, usageError(errors.New("--rounds must be at least 1"))
	}
	if err := f.seq.check(); err != nil {
		return ab.Options{}, usageError(err)
	}
	f.seq.layoutDefault(engine.LayoutRandom)
	configs, err := ab.ParseConfigs(f.configs)
	if err != nil {
		return ab.Options{}, usageError(err)
	}
	shard, err := f.shardOption(1)
	if err != nil {
		return ab.Options{}, usageError(err)
	}
	return ab.Options{
		Dir: f.dir, Old: oldArg, New: newArg, Packages: pkgs, Bench: f.regex, Configs: configs,
		Rounds: f.rounds, Benchtime: f.benchtime, CPU: cpu, Budget: f.budget, Precision: float64(f.seq.precision), MaxRounds: f.seq.maxRounds,
		Unit: f.seq.unit, Layout: f.seq.layout, FuncAlign: funcAlignOption(f.funcAlign), Measure: f.measure, NoProfile: f.noProfile || !f.profile, Seed: f.seed, Verbose: f.verbose,
		Alpha: f.alpha, Rules: rules, CacheDir: f.cache, ArtifactDir: f.out, Progress: progress, Shard: shard,
	}, nil
}

// splitABArgs reads OLD [NEW] [PKG...]: the argument after OLD is NEW
// unless it is a package pattern ("." or starting with "./", or holding
// "..."); the packages default to ".".
func splitABArgs(pos []string) (old, new string, pkgs []string, err error) {
	if len(pos) == 0 {
		return "", "", nil, errors.New(`want OLD (a git revision or a directory), e.g. "perflab ab HEAD~1" or "perflab ab main HEAD ./pkg"`)
	}
	old, rest := pos[0], pos[1:]
	if isPackagePattern(old) {
		return "", "", nil, fmt.Errorf("OLD %q looks like a package; give OLD (a revision, or a directory as an absolute or ../ path) first", old)
	}
	if len(rest) > 0 && !isPackagePattern(rest[0]) {
		new, rest = rest[0], rest[1:]
	}
	for _, p := range rest {
		if !isPackagePattern(p) {
			return "", "", nil, fmt.Errorf("%q after OLD and NEW is no package: name packages as \".\", \"./codec\" or \"./...\" (relative to -C)", p)
		}
	}
	if len(rest) == 0 {
		rest = []string{"."}
	}
	return old, new, rest, nil
}

// onePackage is the package argument of a command that builds one
// package's test binary (cmd, after the revisions named by revs): "."
// when rest is empty.
func onePackage(cmd, revs string, rest []string) (string, error) {
	pkg := "."
	switch len(rest) {
	case 0:
	case 1:
		pkg = rest[0]
	default:
		return "", fmt.Errorf("want one package after %s, got %q; run %s once per package", revs, rest, cmd)
	}
	if strings.Contains(pkg, "...") {
		return "", fmt.Errorf("package %q: %s builds one package's test binary; name one package, not a pattern", pkg, cmd)
	}
	return pkg, nil
}

func isPackagePattern(s string) bool {
	return s == "." || strings.HasPrefix(s, "./") || strings.Contains(s, "...")
}

// print prints the comparison (the table, or the JSON), writes the
// Markdown summary and applies the gate.
func (f *abFlags) print(res *ab.Result, stdout, stderr io.Writer) error {
	src := res.Source()
	var err error
	if f.asJSON {
		err = report.PairedJSON(stdout, res.Paired, src, res.Gate)
	} else {
		err = report.PairedText(stdout, res.Paired, src, res.Gate)
	}
	if err != nil {
		return err
	}
	if f.markdown != "" {
		if err := writeFileWith(f.markdown, func(w io.Writer) error { return report.PairedMarkdown(w, res.Paired, src, res.Gate) }); err != nil {
			return fmt.Errorf("--markdown: %w", err)
		}
		fmt.Fprintf(stderr, "perflab ab: summary written to %s\n", f.markdown)
	}
	return f.outcome(stderr, "perflab ab", res.Gate, "more rounds narrow the intervals: raise --budget (or --max-rounds), or measure on a quieter machine")
}

// writeFileWith writes a file through write; appending when it exists and
// is $GITHUB_STEP_SUMMARY, which other steps share.
func writeFileWith(path string, write func(io.Writer) error) error {
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if path == os.Getenv("GITHUB_STEP_SUMMARY") {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	file, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		return err
	}
	if err := write(file); err != nil {
		file.Close()
		return err
	}
	return file.Close()
}

// funcAlignOption is --funcalign as ab.Options takes it: 0 (the linker's
// default) is a negative value there, whose 0 is ab's default.
func funcAlignOption(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
