package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/revision"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

var cmdBisect = &command{
	rank:    17,
	name:    "bisect",
	summary: "which commit made it slower (or faster)? a paired verdict at every step",
	usage:   "GOOD BAD [PKG] -bench REGEX [--budget D] [--min-effect 2%] [--measure instructions] [--with FILE]... [--bench-for NAME] [--resume] [flags]",
	help: `
Bisect finds the commit between GOOD and BAD that changed the selected
benchmarks, with a paired, sequential verdict at every step instead of one
noisy sample per commit.

First GOOD and BAD are compared in interleaved rounds until it is decided
whether they differ by more than --min-effect; if not, there is nothing to
bisect (exit status 2). Then, over the first-parent history between them
(git rev-list --first-parent GOOD..BAD), each step runs the commit nearest
the middle of the range left twice a round beside both current ends, until
its contrast (MID/lo)·(MID/hi) decides it is "like GOOD" or "like BAD"
(past halfway between the ends on the log scale), and the range halves.
Every interval is an anytime-valid confidence sequence, and α is split
across the at most 1 + ⌈log₂ n⌉ steps a search of n commits needs, so the
whole search errs with probability at most α (see docs/bisect.md). A step
still undecided when its share of --budget (or --max-rounds) is spent
ends the search, which then names the range that holds the culprit.

Commits that do not build or lack a benchmark are skipped and named, as
git bisect skip does. --with FILE adds a file (a benchmark the history did
not have yet) to the package of every commit, in perflab's cache: your
working tree is never touched. Builds are cached by content; every step's
rounds are stored as a run (env keys bisect, bisect-step, bisect-good,
bisect-mid, bisect-bad), so report, compare, serve and history read them,
and --resume continues a bisect that was killed or stopped with Ctrl-C
from the store (run it with the same arguments).

Several benchmarks: the search decides on --bench-for NAME, or on the
geomean of all of them, and reports every one at the culprit.

Exit status: 0 when the culprit is found, 2 when there is nothing to
bisect, 1 when the search could not narrow the range to one commit, or on
an error.

Examples:
  perflab bisect v1.4.0 main ./codec -bench Encode --budget 10m
  perflab bisect v1.4.0 main ./codec -bench . --bench-for BenchmarkEncode/size=1k --measure instructions
  perflab bisect 9f2c1d0 HEAD . -bench Get --with ~/bench/get_bench_test.go --markdown bisect.md
  perflab bisect v1.4.0 main ./codec -bench Encode --budget 10m --resume   # after Ctrl-C`,
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
}

func (f *bisectFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	fs.Float64Var(&f.alpha, "alpha", 0.05, "the search's error rate: the chance that any step decides on the wrong side, split across the steps")
	fs.StringVar(&f.dir, "C", ".", "the module's `dir` (in the git repository GOOD and BAD refer to)")
	fs.StringVar(&f.regex, "bench", "", "`regex` selecting benchmarks, as go test -bench (required)")
	fs.StringVar(&f.benchtime, "benchtime", "100ms", "-test.benchtime of each cell's first run, which sizes its later runs")
	fs.StringVar(&f.cpu, "cpu", "", "-test.cpu `list`, e.g. 4")
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
	fs.BoolVar(&f.verbose, "v", false, "print a line per round even on a terminal")
	fs.StringVar(&f.out, "out", defaultOut(), "`dir` for the runs' artifacts, run-<id>/ inside; by default runs/ in perflab's data directory (\"perflab help storage\")")
	fs.StringVar(&f.cache, "cache", "", "`dir` for built sources and test binaries (default $PERFLAB_CACHE or the user cache dir)")
}

// errNothing ends a bisect whose endpoints do not differ: exit status 2,
// the reason already printed.
var errNothing = fmt.Errorf("nothing to bisect: %w", errUsage)

// The rounds a step may take when --max-rounds is not given: without a
// budget, and with one (which then ends each step).
const (
	defaultStepRounds = 100
	budgetStepRounds  = 5000
)

// defaultMinEffect is --min-effect's default.
const defaultMinEffect = 0.02

