package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

var cmdBench = &command{
	rank:    15,
	name:    "bench",
	summary: "run any package's go test benchmarks with perflab's engine",
	usage:   "[PKG...] [-bench REGEX] [--by KEY [--baseline VALUE]] [--axis KEY] [flags]",
	help: `
Bench runs the benchmarks of any Go package, in any module, the way perflab
runs its own experiments: interleaved shuffled rounds across configs,
profiles, statistics, knees and crossovers along --axis, stored and
reported. No spec file is needed: the benchmarks are listed by running
them once, and their sub-benchmark levels (key=value) become axes. With
--by KEY (say impl, for BenchmarkX/impl=old and /impl=new) the results
say by how much: each value's ratio to the baseline's per point, paired
within rounds, with its interval, and a geomean across points.

Examples:
  perflab bench ./codec -bench Encode --axis size
  perflab bench ./codec -bench Encode --by impl --baseline old   # new/old per point, and a geomean
  perflab bench . -bench Work --budget 60s --precision 1%        # sample until every ratio is known to ±1%`,
	more: `
Run it from the module's directory, or point -C at it. PKG defaults to
".". Several packages, or a pattern such as ./... (the packages with
test files that go list finds), run as one experiment: one test binary
per package and config, rounds that interleave every package's
benchmarks, each result labelled with its package (--save-spec, whose
spec names one package, then refuses). --save-spec writes the equivalent
spec, to edit and run with "perflab run".

A fixed number of rounds (--rounds, 6 by default) is the default; with
--budget, --precision, --max-rounds or --unit cpu-sec/op the run samples
sequentially until its compared ratios are decided (docs/sequential.md).
With --layout random and none of those, it samples sequentially under a
default budget of 2m, which grows when the first interval of every
compared ratio needs more: a few rounds on fresh layouts give too few
layouts for an interval. Fixed rounds too few for a compared ratio's
interval (--by, or several configs) grow to what it needs when --rounds
is not given, and are refused, with the rounds that would do, when it is.

More examples:
  perflab bench -C ~/src/mymod ./... -bench . --config base --config gogc-off:GOGC=off
  perflab bench . --budget 5m --save-spec perflab.toml
  perflab bench . -bench Work --budget 60s --unit cpu-sec/op          # CPU time of the timed loop, on a shared machine
  perflab bench . -bench Work --measure instructions --budget 60s   # instructions/op beside time`,
	common: []string{"C", "bench", "by", "baseline", "axis", "config", "rounds", "budget", "precision", "save-spec"},
	docs:   []string{"docs/engine.md", "docs/sequential.md"},
}

type benchFlags struct {
	runFlags
	dir      string
	regex    string
	configs  multiFlag
	axis, by string
	baseline string
	cpu      string
	saveSpec string
	name     string
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func (f *benchFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs, alphaRuns)
	f.specFlags(fs)
	f.engineFlags(fs)
	fs.StringVar(&f.saveSpec, "save-spec", "", "also write the equivalent spec to `file`")
}

// specFlags declares the flags that shape the spec of a package's
// benchmarks (bench and init share them; init has no others of bench's).
func (f *benchFlags) specFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.dir, "C", ".", "run in `dir` (the module holding the package)")
	fs.StringVar(&f.regex, "bench", ".", "`regex` selecting benchmarks, as go test -bench")
	fs.Var(&f.configs, "config", "a config `NAME:KEY=VAL,...` (GOEXPERIMENT, GOTOOLCHAIN, GOMAXPROCS, GOGC, GOMEMLIMIT, GODEBUG); repeat for several")
	fs.StringVar(&f.axis, "axis", "", "numeric sub-benchmark `key` to find knees (and with --by, crossovers) along; benchmarks that are not one sweep are analysed along it each on its own")
	fs.StringVar(&f.by, "by", "", "`key` whose values are compared: each value's ratio to the baseline per point, with its interval and a geomean (and crossovers along --axis)")
	fs.StringVar(&f.baseline, "baseline", "", "the --by `value` the others are divided by (default: the first value the benchmarks run)")
	fs.IntVar(&f.rounds, "rounds", 0, "a fixed number of interleaved rounds (default 6; with --layout random and no --budget, sampled until the compared ratios are decided)")
	fs.StringVar(&f.benchtime, "benchtime", "100ms", "-test.benchtime of each cell")
	fs.StringVar(&f.cpu, "cpu", "", "-test.cpu `list`, e.g. 1,2,4")
	fs.StringVar(&f.name, "name", "", "experiment name (default: the package's directory name)")
	fs.StringVar(&f.cache, "cache", "", "`dir` for built sources and test binaries (default $PERFLAB_CACHE or the user cache dir)")
}

