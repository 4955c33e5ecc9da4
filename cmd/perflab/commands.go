package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// common holds flags several commands share.
type common struct {
	db    string
	alpha float64
}

func (c *common) dbFlag(fs *flag.FlagSet) {
	fs.StringVar(&c.db, "db", defaultDB(), "SQLite database `path` holding runs, or a postgres:// URL; by default perflab.db in perflab's data directory (\"perflab help storage\")")
}

// What --alpha sets, in each command's help.
const (
	alphaRuns    = "significance level of the crossover tests along an axis (family-wise across its points); medians, ratios and claim verdicts keep their 95% levels (docs/knees.md)"
	alphaAB      = "error rate of the comparison: with --rounds each unit's m rows are judged on sign-test intervals at 1 − α/m, which hold together at 1 − α; a sequential run decides them by e-BH at false discovery rate α and prints them at 1 − α·k/m (k decided); a --fail-on gate fails a row at p·m ≤ α"
	alphaCompare = "false discovery rate: each row's Mann-Whitney U p-value is Benjamini–Hochberg adjusted over its unit's rows, and its interval of Δ is at 1 − α"
	alphaHistory = "significance level of each change point's permutation test"
	alphaServe   = "significance level of the pages: crossovers (as run), compared changes (as compare), change points (as history)"
)

// alphaFlag declares --alpha; usage says what it sets in the command.
func (c *common) alphaFlag(fs *flag.FlagSet, usage string) {
	fs.Float64Var(&c.alpha, "alpha", 0.05, usage)
}

func (c *common) options() analysis.Options {
	return analysis.Options{Alpha: c.alpha, Confidence: analysis.DefaultConfidence}
}

// ---- list ----

var cmdList = &command{
	rank:    10,
	name:    "list",
	summary: "list the built-in experiments: axes, configs and claims",
	usage:   "[EXPERIMENT]",
	help: `
List prints each built-in experiment with its sweep axes (quick and full
values), configurations and the published claims it tests.

Example:
  perflab list
  perflab list poolreuse`,
	docs: []string{"docs/experiments.md"},
}

func init() {
	register(cmdList)
	cmdList.run = func(args []string, stdout, stderr io.Writer) error {
		fs := flag.NewFlagSet("list", flag.ContinueOnError)
		pos, err := parse(cmdList, fs, args, stderr)
		if err != nil {
			return err
		}
		names := builtin.Names()
		if len(pos) > 0 {
			names = pos
		}
		var specs []*spec.Spec
		for _, name := range names {
			s, err := builtin.Spec(name)
			if err != nil {
				// The experiments before the unknown one are listed.
				report.ExperimentsText(stdout, specs)
				return err
			}
			specs = append(specs, s)
		}
		return report.ExperimentsText(stdout, specs)
	}
}

// ---- run ----

var cmdRun = &command{
	rank:    20,
	name:    "run",
	summary: "run experiments (built-in names or spec files) and report them",
	usage:   "[EXPERIMENT | SPEC.toml]... [flags]",
	help: `
Run executes experiments, built-in ones by name or spec files: each cell
(sub-benchmark selection × config) runs once per round, rounds are
shuffled, and every completed round is committed to the database. Without
arguments it runs the whole built-in suite. At the end it prints the
claims table and writes report.md and report.html beside the run's
profiles. Ctrl-C stops after discarding the round in flight; completed
rounds stay stored, and --resume completes the run.

Examples:
  perflab run poolreuse --quick
  perflab run --quick                      # the whole built-in suite
  perflab run ./bench/spec.toml --rounds 10 --db team.db`,
	more: `
Two looks: after the planned rounds the claims' counted checks are judged
at a third of α; the cells of those still undecided run follow-up rounds
(each check its own number, at most four times the planned rounds, all
within a fifth of the planned rounds' time or 30 s), and those checks are
judged again on all rounds at the rest of α.
--no-follow-up runs exactly the planned rounds, judged once at α. With
--budget, --precision or --max-rounds the run samples sequentially
instead (docs/sequential.md).

Shards: N processes, on N machines, share one run in one PostgreSQL
database; shard K runs rounds K, K+N, K+2N, … (each round whole on one
machine). Every shard gets the same spec, flags, --seed and --run-key; a
killed shard started again with the same K completes its missing rounds.
  perflab run spec.toml --quick --seed 7 --db postgres://u@db/perflab --run-key sweep-7 --shard 2/3
With --shard /3, K is JOB_COMPLETION_INDEX+1 (a Kubernetes Indexed Job).

Instruction counts beside time (valgrind's Cachegrind):
  perflab run ./bench/spec.toml --measure instructions`,
	common: []string{"quick", "full", "rounds", "budget", "resume", "db", "out", "measure", "no-profile"},
	docs:   []string{"docs/engine.md", "docs/experiments.md", "docs/sequential.md", "docs/shards.md"},
}