func init() {
	define(cmdBisect, func(f *bisectFlags, pos []string, stdout, stderr io.Writer) error {
		good, bad, pkg, err := splitBisectArgs(pos)
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
		if f.cache == "" {
			if f.cache, err = builtin.CacheDir(); err != nil {
				return err
			}
		}
		ctx, stop := interruptible()
		defer stop()
		repo, err := revision.Open(ctx, f.dir)
		if err != nil {
			return err
		}
		history, err := repo.FirstParent(ctx, good, bad)
		if err != nil {
			return err
		}
		db, err := openDB(f.db, false)
		if err != nil {
			return err
		}
		defer db.Close()
		b := &bisectRun{f: f, db: db, repo: repo, history: history, files: files, pkg: pkg, cpu: cpu, stderr: stderr, start: time.Now(),
			sources: map[int]*revision.Source{}, benches: map[int][]discover.Bench{}, failed: map[int]error{}}
		b.rule = findings.BisectRule{Unit: f.unit(), MinEffect: float64(f.minEffect)}
		if err := b.identify(ctx); err != nil {
			return err
		}
		b.planned = bisect.Planned(len(history) - 1)
		fmt.Fprintf(stderr, "perflab bisect: %d commits after GOOD %s up to BAD %s; at most %d steps, α = %g (%.3g a step); bisect %s\n",
			len(history)-1, history[0].Short(), history[len(history)-1].Short(), b.planned, f.alpha, bisect.StepAlpha(f.alpha, b.planned, 1), b.id)
		res, serr := bisect.Search(ctx, len(history)-1, f.alpha, b)
		view := findings.BisectOf(findings.Bisect{ID: b.id, Package: pkg, Regex: f.regex, Rule: b.rule, History: history}, res, b.steps)
		if serr != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("interrupted after %d steps; every stored round is kept: run the same command with --resume to continue", res.Measured())
			}
			return serr
		}
		if err := report.BisectText(stdout, view); err != nil {
			return err
		}
		if err := b.writeFiles(view); err != nil {
			return err
		}
		switch res.Stop {
		case bisect.Found:
			return nil
		case bisect.NothingToBisect, bisect.EndsUndecided:
			fmt.Fprintf(stderr, "perflab bisect: nothing to bisect (see above)\n")
			return errNothing
		}
		fmt.Fprintf(stderr, "perflab bisect: the culprit is one of %d commits (see above)\n", res.Hi-res.Lo)
		return errExit1
	})
}

// splitBisectArgs reads GOOD BAD [PKG].
func splitBisectArgs(pos []string) (good, bad, pkg string, err error) {
	if len(pos) < 2 || isPackagePattern(pos[0]) || isPackagePattern(pos[1]) {
		return "", "", "", errors.New(`want GOOD and BAD (git revisions, GOOD older), then the package: e.g. "perflab bisect v1.2.0 main ./codec -bench Encode"`)
	}
	pkg, err = onePackage("bisect", "GOOD and BAD", pos[2:])
	return pos[0], pos[1], pkg, err
}

// check validates the flags.
func (f *bisectFlags) check() error {
	if f.regex == "" {
		return errors.New("-bench REGEX is required: bisect measures the benchmarks it selects (e.g. -bench Encode, or -bench . for all)")
	}
	if !(f.alpha > 0 && f.alpha < 0.5) {
		return fmt.Errorf("--alpha %g: want an error rate between 0 and 0.5, e.g. 0.05", f.alpha)
	}
	if f.seq.maxRounds == 0 {
		f.seq.maxRounds = defaultStepRounds
		if f.budget > 0 {
			// The budget decides when a step stops; the engine's own
			// ceiling still bounds a step on a very fast machine.
			f.seq.maxRounds = budgetStepRounds
		}
	}
	if f.seq.maxRounds < 8 {
		return fmt.Errorf("--max-rounds %d: a step needs at least 8 rounds for an interval", f.seq.maxRounds)
	}
	if err := f.seq.check(); err != nil {
		return err
	}
	f.seq.layoutDefault(engine.LayoutRandom)
	m, err := spec.ParseMeasure(f.measure)
	if err != nil {
		return fmt.Errorf("--%w", err)
	}
	if f.seq.unit == engine.UnitInstructions && !m.Instructions {
		return fmt.Errorf("--unit %s needs --measure instructions", engine.UnitInstructions)
	}
	return nil
}

