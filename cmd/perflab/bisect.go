package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/culprit"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/revision"
	"github.com/perflab/perflab/spec"
)

var cmdBisect = &command{
	rank:    17,
	name:    "bisect",
	summary: "which commit made it slower (or faster)? a paired verdict at every step",
	usage:   "GOOD BAD [PKG...] -bench REGEX [--budget D] [flags]",
	help: `
Bisect finds the commit between GOOD and BAD that changed the selected
benchmarks, with a paired, sequential verdict at every step instead of one
noisy sample per commit. GOOD and BAD are compared first: if they do not
differ by more than --min-effect there is nothing to bisect (exit status
2). Then each step runs the commit nearest the middle of the range left
beside both current ends, until it is decided to be "like GOOD" or "like
BAD", and the range halves. Every interval is anytime-valid and α is split
across the steps, so the whole search errs with probability at most α.

Exit status: 0 when the culprit is found, 2 when there is nothing to
bisect, 1 when the search could not narrow the range to one commit, or on
an error.

Examples:
  perflab bisect v1.4.0 main ./codec -bench Encode --budget 10m
  perflab bisect v1.4.0 main ./codec -bench Encode --budget 10m --resume   # after Ctrl-C`,
	more: `
The search runs over the first-parent history between GOOD and BAD (git
rev-list --first-parent GOOD..BAD). A midpoint runs twice a round beside
both current ends, and its contrast (MID/lo)·(MID/hi) decides whether it
lies past halfway between the ends on the log scale. A step still
undecided when its share of --budget (or --max-rounds) is spent ends the
search, which then names the range that holds the culprit. Like ab,
bisect relinks every build with fresh random layouts between rounds
(--layout random); --layout fixed links each commit once.

Commits that do not build or lack a benchmark are skipped and named, as
git bisect skip does. --with FILE adds a file (a benchmark the history did
not have yet) to the package of every commit, in perflab's cache: your
working tree is never touched. Builds are cached by content; every step's
rounds are stored as a run (env keys bisect, bisect-step, bisect-good,
bisect-mid, bisect-bad), so report, compare, serve and history read them,
and --resume continues a bisect that was killed or stopped with Ctrl-C
from the store (run it with the same arguments).

Several benchmarks: the search decides on --bench-for NAME, or on the
geomean of all of them, and reports every one at the culprit. Several
packages (a list, or a pattern such as ./...): every step builds one test
binary per package and commit, rounds interleave all of them, and each
benchmark is named with its package; --with needs one package.

More examples:
  perflab bisect v1.4.0 main ./codec -bench . --bench-for BenchmarkEncode/size=1k --measure instructions
  perflab bisect v1.4.0 main ./... -bench . --budget 20m
  perflab bisect 9f2c1d0 HEAD . -bench Get --with ~/bench/get_bench_test.go --markdown bisect.md`,
	common: []string{"C", "bench", "budget", "min-effect", "bench-for", "measure", "with", "resume", "markdown"},
	docs:   []string{"docs/bisect.md"},
}

type bisectFlags struct {
	runFlags
	dir          string
	regex        string
	cpu          string
	minEffect    effectFlag
	with         multiFlag
	benchFor     string
	resumeSearch bool
	markdown     string
	html         string
	funcAlign    int
}