type runFlags struct {
	common
	quick, full bool
	rounds      int
	benchtime   string
	budget      time.Duration
	resume      runRefFlag
	newRun      bool
	seed        int64
	noProfile   bool
	noFollowUp  bool
	verbose     bool
	out         string
	cache       string
	measure     string
	seq         seqFlags
	shard       string
	runKey      string
}

func (f *runFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs, alphaRuns)
	fs.BoolVar(&f.quick, "quick", false, "quick mode: fewer axis values and short benchtimes (minutes)")
	fs.BoolVar(&f.full, "full", false, "full mode: every axis value, longer benchtimes (the default)")
	fs.IntVar(&f.rounds, "rounds", 0, "override the mode's number of rounds")
	fs.StringVar(&f.benchtime, "benchtime", "", "override the mode's -test.benchtime (e.g. 100ms or 10000x)")
	fs.Var(&f.resume, "resume", "complete the missing rounds of stored `RUN` (an ID, latest or latest~N; interrupted or killed), with its plan and the same test binaries")
	fs.BoolVar(&f.newRun, "new-run", false, "with --resume: if a test binary changed since the run was recorded, start a new run with its plan instead of refusing")
	f.shardFlags(fs)
	fs.BoolVar(&f.noFollowUp, "no-follow-up", false, "run exactly the planned rounds: no follow-up rounds for the claim checks still undecided after them (see \"Two looks\" below)")
	f.engineFlags(fs)
}

// engineFlags declares the flags run and bench share.
func (f *runFlags) engineFlags(fs *flag.FlagSet) {
	fs.DurationVar(&f.budget, "budget", 0, "finish each experiment within this `duration`: an initial pass fitted to half of it, then rounds of the cells of undecided checks while it lasts (sequential sampling)")
	fs.Int64Var(&f.seed, "seed", 0, "seed for the round order (0: from the clock)")
	fs.BoolVar(&f.noProfile, "no-profile", false, "skip the profiling pass")
	fs.BoolVar(&f.verbose, "v", false, "a line per round and the full line of every look at the open checks, on a terminal too (where one status line updates in place) and in a log (which otherwise gets a short line at most every tenth of the budget or 30s)")
	fs.StringVar(&f.out, "out", defaultOut(), "`dir` for profiles and reports, run-<id>/ inside; by default runs/ in perflab's data directory (\"perflab help storage\")")
	if fs.Lookup("cache") == nil {
		fs.StringVar(&f.cache, "cache", "", "`dir` for built sources and test binaries (default $PERFLAB_CACHE or the user cache dir)")
	}
	fs.StringVar(&f.measure, "measure", "", "also measure `what` beside time: instructions (per op, under valgrind's Cachegrind; see docs/instructions.md) or instructions,cache (plus simulated cache misses)")
	f.seq.declare(fs)
}