func init() {
	define(cmdBench, func(f *benchFlags, pos []string, stdout, stderr io.Writer) error {
		pkgs := pos
		if len(pkgs) == 0 {
			pkgs = []string{"."}
		}
		if err := f.seq.check(); err != nil {
			return err
		}
		ctx, stop := interruptible()
		defer stop()

		s, benches, render, err := benchSpec(ctx, f, pkgs, stderr)
		if err != nil {
			return err
		}
		if f.saveSpec != "" {
			if render == nil {
				return fmt.Errorf("--save-spec: a spec names one package, and the benchmarks of %s are in %d; run bench once per package to save specs", strings.Join(pkgs, " "), len(packagesIn(benches)))
			}
			text, err := render(f.saveSpec)
			if err != nil {
				return err
			}
			if err := os.WriteFile(f.saveSpec, text, 0o644); err != nil {
				return fmt.Errorf("writing --save-spec: %w", err)
			}
			fmt.Fprintf(stderr, "perflab: wrote %s; run it again with: perflab run %s\n", f.saveSpec, f.saveSpec)
		}
		var names []string
		for _, c := range s.Configs {
			names = append(names, c.Name)
		}
		db, err := openDB(f.db, false)
		if err != nil {
			return err
		}
		defer db.Close()
		cpu, _ := parseCPU(f.cpu)
		opt := f.engineOptions(s, "quick", db, stderr)
		opt.CPU, opt.Cells = cpu, discover.Cells(benches, names)
		if f.by != "" || len(names) > 1 {
			// Compared ratios, each per point at 1 − α: fixed rounds must
			// give them an interval.
			opt.Judge = ab.Judge{DB: db, Alpha: f.alpha, Rows: true, PerPoint: true}
		}
		if f.seq.layout == engine.LayoutRandom && f.rounds == 0 && f.budget == 0 && f.seq.precision == 0 && f.seq.maxRounds == 0 && f.seq.unit != engine.UnitCPU {
			opt.Budget, opt.DefaultBudget = ab.DefaultBudget, true
			fmt.Fprintf(stderr, "perflab: --layout random with neither --rounds nor --budget: sampling until the compared ratios are decided, under a default budget of %s\n", ab.DefaultBudget)
		}
		res, err := engine.Run(ctx, opt)
		return afterRun(ctx, db, res, err, f.runFlags, stdout, stderr)
	})
}