func (f *bisectFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	fs.Float64Var(&f.alpha, "alpha", 0.05, "the search's error rate: the chance that any step decides on the wrong side, split across the steps")
	fs.StringVar(&f.dir, "C", ".", "the module's `dir` (in the git repository GOOD and BAD refer to)")
	fs.StringVar(&f.regex, "bench", "", "`regex` selecting benchmarks, as go test -bench (required)")
	fs.StringVar(&f.benchtime, "benchtime", "100ms", "-test.benchtime of each cell's first run, which sizes its later runs")
	fs.StringVar(&f.cpu, "cpu", "", "-test.cpu `list`, e.g. 4")
	fs.IntVar(&f.funcAlign, "funcalign", ab.DefaultFuncAlign, "pin every function's alignment to `N` bytes in every commit's build (-ldflags=-funcalign=N); layouts are still sampled; 0 keeps the linker's default (32 on amd64)")
	fs.DurationVar(&f.budget, "budget", 0, "finish within this `duration`: each step gets an equal share of what is left (0: no limit but --max-rounds)")
	fs.IntVar(&f.seq.maxRounds, "max-rounds", 0, "at most `N` rounds a step (default: 100 without --budget; with it, as many as the step's share of the budget buys)")
	f.seq.layoutFlag(fs)
	fs.StringVar(&f.seq.unit, "unit", "", "`unit` the steps decide on: sec/op (default), cpu-sec/op, or instructions/op (the default with --measure instructions)")
	fs.StringVar(&f.measure, "measure", "", "also measure `what` beside time: instructions (per op, under valgrind's Cachegrind; no neighbour disturbs them)")
	f.minEffect = defaultMinEffect
	fs.Var(&f.minEffect, "min-effect", "GOOD and BAD must differ by more than this `change` (e.g. 2% or 0.02) to bisect")
	fs.Var(&f.with, "with", "add `FILE` (e.g. a benchmark the history lacks) to the package of every commit; repeatable")
	fs.StringVar(&f.benchFor, "bench-for", "", "decide on benchmark `NAME` (default: the geomean of every benchmark selected)")
	fs.BoolVar(&f.resumeSearch, "resume", false, "continue the latest stored bisect with the same arguments: decided steps are read from the store, an interrupted one gets more rounds")
	fs.StringVar(&f.markdown, "markdown", "", "also write the result as Markdown to `file` (a PR comment, $GITHUB_STEP_SUMMARY)")
	fs.StringVar(&f.html, "html", "", "also write the result as an HTML page to `file`")
	fs.Int64Var(&f.seed, "seed", 0, "seed for the round order (0: from the clock)")
	fs.BoolVar(&f.verbose, "v", false, "a line per round and the full line of every look, on a terminal too and in a log (which otherwise gets a short line at most every tenth of the budget or 30s)")
	fs.StringVar(&f.out, "out", defaultOut(), "`dir` for the runs' artifacts, run-<id>/ inside; by default runs/ in perflab's data directory (\"perflab help storage\")")
	fs.StringVar(&f.cache, "cache", "", "`dir` for built sources and test binaries (default $PERFLAB_CACHE or the user cache dir)")
}

// errNothing ends a bisect whose endpoints do not differ: exit status 2,
// the reason already printed.
var errNothing = fmt.Errorf("nothing to bisect: %w", errUsage)

// defaultMinEffect is --min-effect's default.
const defaultMinEffect = 0.02

func init() {
	define(cmdBisect, func(f *bisectFlags, pos []string, stdout, stderr io.Writer) error {
		good, bad, pkgs, err := splitBisectArgs(pos)
		if err != nil {
			return err
		}
		if err := f.check(); err != nil {
			return err
		}
		cpu, err := parseCPU(f.cpu)
		if err != nil {
			return err
		}
		files, err := revision.ReadFiles(f.with)
		if err != nil {
			return fmt.Errorf("--with: %w", err)
		}
		ctx, stop := interruptible()
		defer stop()
		b, err := culprit.Prepare(ctx, f.options(good, bad, pkgs, cpu, files, stderr))
		if err != nil {
			return err
		}
		db, err := openDB(f.db, false)
		if err != nil {
			return err
		}
		defer db.Close()
		res, err := b.Run(ctx, db)
		if err != nil {
			if res != nil && ctx.Err() != nil {
				return fmt.Errorf("interrupted after %d steps; every stored round is kept: run the same command with --resume to continue", res.Search.Measured())
			}
			return err
		}
		if err := report.BisectText(stdout, res.Bisect); err != nil {
			return err
		}
		if err := f.writeFiles(res.Bisect, stderr); err != nil {
			return err
		}
		if line := report.BisectEnd(res.Bisect); line != "" {
			fmt.Fprintf(stderr, "perflab bisect: %s\n", line)
		}
		switch res.Stop {
		case bisect.Found:
			return nil
		case bisect.NothingToBisect, bisect.EndsUndecided:
			return errNothing
		}
		return errExit1
	})
}