// unit is the unit the steps decide on.
func (f *bisectFlags) unit() string {
	if f.seq.unit != "" {
		return f.seq.unit
	}
	if m, err := spec.ParseMeasure(f.measure); err == nil && m.Instructions {
		return engine.UnitInstructions
	}
	return engine.UnitSec
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

// bisectRun runs the steps of one bisect: it is the bisect.Stepper that
// builds commits (revision, gotest), runs a step's rounds (engine) and
// judges them (findings).
type bisectRun struct {
	f       *bisectFlags
	db      *store.DB
	repo    *revision.Repo
	history []revision.CommitInfo
	files   []revision.File
	pkg     string
	cpu     []int
	stderr  io.Writer
	start   time.Time
	planned int
	id      string
	rule    findings.BisectRule
	stored  []findings.BisectRun // the runs of the bisect being resumed
	sources map[int]*revision.Source
	benches map[int][]discover.Bench
	failed  map[int]error         // commits that could not be built or listed
	set     []discover.Bench      // the benchmarks every step runs
	steps   []findings.BisectStep // the measuring steps so far
}

// identify names the bisect: a hash of everything that decides its
// course, and when it started. --resume takes the latest with that hash.
func (b *bisectRun) identify(ctx context.Context) error {
	h := sha256.New()
	n := len(b.history) - 1
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%g\x00%g\x00%s\x00%v\x00%s\x00",
		b.repo.Top, b.repo.Rel, b.history[0].Hash, b.history[n].Hash, b.pkg, b.f.regex, b.rule.Unit, b.f.measure,
		b.rule.MinEffect, b.f.alpha, b.f.benchFor, b.cpu, b.f.benchtime)
	if b.f.seq.layout != engine.LayoutRandom {
		// Bisects that sample layouts keep the identity they had before
		// layouts were a choice.
		fmt.Fprintf(h, "layout=%s\x00", b.f.seq.layout)
	}
	for _, fl := range b.files {
		fmt.Fprintf(h, "%s\x00%x\x00", fl.Name, sha256.Sum256(fl.Data))
	}
	prefix := hex.EncodeToString(h.Sum(nil))[:12]
	if !b.f.resumeSearch {
		b.id = prefix + "." + time.Now().UTC().Format("20060102T150405.000000")
		return nil
	}
	id, err := findings.LatestBisect(ctx, b.db, prefix+".")
	if err != nil {
		return err
	}
	if id == "" {
		return fmt.Errorf("--resume: %s holds no bisect with these arguments (GOOD, BAD, package, -bench, --unit, --measure, --min-effect, --alpha, --bench-for, --cpu, --benchtime, --layout and --with must be the same); run without --resume to start one", b.f.db)
	}
	b.id = id
	if b.stored, err = findings.BisectRuns(ctx, b.db, id); err != nil {
		return err
	}
	fmt.Fprintf(b.stderr, "perflab bisect: resuming bisect %s (%d stored runs)\n", id, len(b.stored))
	return nil
}

// Step runs (or reads from the store) one step of the search.
func (b *bisectRun) Step(ctx context.Context, s bisect.Step) (bisect.Outcome, error) {
	for _, i := range []int{s.Lo, s.Hi} {
		if err := b.prepare(ctx, i); err != nil {
			return bisect.Outcome{}, fmt.Errorf("%s: %w", b.name(i), err)
		}
	}
	if s.Kind == bisect.Endpoints {
		if err := b.choose(); err != nil {
			return bisect.Outcome{}, err
		}
	} else {
		if err := b.prepare(ctx, s.Mid); err != nil {
			if ctx.Err() != nil {
				return bisect.Outcome{}, ctx.Err()
			}
			why := firstLine(err.Error())
			fmt.Fprintf(b.stderr, "perflab bisect: skipping %s: %s\n", b.name(s.Mid), why)
			return bisect.Outcome{Verdict: bisect.Skip, Why: why}, nil
		}
		if missing := lacking(b.set, b.benches[s.Mid]); len(missing) > 0 {
			why := "lacks " + strings.Join(missing, ", ")
			fmt.Fprintf(b.stderr, "perflab bisect: skipping %s: %s\n", b.name(s.Mid), why)
			return bisect.Outcome{Verdict: bisect.Skip, Why: why}, nil
		}
	}
	runs, stored := b.storedRuns(s)
	st, why, err := b.measure(ctx, s, runs, stored)
	if err != nil {
		return bisect.Outcome{}, err
	}
	if why != "" && st.Rounds == 0 {
		fmt.Fprintf(b.stderr, "perflab bisect: skipping %s: %s\n", b.name(s.Mid), why)
		return bisect.Outcome{Verdict: bisect.Skip, Why: why}, nil
	}
	b.steps = append(b.steps, st)
	if s.Kind == bisect.Endpoints {
		b.rule.Up = st.BadGood.Ratio > 1
	}
	fmt.Fprintf(b.stderr, "perflab bisect: %s\n", report.BisectStepLine(st))
	return bisect.Outcome{Verdict: st.Verdict, Why: why}, nil
}