func init() {
	define(cmdRun, func(f *runFlags, pos []string, stdout, stderr io.Writer) error {
		if err := f.checkFlags(); err != nil {
			return err
		}
		mode := "full"
		if f.quick {
			mode = "quick"
		}
		if f.cache == "" {
			var err error
			if f.cache, err = builtin.CacheDir(); err != nil {
				return err
			}
		}
		if f.newRun && f.resume.ref == "" {
			return errors.New("--new-run goes with --resume RUN")
		}
		if f.resume.ref != "" {
			if len(pos) > 0 {
				return errors.New("--resume takes the run from the database; give no experiments with it")
			}
			if err := f.resumeIgnores(); err != nil {
				return err
			}
			return resumeRun(*f, stdout, stderr)
		}
		if len(pos) == 0 {
			pos = builtin.Names()
		}
		// Load every spec first, so a bad one fails before any run is recorded.
		var specs []*spec.Spec
		var shipped []bool // built-in specs, whose benchmarks' levels ship with them
		for _, p := range pos {
			s, err := loadSpec(p, f.cache)
			if err != nil {
				return err
			}
			specs = append(specs, s)
			shipped = append(shipped, isBuiltinArg(p))
		}
		sh, err := f.shardOption(len(specs))
		if err != nil {
			return err
		}
		db, err := openDB(f.db, false)
		if err != nil {
			return err
		}
		defer db.Close()
		ctx, stop := interruptible()
		defer stop()

		failed := false
		for i, s := range specs {
			opt := f.engineOptions(s, mode, db, stderr)
			opt.NamesOnly, opt.Shard = shipped[i], sh
			res, err := engine.Run(ctx, opt)
			if err := afterRun(ctx, db, res, err, *f, stdout, stderr); err != nil {
				if ctx.Err() != nil || res == nil {
					return err
				}
				failed = true
			}
		}
		if failed {
			return errExit1
		}
		return nil
	})
}

// checkFlags refuses what run cannot do with its flags alone, before
// anything is loaded or stored.
func (f *runFlags) checkFlags() error {
	if f.quick && f.full {
		return errors.New("--quick and --full exclude each other")
	}
	if _, err := spec.ParseMeasure(f.measure); err != nil {
		return fmt.Errorf("--%w", err)
	}
	return f.seq.check()
}

// resumeRun completes a stored run's missing rounds.
func resumeRun(f runFlags, stdout, stderr io.Writer) error {
	db, err := openDB(f.db, true)
	if err != nil {
		return err
	}
	defer db.Close()
	id, err := runID(context.Background(), db, f.resume.ref)
	if err != nil {
		return err
	}
	run, err := db.GetRun(context.Background(), id)
	if err != nil {
		return err
	}
	s, err := runSpec(run, f.cache)
	if err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	res, err := engine.Resume(ctx, f.engineOptions(s, run.Mode, db, stderr), run.ID)
	return afterRun(ctx, db, res, err, f, stdout, stderr)
}

// runSpec re-parses a stored run's spec where its package still is. A
// built-in experiment whose cached sources are gone is written out again,
// provided its spec has not changed since the run.
func runSpec(run *store.Run, cache string) (*spec.Spec, error) {
	s, err := spec.Parse(run.SpecPath, []byte(run.SpecText))
	if err != nil {
		return nil, fmt.Errorf("run %d's stored spec: %w", run.ID, err)
	}
	if _, err := os.Stat(s.Dir); err == nil {
		return s, nil
	}
	if !builtin.Has(run.Experiment) {
		return nil, fmt.Errorf("run %d's package directory %s is gone; it cannot be resumed", run.ID, s.Dir)
	}
	b, err := builtin.Load(run.Experiment, cache)
	if err != nil {
		return nil, err
	}
	if string(b.Source) != run.SpecText {
		return nil, fmt.Errorf("the built-in %s changed since run %d; start a new run", run.Experiment, run.ID)
	}
	return b, nil
}

// isBuiltinArg reports whether loadSpec reads arg as a built-in experiment.
func isBuiltinArg(arg string) bool {
	return !strings.HasSuffix(arg, ".toml") && !strings.ContainsRune(arg, os.PathSeparator) && builtin.Has(arg)
}