// options are the bisect's options from the flags and arguments.
func (f *bisectFlags) options(good, bad string, pkgs []string, cpu []int, files []revision.File, progress io.Writer) culprit.Options {
	return culprit.Options{
		Dir: f.dir, Good: good, Bad: bad, Packages: pkgs, Bench: f.regex, BenchFor: f.benchFor, With: files,
		Alpha: f.alpha, MinEffect: float64(f.minEffect), Unit: f.seq.unit, Measure: f.measure, Benchtime: f.benchtime, CPU: cpu,
		Budget: f.budget, MaxRounds: f.seq.maxRounds, Layout: f.seq.layout, FuncAlign: funcAlignOption(f.funcAlign), Seed: f.seed, Verbose: f.verbose, Resume: f.resumeSearch,
		CacheDir: f.cache, ArtifactDir: f.out, Progress: progress,
	}
}

// splitBisectArgs reads GOOD BAD [PKG...]: none is ".".
func splitBisectArgs(pos []string) (good, bad string, pkgs []string, err error) {
	if len(pos) < 2 || isPackagePattern(pos[0]) || isPackagePattern(pos[1]) {
		return "", "", nil, errors.New(`want GOOD and BAD (git revisions, GOOD older), then the packages: e.g. "perflab bisect v1.2.0 main ./codec -bench Encode"`)
	}
	return pos[0], pos[1], pos[2:], nil
}

// check validates the flags.
func (f *bisectFlags) check() error {
	if f.regex == "" {
		return errors.New("-bench REGEX is required: bisect measures the benchmarks it selects (e.g. -bench Encode, or -bench . for all)")
	}
	if !(f.alpha > 0 && f.alpha < 0.5) {
		return fmt.Errorf("--alpha %g: want an error rate between 0 and 0.5, e.g. 0.05", f.alpha)
	}
	if f.seq.maxRounds != 0 && f.seq.maxRounds < 8 {
		return fmt.Errorf("--max-rounds %d: a step needs at least 8 rounds for an interval", f.seq.maxRounds)
	}
	if err := f.seq.check(); err != nil {
		return err
	}
	m, err := spec.ParseMeasure(f.measure)
	if err != nil {
		return fmt.Errorf("--%w", err)
	}
	if f.seq.unit == engine.UnitInstructions && !m.Instructions {
		return fmt.Errorf("--unit %s needs --measure instructions", engine.UnitInstructions)
	}
	return nil
}

// effectFlag is a relative change: "2%" or "0.02".
type effectFlag float64

func (e *effectFlag) String() string { return (*precisionFlag)(e).String() }

func (e *effectFlag) Set(s string) error {
	v, err := parsePrecision(s)
	if err != nil {
		return errors.New("want a change such as 2% or 0.02, between 0 and 100%")
	}
	*e = effectFlag(v)
	return nil
}

// writeFiles writes the --markdown and --html reports.
func (f *bisectFlags) writeFiles(view *findings.Bisect, stderr io.Writer) error {
	if f.markdown != "" {
		if err := writeFileWith(f.markdown, func(w io.Writer) error { return report.BisectMarkdown(w, view) }); err != nil {
			return fmt.Errorf("--markdown: %w", err)
		}
		fmt.Fprintf(stderr, "perflab bisect: Markdown written to %s\n", f.markdown)
	}
	if f.html != "" {
		if err := writeFileWith(f.html, func(w io.Writer) error { return report.BisectHTML(w, view) }); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		fmt.Fprintf(stderr, "perflab bisect: HTML written to %s\n", f.html)
	}
	return nil
}