// name names commit i for people, with its role.
func (b *bisectRun) name(i int) string {
	role := ""
	switch i {
	case 0:
		role = "GOOD "
	case len(b.history) - 1:
		role = "BAD "
	}
	c := b.history[i]
	return fmt.Sprintf("%s%s (%s)", role, c.Short(), c.Subject)
}

// prepare materialises commit i (with the --with files), builds its test
// binary and lists its benchmarks, once.
func (b *bisectRun) prepare(ctx context.Context, i int) error {
	if err, ok := b.failed[i]; ok {
		return err
	}
	if _, ok := b.benches[i]; ok {
		return nil
	}
	src, err := b.repo.MaterializeWith(ctx, b.history[i].Hash, b.f.cache, b.pkg, b.files)
	if err == nil {
		b.sources[i] = src
		var l *discover.Listing
		l, err = benchesOf(ctx, src, discover.Config{Name: "probe"}, b.pkg, b.f.regex, filepath.Join(b.f.cache, "bin"))
		var be *buildError
		if errors.As(err, &be) {
			err = fmt.Errorf("does not build: %s", compileError(err.Error()))
		}
		b.benches[i] = nil
		if err == nil {
			b.benches[i] = l.Benches
			for _, line := range discover.SkipLines(l.Skipped) {
				fmt.Fprintf(b.stderr, "perflab bisect: %s: %s\n", b.name(i), line)
			}
		}
	}
	if err != nil && ctx.Err() == nil {
		b.failed[i] = err
	}
	return err
}

// choose fixes the benchmarks every step runs: those GOOD and BAD both
// have, and checks --bench-for.
func (b *bisectRun) choose() error {
	n := len(b.history) - 1
	common, onlyGood, onlyBad := splitBenches(b.benches[0], b.benches[n])
	if len(common) == 0 {
		return fmt.Errorf("no benchmark matching %q exists in both GOOD (%d) and BAD (%d); check -bench and the package, or bring one in with --with FILE", b.f.regex, len(b.benches[0]), len(b.benches[n]))
	}
	for _, l := range []struct {
		where string
		bs    []discover.Bench
	}{{"GOOD", onlyGood}, {"BAD", onlyBad}} {
		if len(l.bs) > 0 {
			fmt.Fprintf(b.stderr, "perflab bisect: only in %s, not bisected: %s\n", l.where, strings.Join(benchNames(l.bs), ", "))
		}
	}
	b.set = common
	if b.f.benchFor != "" {
		want := b.f.benchFor
		if !strings.HasPrefix(want, "Benchmark") {
			want = "Benchmark" + want
		}
		if !slices.Contains(benchNames(common), want) {
			return fmt.Errorf("--bench-for %s: no such benchmark among those selected in GOOD and BAD: %s", b.f.benchFor, strings.Join(benchNames(common), ", "))
		}
		b.rule.Bench = want
	}
	return nil
}

func benchNames(bs []discover.Bench) []string {
	var out []string
	for _, x := range bs {
		out = append(out, x.Name())
	}
	return out
}

// lacking lists the benchmarks of want that have is without.
func lacking(want, have []discover.Bench) []string {
	var out []string
	names := benchNames(have)
	for _, w := range want {
		if !slices.Contains(names, w.Name()) {
			out = append(out, w.Name())
		}
	}
	return out
}

// storedRuns are the runs of the bisect being resumed that measured step
// s's commits, and how many rounds they hold.
func (b *bisectRun) storedRuns(s bisect.Step) ([]int64, int) {
	mid := ""
	if s.Kind == bisect.Midpoint {
		mid = b.history[s.Mid].Hash
	}
	var ids []int64
	rounds := 0
	for _, r := range b.stored {
		if r.Lo == b.history[s.Lo].Hash && r.Mid == mid && r.Hi == b.history[s.Hi].Hash {
			ids = append(ids, r.ID)
			rounds += r.RoundsStored
		}
	}
	return ids, rounds
}