// loadSpec resolves a built-in name or a spec file path.
func loadSpec(arg, cache string) (*spec.Spec, error) {
	if strings.HasSuffix(arg, ".toml") || strings.ContainsRune(arg, os.PathSeparator) {
		return spec.Load(arg)
	}
	if builtin.Has(arg) {
		return builtin.Load(arg, cache)
	}
	if st, err := os.Stat(arg); err == nil && !st.IsDir() {
		return spec.Load(arg)
	}
	return nil, fmt.Errorf("%q is neither a built-in experiment (%s) nor a spec file", arg, strings.Join(builtin.Names(), ", "))
}

// finishRun analyses a run, stores its verdicts, writes report.md and prints
// the claims table.
func finishRun(ctx context.Context, db *store.DB, res *engine.Result, opt analysis.Options, stdout, stderr io.Writer) error {
	in, err := findings.Load(ctx, db, res.RunID, opt)
	if err != nil {
		return err
	}
	if err := report.WriteSequential(stderr, in); err != nil {
		return err
	}
	if err := storeVerdicts(ctx, db, in); err != nil {
		return err
	}
	if err := os.MkdirAll(res.Artifacts, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", res.Artifacts, err)
	}
	path := filepath.Join(res.Artifacts, "report.md")
	var buf strings.Builder
	if err := report.Markdown(&buf, in); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(buf.String()), 0o644); err != nil {
		return fmt.Errorf("writing report: %w", err)
	}
	fmt.Fprintf(stdout, "\n%s run %d: %s, %d/%d rounds, %d samples, %d failed cell runs\n", in.Run.Experiment, res.RunID, res.Status, res.RoundsDone, res.RoundsTotal, len(in.Results), report.FailedCellRuns(in))
	for _, l := range report.NotTestableConfigs(in) {
		fmt.Fprintln(stdout, l)
	}
	if len(in.Verdicts) == 0 {
		// No claims to judge: the results themselves.
		if err := report.ResultsTable(stdout, in.SummaryRows(), in.Opt.Confidence); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
	} else if err := report.ClaimsTable(stdout, in); err != nil {
		return err
	}
	if err := report.RatiosTable(stdout, in); err != nil {
		return err
	}
	htmlPath, err := writeRunHTML(res.Artifacts, in)
	if err != nil {
		return err
	}
	storedLines(stdout, db, res.RunID, path, htmlPath)
	return nil
}

// storedLines says where a run was stored and its reports written, with
// full paths, so a run never leaves files where nobody looks.
func storedLines(w io.Writer, db *store.DB, id int64, paths ...string) {
	where := db.Path()
	if !store.IsServer(where) {
		where = shownPath(where)
	}
	fmt.Fprintf(w, "stored: run %d in %s\n", id, where)
	for _, p := range paths {
		fmt.Fprintf(w, "report: %s\n", shownPath(p))
	}
}

// ---- runs ----

var cmdRuns = &command{
	rank:    30,
	name:    "runs",
	summary: "list the runs stored in the database",
	usage:   "[flags]",
	help: `
Runs lists stored runs, newest first: ID, experiment, mode, status, rounds
and start time. A run whose perflab process died (killed, machine
restarted) shows as "interrupted", with the command that resumes it.

Examples:
  perflab runs                  # the runs in perflab's data directory
  perflab runs --db team.db`,
	docs: []string{"docs/storage.md"},
}

func init() {
	flagSets["runs"] = func(fs *flag.FlagSet) { new(common).dbFlag(fs) }
	register(cmdRuns)
	cmdRuns.run = func(args []string, stdout, stderr io.Writer) error {
		var c common
		fs := flag.NewFlagSet("runs", flag.ContinueOnError)
		c.dbFlag(fs)
		if _, err := parse(cmdRuns, fs, args, stderr); err != nil {
			return err
		}
		db, err := openReadDB(c.db)
		if err != nil {
			return err
		}
		defer db.Close()
		runs, err := db.Runs(context.Background())
		if err != nil {
			return err
		}
		return listRuns(stdout, db, runs, c.db)
	}
}