// benchSpec builds the spec of packages' benchmarks: it compiles each
// package, lists the benchmarks matching -bench and describes them. render
// writes the same spec for a file at another path, with the package
// relative to that file; nil when the benchmarks come from several
// packages, which a spec cannot name.
func benchSpec(ctx context.Context, f *benchFlags, pkgs []string, stderr io.Writer) (s *spec.Spec, benches []discover.Bench, render func(path string) ([]byte, error), err error) {
	dir, err := filepath.Abs(f.dir)
	if err != nil {
		return nil, nil, nil, err
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil, nil, nil, fmt.Errorf("-C %s: not a directory", f.dir)
	}
	if f.cache == "" {
		if f.cache, err = builtin.CacheDir(); err != nil {
			return nil, nil, nil, err
		}
	}
	if f.rounds < 0 {
		return nil, nil, nil, errors.New("--rounds must be at least 1")
	}
	if _, err := spec.ParseMeasure(f.measure); err != nil {
		return nil, nil, nil, fmt.Errorf("--%w", err)
	}
	if _, err := parseCPU(f.cpu); err != nil {
		return nil, nil, nil, err
	}
	var configs []discover.Config
	for _, c := range f.configs {
		pc, err := discover.ParseConfig(c)
		if err != nil {
			return nil, nil, nil, err
		}
		configs = append(configs, pc)
	}
	if len(pkgs) > 1 || strings.Contains(pkgs[0], "...") {
		found, err := discover.Packages(ctx, dir, pkgs)
		if err != nil {
			return nil, nil, nil, err
		}
		pkgs = pkgs[:0:0]
		for _, p := range found {
			if p.HasTests {
				pkgs = append(pkgs, p.Path)
			}
		}
		if len(pkgs) == 0 {
			return nil, nil, nil, fmt.Errorf("no package matched has test files, so none has benchmarks")
		}
	}
	multi := len(pkgs) > 1
	var without []string
	for _, p := range pkgs {
		l, err := listPackage(ctx, f, dir, p, multi, stderr)
		switch {
		case err != nil && multi && errors.As(err, new(*discover.NoMatchError)):
			// Another package may hold the selection's benchmarks.
			without = append(without, p)
			continue
		case err != nil && multi && errors.As(err, new(*discover.SkippedError)):
			// Every benchmark it selects skipped itself: said why, and
			// the other packages run.
			fmt.Fprintf(stderr, "perflab: %v\n", err)
			continue
		case err != nil:
			return nil, nil, nil, err
		}
		for _, b := range l {
			if len(pkgs) > 1 {
				b.Package = p
			}
			benches = append(benches, b)
		}
	}
	if len(without) > 0 {
		fmt.Fprintf(stderr, "perflab: %d of %d packages have no benchmark matching %q to run: %s\n", len(without), len(pkgs), f.regex, strings.Join(without, ", "))
	}
	if len(benches) == 0 {
		return nil, nil, nil, fmt.Errorf("no benchmark matching %q in %s", f.regex, strings.Join(pkgs, " "))
	}
	pkg := pkgs[0]
	if len(pkgs) > 1 {
		pkg = "."
		fmt.Fprintf(stderr, "perflab: %d benchmarks in %d packages\n", len(benches), len(packagesIn(benches)))
	}
	name := f.name
	if name == "" {
		name = ab.Name(dir, pkg)
	}
	cpu, _ := parseCPU(f.cpu)
	in := discover.SpecInput{Name: name, Package: pkg, Benches: benches, Configs: configs,
		Rounds: f.rounds, Benchtime: f.benchtime, CPU: cpu, Axis: f.axis, By: f.by, Baseline: f.baseline}
	text, err := discover.SpecText(in)
	if err != nil {
		return nil, nil, nil, err
	}
	render = func(path string) ([]byte, error) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(filepath.Dir(abs), filepath.Join(dir, filepath.FromSlash(pkg)))
		if err != nil {
			return nil, fmt.Errorf("the package is not reachable from %s: %w", path, err)
		}
		in := in
		in.Package = filepath.ToSlash(rel)
		if !strings.HasPrefix(in.Package, ".") {
			in.Package = "./" + in.Package
		}
		t, err := discover.SpecText(in)
		return []byte(t), err
	}
	if len(pkgs) > 1 {
		render = nil // a spec names one package
	}
	// The spec lives (virtually) in the module directory, so its package
	// resolves there, now and when the run is resumed.
	s, err = spec.Parse(filepath.Join(dir, "perflab-bench.toml"), []byte(text))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the benchmarks do not make a valid spec: %w", err)
	}
	if f.axis != "" && len(s.Axes) == 0 {
		// Not one sweep: each benchmark is analysed along its own values.
		groups, without, err := discover.AxisGroups(benches, f.axis)
		if err != nil {
			return nil, nil, nil, err
		}
		_, why := discover.SpecAxes(benches)
		fmt.Fprintf(stderr, "perflab: the benchmarks are not one sweep (%v), so each is analysed along %s on its own:\n", why, f.axis)
		for _, g := range groups {
			fmt.Fprintf(stderr, "  %s: %s = %s\n", g.Func, f.axis, strings.Join(g.Values, ", "))
		}
		if len(without) > 0 {
			fmt.Fprintf(stderr, "  (no %s level, measured but not analysed along it: %s)\n", f.axis, strings.Join(without, ", "))
		}
	}
	if f.by != "" && s.Analysis.By == "" {
		fmt.Fprintf(stderr, "perflab: --by %s ignored: it is not a key=value level of every benchmark (see the spec's comment)\n", f.by)
	}
	if f.baseline != "" && s.Analysis.By != "" && s.Analysis.Baseline == "" {
		fmt.Fprintf(stderr, "perflab: --baseline %s ignored: the benchmarks are not one sweep, so the first %s value measured is the baseline\n", f.baseline, f.by)
	}
	fmt.Fprintf(stderr, "perflab: %d benchmarks × %d configs\n", len(benches), len(s.Configs))
	return s, benches, render, nil
}