// measure judges step s: from its stored runs when they decide it, else
// with a new run of further rounds. why says what kept it undecided, or
// why a midpoint could not be measured (with no rounds).
func (b *bisectRun) measure(ctx context.Context, s bisect.Step, runs []int64, stored int) (findings.BisectStep, string, error) {
	if len(runs) > 0 {
		st, err := findings.LoadBisectStep(ctx, b.db, s, runs, b.rule)
		if err != nil || st.Verdict != bisect.Undecided {
			return st, "", err
		}
	}
	left := b.f.seq.maxRounds - stored
	budget, ok := b.stepBudget(s)
	switch {
	case left < 1:
		st, err := findings.LoadBisectStep(ctx, b.db, s, runs, b.rule)
		return st, fmt.Sprintf("its %d stored rounds reached --max-rounds", stored), err
	case !ok:
		st, err := findings.LoadBisectStep(ctx, b.db, s, runs, b.rule)
		return st, "the budget was spent before it", err
	}
	var spent time.Duration
	for {
		id, err := b.run(ctx, s, runs, budget, left)
		if err != nil {
			return findings.BisectStep{}, "", err
		}
		spent += budget
		runs = append(runs, id)
		st, err := findings.LoadBisectStep(ctx, b.db, s, runs, b.rule)
		if err != nil || st.Verdict != bisect.Undecided {
			return st, "", err
		}
		if st.Rounds == 0 {
			return st, b.failure(ctx, s, id), nil
		}
		if budget <= 0 {
			return st, fmt.Sprintf("it reached --max-rounds %d", b.f.seq.maxRounds), nil
		}
		// An undecided step ends the search, so what is left of the
		// budget can serve only this step: it goes on with a further
		// share (pooled with its earlier runs) while one is worth
		// starting and --max-rounds allows.
		left = b.f.seq.maxRounds - st.Rounds
		if budget, ok = b.stepBudget(s); !ok || left < 1 || ctx.Err() != nil {
			return st, fmt.Sprintf("its share of the budget (%s) was spent", spent.Round(time.Second)), nil
		}
		fmt.Fprintf(b.stderr, "perflab bisect: step %d still undecided after %d rounds; it goes on with %s more of the budget\n", s.Number, st.Rounds, budget.Round(time.Second))
	}
}

// minStepBudget is the least share of the budget a step starts with.
const minStepBudget = 5 * time.Second

// stepBudget is step s's share of what is left of --budget: an equal
// share for each of the planned steps still to come (at least one).
func (b *bisectRun) stepBudget(s bisect.Step) (time.Duration, bool) {
	if b.f.budget <= 0 {
		return 0, true
	}
	left := b.f.budget - time.Since(b.start)
	d := left / time.Duration(max(1, b.planned-s.Number+1))
	return d, d >= minStepBudget
}

// run measures step s in a new run of at most maxRounds rounds, judged
// after every round on its rounds and those of the earlier runs of the
// step.
func (b *bisectRun) run(ctx context.Context, s bisect.Step, earlier []int64, budget time.Duration, maxRounds int) (int64, error) {
	lo, hi := b.sources[s.Lo], b.sources[s.Hi]
	configs := []discover.Config{{Name: findings.BisectGood}, {Name: findings.BisectBad}}
	sources := map[string]string{findings.BisectGood: lo.ModDir, findings.BisectBad: hi.ModDir}
	title := fmt.Sprintf("bisect step %d: GOOD %s vs BAD %s", s.Number, lo.Label(), hi.Label())
	mid := ""
	if s.Kind == bisect.Midpoint {
		m := b.sources[s.Mid]
		mid = m.Commit
		configs = []discover.Config{{Name: findings.BisectGood}, {Name: findings.BisectMid}, {Name: findings.BisectMidAgain}, {Name: findings.BisectBad}}
		sources[findings.BisectMid], sources[findings.BisectMidAgain] = m.ModDir, m.ModDir
		if b.rule.Unit == engine.UnitInstructions {
			// Counts carry no one-sided noise: the midpoint runs once
			// (findings.BisectMidAgain).
			configs = slices.Delete(configs, 2, 3)
			delete(sources, findings.BisectMidAgain)
		}
		title = fmt.Sprintf("bisect step %d: %s between %s and %s", s.Number, m.Label(), lo.Short(), hi.Short())
	}
	var names []string
	for _, c := range configs {
		names = append(names, c.Name)
	}
	sp, err := revisionSpec(filepath.Join(lo.ModDir, "perflab-bisect.toml"), discover.SpecInput{
		Name: "bisect-" + abName(b.f.dir, b.pkg), Title: title, Package: b.pkg, Benches: b.set, Configs: configs,
		Rounds: findings.InitialRounds, Benchtime: b.f.benchtime, CPU: b.cpu,
	})
	if err != nil {
		return 0, err
	}
	seed := b.f.seed
	if seed != 0 {
		seed += int64(s.Number)
	}
	opt := b.f.engineOptions(sp, "quick", b.db, b.stderr)
	opt.Seed, opt.Rounds, opt.CPU, opt.Budget, opt.NoProfile = seed, findings.InitialRounds, b.cpu, budget, true
	opt.Cells, opt.Sources, opt.Sequential, opt.MaxRounds, opt.Unit = discover.Cells(b.set, names), sources, true, maxRounds, b.rule.Unit
	opt.Judge = stepJudge{b: b, step: s, earlier: earlier}
	opt.Env = []store.KV{{Key: findings.BisectKey, Value: b.id}, {Key: findings.BisectStepKey, Value: strconv.Itoa(s.Number)},
		{Key: findings.BisectLoKey, Value: lo.Commit}, {Key: findings.BisectMidKey, Value: mid}, {Key: findings.BisectHiKey, Value: hi.Commit}}
	res, err := engine.Run(ctx, opt)
	if err != nil {
		return 0, err
	}
	if ctx.Err() != nil {
		return 0, ctx.Err()
	}
	return res.RunID, nil
}