// ---- report ----

var cmdReport = &command{
	rank:    50,
	name:    "report",
	summary: "write the Markdown (or --html) report of a stored run",
	usage:   "[RUN] [flags]",
	help: `
Report writes a run's Markdown report: the claims table (each check's
tested predicate beside its verdict), by how much each value of the spec's
by key differs from the baseline (per point and as a geomean, paired
within rounds), environment, tables of medians with confidence intervals,
crossovers, knees, failures and the profile paths. --html writes the same
sections as one page with charts and a forest plot per check. RUN is a run
ID or "latest" (the default). At the same --alpha, perflab serve's run page
shows the same verdicts.

Examples:
  perflab report            # the latest run, to stdout
  perflab report 3 -o run3.md
  perflab report 3 --html -o run3.html   # charts, tables and claims in one file`,
	docs: []string{"docs/reports.md"},
}

func init() {
	flagSets["report"] = func(fs *flag.FlagSet) { declareReport(fs, new(common), new(string)); declareHTMLFlag(fs, new(bool)) }
	register(cmdReport)
	cmdReport.run = func(args []string, stdout, stderr io.Writer) error {
		var c common
		var out string
		var html bool
		fs := flag.NewFlagSet("report", flag.ContinueOnError)
		declareReport(fs, &c, &out)
		declareHTMLFlag(fs, &html)
		pos, err := parse(cmdReport, fs, args, stderr)
		if err != nil {
			return err
		}
		in, err := loadRun(c, pos)
		if err != nil {
			return err
		}
		w := stdout
		if out != "" {
			file, err := os.Create(out)
			if err != nil {
				return err
			}
			defer file.Close()
			w = file
		}
		if html {
			return writeHTML(w, in, outDir(out))
		}
		return report.Markdown(w, in)
	}
}

func declareReport(fs *flag.FlagSet, c *common, out *string) {
	c.dbFlag(fs)
	c.alphaFlag(fs, alphaRuns)
	fs.StringVar(out, "o", "", "write to `file` instead of stdout")
}

func loadRun(c common, pos []string) (*findings.Run, error) {
	in, err := loadRunInput(c, pos)
	if err != nil {
		return nil, err
	}
	return findings.Of(in), nil
}

// loadRunInput reads what the store holds about the run pos names (the
// latest when none), noting on stderr the rounds a sharded run lacks.
func loadRunInput(c common, pos []string) (findings.Input, error) {
	if len(pos) > 1 {
		return findings.Input{}, fmt.Errorf("want at most one run ID, got %q", pos)
	}
	db, err := openReadDB(c.db)
	if err != nil {
		return findings.Input{}, err
	}
	defer db.Close()
	ctx := context.Background()
	arg := ""
	if len(pos) == 1 {
		arg = pos[0]
	}
	id, err := runID(ctx, db, arg)
	if err != nil {
		return findings.Input{}, err
	}
	in, err := findings.Read(ctx, db, id, c.options())
	if err == nil {
		noteMissing(ctx, os.Stderr, db, in.Run)
	}
	return in, err
}

// ---- export ----

var cmdExport = &command{
	rank:    60,
	name:    "export",
	summary: "print a stored run as benchfmt text (what benchstat reads)",
	usage:   "[RUN] [flags]",
	help: `
Export prints every sample of a run's planned rounds in the Go benchmark
format, with the environment and each result's perflab config as
configuration keys, so benchstat splits configs into tables. Follow-up
rounds serve the claim checks alone, as in the report, so benchstat's
medians are the report's.

Example:
  perflab export latest | benchstat -`,
	docs: []string{"docs/reports.md"},
}

func init() {
	flagSets["export"] = func(fs *flag.FlagSet) { new(common).dbFlag(fs) }
	register(cmdExport)
	cmdExport.run = func(args []string, stdout, stderr io.Writer) error {
		c := common{alpha: 0.05}
		fs := flag.NewFlagSet("export", flag.ContinueOnError)
		c.dbFlag(fs)
		pos, err := parse(cmdExport, fs, args, stderr)
		if err != nil {
			return err
		}
		in, err := loadRun(c, pos)
		if err != nil {
			return err
		}
		return report.Export(stdout, in)
	}
}