// parseCPU parses a -test.cpu style list.
func parseCPU(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 1<<16 {
			return nil, fmt.Errorf("--cpu %q: want a comma-separated list of GOMAXPROCS values ≥ 1, e.g. 1,2,4", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// afterRun reports a finished, interrupted or failed run.
func afterRun(ctx context.Context, db *store.DB, res *engine.Result, err error, f runFlags, stdout, stderr io.Writer) error {
	if ended, serr := shardEnd(stderr, res); err == nil && ended {
		return serr
	}
	if err != nil {
		if res == nil {
			if ctx.Err() != nil {
				fmt.Fprintln(stderr, "perflab: interrupted before the first round; nothing was stored")
				return errExit1
			}
			return err
		}
		fmt.Fprintf(stderr, "perflab: run %d failed: %v\n", res.RunID, err)
		return errExit1
	}
	if err := finishRun(context.WithoutCancel(ctx), db, res, f.options(), stdout, stderr); err != nil {
		return err
	}
	switch res.Status {
	case "interrupted":
		fmt.Fprintf(stderr, "perflab: completed rounds are stored. Finish the run with:\n  perflab run --resume %d --db %s\nor report on the partial run with:\n  perflab report %d --db %s\n", res.RunID, f.db, res.RunID, f.db)
		return errExit1
	case "partial":
		fmt.Fprintf(stderr, "perflab: run %d is partial: some cells or configs failed and their samples are missing (the report's Failures section says why)\n", res.RunID)
		return errExit1
	}
	return nil
}

// listPackage builds one package's test binary and lists its benchmarks
// matching -bench, printing those that skipped themselves (after the
// package's name when multi says there are several). A package that
// builds but has no benchmark the selection matches fails with a
// *discover.NoMatchError.
func listPackage(ctx context.Context, f *benchFlags, dir, pkg string, multi bool, stderr io.Writer) ([]discover.Bench, error) {
	fmt.Fprintf(stderr, "perflab: listing benchmarks of %s matching %q\n", pkg, f.regex)
	bin, _, err := gotest.Compile(ctx, gotest.Build{Dir: dir, Package: pkg, CacheDir: filepath.Join(f.cache, "bin")})
	if err != nil {
		return nil, err
	}
	listing, err := discover.Scan(ctx, bin, filepath.Join(dir, filepath.FromSlash(pkg)), f.regex)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("package %s: %w", pkg, err)
	}
	prefix := ""
	if multi {
		prefix = pkg + ": "
	}
	for _, l := range discover.SkipLines(listing.Skipped) {
		fmt.Fprintf(stderr, "perflab: %s%s\n", prefix, l)
	}
	return listing.Benches, nil
}

// packagesIn lists the packages benchmarks name.
func packagesIn(benches []discover.Bench) []string {
	var out []string
	for _, b := range benches {
		if !slices.Contains(out, b.Package) {
			out = append(out, b.Package)
		}
	}
	return out
}