// stepJudge is the engine's judge of a bisect step's run: one item that
// reads every cell, decided when the step's rounds (with those of the
// step's earlier runs) give it a verdict.
type stepJudge struct {
	b       *bisectRun
	step    bisect.Step
	earlier []int64 // runs of the same step stored before this one
}

func (j stepJudge) Rules(*spec.Spec) engine.Rules {
	return engine.Rules{InitialRounds: findings.InitialRounds}
}

func (j stepJudge) Sequential(ctx context.Context, runID int64) (engine.Status, error) {
	st, err := findings.LoadBisectStep(ctx, j.b.db, j.step, append(slices.Clone(j.earlier), runID), j.b.rule)
	if err != nil {
		return engine.Status{}, err
	}
	var cells []plan.Cell
	for _, name := range []string{findings.BisectGood, findings.BisectMid, findings.BisectMidAgain, findings.BisectBad} {
		cells = append(cells, discover.Cells(j.b.set, []string{name})...)
	}
	line := report.BisectStepLine(st)
	return engine.Status{Items: []engine.Item{{Label: fmt.Sprintf("step %d", j.step.Number), Cells: cells, Decided: st.Verdict != bisect.Undecided, More: -1, Line: line}}}, nil
}

// FirstLook is never asked: a step's run is sequential.
func (j stepJudge) FirstLook(context.Context, int64) (engine.Status, error) {
	return engine.Status{}, nil
}

// failure says why a step's run measured nothing: the first failure
// recorded for the midpoint's cells.
func (b *bisectRun) failure(ctx context.Context, s bisect.Step, id int64) string {
	fs, err := b.db.Failures(ctx, id)
	if err != nil || len(fs) == 0 {
		return "no rounds were measured"
	}
	for _, f := range fs {
		if s.Kind == bisect.Endpoints || f.Config == findings.BisectMid || f.Config == findings.BisectMidAgain {
			return "its benchmark fails: " + firstLine(f.Reason)
		}
	}
	return "no rounds were measured: " + firstLine(fs[0].Reason)
}

// compileError is the first line of a failed build's output that names a
// Go file (the compiler's first error), else the output's first line.
func compileError(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, ".go:") {
			return strings.TrimSpace(l)
		}
	}
	return firstLine(out)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// writeFiles writes the --markdown and --html reports.
func (b *bisectRun) writeFiles(view *findings.Bisect) error {
	if b.f.markdown != "" {
		if err := writeFileWith(b.f.markdown, func(w io.Writer) error { return report.BisectMarkdown(w, view) }); err != nil {
			return fmt.Errorf("--markdown: %w", err)
		}
		fmt.Fprintf(b.stderr, "perflab bisect: Markdown written to %s\n", b.f.markdown)
	}
	if b.f.html != "" {
		if err := writeFileWith(b.f.html, func(w io.Writer) error { return report.BisectHTML(w, view) }); err != nil {
			return fmt.Errorf("--html: %w", err)
		}
		fmt.Fprintf(b.stderr, "perflab bisect: HTML written to %s\n", b.f.html)
	}
	return nil
}