// ---- analyze ----

var cmdAnalyze = &command{
	rank:    40,
	name:    "analyze",
	summary: "summarize benchfmt files or a stored run; find knees and crossovers",
	usage:   "[FILE... | RUN] [--axis KEY] [--by KEY [--baseline VALUE]] [--json]",
	help: `
Analyze reads Go benchmark output files (what benchstat reads; "-" is stdin)
or a stored run (an ID or "latest"), and prints the median and 95%
confidence interval of every benchmark and unit. With --axis it judges every
series along that sub-benchmark key (/key=value in the names): a knee when a
two-segment line beats a straight line and smooth curves (power law,
exponential, quadratic) by AICc, with a breakpoint interval from resampling
rounds, else smooth growth with its exponent, or undecided. With --by it
gives, per point, the paired ratio of each value of that key to the
baseline value (--baseline, default the first value seen) with its 95%
interval and a geomean across points, read as better or worse in the
unit's direction (a rate such as B/s is better higher); with --axis too it
compares series that differ in that key point by point (paired per-round
ratios, the family-wise error held within each sign across the points)
and reports crossovers with their direction and an interval for the
crossing.

A stored run is analysed as its report is: its planned rounds (follow-up
rounds serve the claim checks alone), under the rule its sampling calls
for, with --axis, --by and --baseline defaulting to the spec's analysis,
so its numbers are those of the report's tables.

Examples:
  go test -bench . -count 6 > new.txt && perflab analyze new.txt
  perflab analyze latest --axis reuse --by variant --json`,
	docs: []string{"docs/reports.md", "docs/knees.md"},
}

type analyzeFlags struct {
	common
	axis, by string
	baseline string
	asJSON   bool
	unit     string
}

func (f *analyzeFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs, alphaRuns)
	fs.StringVar(&f.axis, "axis", "", "numeric sub-benchmark `key` to find knees along (default: the spec's for a run)")
	fs.StringVar(&f.by, "by", "", "`key` whose values are compared: ratios to the baseline, and crossovers along --axis")
	fs.StringVar(&f.baseline, "baseline", "", "the --by `value` others are divided by (default: the spec's for a run, else the first seen)")
	fs.BoolVar(&f.asJSON, "json", false, "print the summaries, knees, crossovers and ratios as JSON")
	fs.StringVar(&f.unit, "unit", "", "only this `unit` (e.g. sec/op)")
}

func init() {
	define(cmdAnalyze, func(f *analyzeFlags, pos []string, stdout, stderr io.Writer) error {
		if f.baseline != "" && f.by == "" {
			return errors.New("--baseline needs --by: it is a value of that key")
		}
		opt := findings.AnalyzeOptions{Axis: f.axis, By: f.by, Baseline: f.baseline, Unit: f.unit}
		var a *findings.Analysis
		if len(pos) == 0 || (len(pos) == 1 && isRunRef(pos[0]) && !fileExists(pos[0])) {
			in, err := loadRunInput(f.common, pos)
			if err != nil {
				return err
			}
			a = findings.AnalyzeRun(in, opt)
		} else {
			var sets []*findings.Set
			for _, p := range pos {
				s, err := readSetFile(p, "perflab analyze", stderr)
				if err != nil {
					return err
				}
				sets = append(sets, s)
			}
			a = findings.AnalyzeSets(sets, opt, f.options())
		}
		if len(a.Summaries) == 0 {
			return errors.New("no benchmark results in the input")
		}
		if err := checkKeys(a, [2]string{"--axis", f.axis}, [2]string{"--by", f.by}); err != nil {
			return usageError(err)
		}
		if f.asJSON {
			return report.JSON(stdout, a)
		}
		return report.AnalyzeText(stdout, a)
	})
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
