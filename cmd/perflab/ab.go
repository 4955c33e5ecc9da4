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

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/revision"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

var cmdAB = &command{
	rank:    16,
	name:    "ab",
	summary: "did my change make it faster? two revisions interleaved in one run, with a verdict",
	usage:   "OLD [NEW] [PKG] [-bench REGEX] [--budget D] [--precision P] [--fail-on RULES [--require-decision]] [--markdown FILE] [--json] [--measure instructions] [flags]",
	help: `
AB answers "did my change make it faster?". It builds the package's test
binary at two revisions of its git repository, OLD and NEW, and runs the
selected benchmarks as cells × {old, new} in interleaved, shuffled rounds,
so drift of the machine hits both sides alike and every round gives one
paired new/old ratio. It prints, per benchmark and unit, the old and new
medians, the paired change new/old with its confidence interval and
p-value, both adjusted for the unit's m rows (each interval at 1 − α/m,
so they hold together), a verdict that matches the printed interval
(faster or slower when it excludes no change, "no difference" when it
lies within ±1%, undecided otherwise), and the paired geomean. The run is stored like any other: report, HTML,
serve, history. With --budget or --precision, rounds are added while a
ratio is undecided and every interval is an anytime-valid confidence
sequence instead (see docs/sequential.md), so looking after each round
does not inflate errors.

` + wrapText(analysis.PairedMethod, 72) + `

Each side is relinked with a fresh random function layout
(-ldflags=-randlayout) every few rounds, between rounds: where the linker
puts code moves a benchmark by more than many changes do, so a
comparison of two binaries linked once speaks for those binaries only.
The "layout" column says how much layout alone moves each benchmark. --layout fixed links each side once (and
says its verdicts hold for those two binaries only); a toolchain whose
linker lacks -randlayout (go1.22 and older) keeps one layout, and ab
says so. With --measure instructions, a time change whose
instructions/op did not move is marked as not in the executed work.

OLD and NEW are git revisions (a commit, branch, tag, HEAD~1, …) or
directories. NEW defaults to the working tree, uncommitted changes
included. Revisions are exported into perflab's cache (git archive) and
the working tree is copied there (tracked files as they are on disk, and
untracked files git does not ignore), so your working tree and index are
never touched. A directory is used in place and stands for the module
directory; write it as an absolute path or starting with ../ when it is
NEW, since "." and "./x" are package patterns. PKG is one package, "." by
default, relative to the module directory (-C).

Benchmarks that exist on one side only are listed, not compared. A side
that does not build is named and ab exits 1.

--fail-on makes ab a CI gate on the paired changes ("sec/op>+5%" fails on
slow-downs of more than 5%); with --budget it adds rounds until every
gated time ratio (sec/op, cpu-sec/op, instructions/op) clears the limits,
or the budget is spent. --markdown writes a summary for a pull-request
comment or $GITHUB_STEP_SUMMARY, --json the comparison and the gate's
rulings.

` + gateHelp + `

--config pairs compare other axes of the same question: the first applies
to OLD, the second to NEW, e.g. the same revision with GOGC changed, or
with PGO off against a profile (PGO=off, PGO=auto or PGO=FILE).

Examples:
  perflab ab HEAD~1                        # the last commit + your uncommitted changes vs its parent
  perflab ab main HEAD ./codec -bench Encode --budget 2m
  perflab ab main HEAD ./codec -bench Encode --budget 2m --precision 1%   # stop once every ratio is known to ±1%
  perflab ab main HEAD ./codec -bench Encode --measure instructions     # instructions/op beside time
  perflab ab "$BASE_SHA" HEAD ./pkg -bench . --fail-on 'sec/op>+5%' --markdown "$GITHUB_STEP_SUMMARY"
  perflab ab "$BASE_SHA" HEAD ./pkg -bench . --budget 5m --fail-on 'sec/op>+2%' --require-decision   # exit 3 unless every row is decided
  perflab ab HEAD HEAD . --config old:PGO=off --config new:PGO=cpu.pprof
  perflab ab main HEAD ./codec -bench Encode --layout fixed   # these two binaries only: one link per side
  perflab ab /src/lib-v1 /src/lib-v2 ./parse`,
}

type abFlags struct {
	runFlags
	gateFlags
	dir      string
	regex    string
	cpu      string
	configs  multiFlag
	markdown string
	asJSON   bool
}

func (f *abFlags) declare(fs *flag.FlagSet) {
	f.dbFlag(fs)
	f.alphaFlag(fs)
	fs.StringVar(&f.dir, "C", ".", "the module's `dir` (in the git repository OLD and NEW refer to)")
	fs.StringVar(&f.regex, "bench", ".", "`regex` selecting benchmarks, as go test -bench")
	fs.IntVar(&f.rounds, "rounds", 10, "interleaved rounds (--budget chooses them instead)")
	fs.StringVar(&f.benchtime, "benchtime", "100ms", "-test.benchtime of each cell")
	fs.StringVar(&f.cpu, "cpu", "", "-test.cpu `list`, e.g. 1,4")
	fs.Var(&f.configs, "config", "`NAME:KEY=VAL,...` settings of one side (GOEXPERIMENT, GOGC, GODEBUG, PGO, …); give two: OLD's, then NEW's")
	f.engineFlags(fs)
	f.gateFlags.declare(fs)
	fs.StringVar(&f.markdown, "markdown", "", "also write a Markdown summary to `file` (a PR comment, $GITHUB_STEP_SUMMARY)")
	fs.BoolVar(&f.asJSON, "json", false, "print the comparison and the gate's rulings (failures, undecided rows) as JSON instead of the table")
}

// abSide is one side of an A/B run: its source and its settings.
type abSide struct {
	name  string // "old" or "new": the config's name in the run
	src   *revision.Source
	env   []string // settings from --config (GOGC=off, PGO=/abs/cpu.pprof, …)
	label string   // the --config name, when one was given
}

// Label names the side for people: the revision and any settings.
func (s abSide) Label() string {
	l := s.src.Label()
	if s.label != "" || len(s.env) > 0 {
		l += " [" + s.label
		if len(s.env) > 0 {
			if s.label != "" {
				l += ": "
			}
			l += strings.Join(s.env, ",")
		}
		l += "]"
	}
	return l
}

func (s abSide) config() discover.Config { return discover.Config{Name: s.name, Env: s.env} }

func init() {
	define(cmdAB, func(f *abFlags, pos []string, stdout, stderr io.Writer) error {
		oldArg, newArg, pkg, err := splitABArgs(pos)
		if err != nil {
			return usageError(err)
		}
		rules, err := f.rules()
		if err != nil {
			return err
		}
		cpu, err := parseCPU(f.cpu)
		if err != nil {
			return usageError(err)
		}
		if f.rounds < 1 {
			return usageError(errors.New("--rounds must be at least 1"))
		}
		if err := f.seq.check(); err != nil {
			return usageError(err)
		}
		f.seq.layoutDefault(engine.LayoutRandom)
		unit, limits := abGateUnit(f.seq.unit, rules)
		sides, err := abSettings(f.configs)
		if err != nil {
			return usageError(err)
		}
		if f.cache == "" {
			if f.cache, err = builtin.CacheDir(); err != nil {
				return err
			}
		}
		ctx, stop := interruptible()
		defer stop()

		if err := abSources(ctx, f.dir, [2]string{oldArg, newArg}, f.cache, sides[:]); err != nil {
			return err
		}
		for _, sd := range sides {
			fmt.Fprintf(stderr, "perflab ab: %s = %s\n", sd.name, sd.Label())
		}
		benches, err := abBenches(ctx, f, sides, pkg, stderr)
		if err != nil {
			return err
		}
		common, onlyOld, onlyNew := splitBenches(benches[0], benches[1])
		if len(common) == 0 {
			return fmt.Errorf("no benchmark matching %q exists on both sides (old has %d, new %d), so there is nothing to compare; check -bench and the package", f.regex, len(benches[0]), len(benches[1]))
		}

		title := fmt.Sprintf("old %s vs new %s", sides[0].Label(), sides[1].Label())
		s, err := revisionSpec(filepath.Join(sides[0].src.ModDir, "perflab-ab.toml"), discover.SpecInput{
			Name: "ab-" + abName(f.dir, pkg), Title: title, Package: pkg,
			Benches: common, Configs: []discover.Config{sides[0].config(), sides[1].config()},
			Rounds: f.rounds, Benchtime: f.benchtime, CPU: cpu,
		})
		if err != nil {
			return err
		}
		db, err := openDB(f.db, false)
		if err != nil {
			return err
		}
		defer db.Close()
		opt := f.engineOptions(s, "quick", db, stderr)
		opt.CPU, opt.Cells, opt.Unit, opt.GateRatios = cpu, discover.Cells(common, []string{"old", "new"}), unit, limits
		opt.Sources = map[string]string{"old": sides[0].src.ModDir, "new": sides[1].src.ModDir}
		res, err := engine.Run(ctx, opt)
		if res != nil {
			kv := []store.KV{{Key: "ab-old", Value: sides[0].Label()}, {Key: "ab-new", Value: sides[1].Label()}}
			if serr := db.SetEnv(context.WithoutCancel(ctx), res.RunID, kv); serr != nil && err == nil {
				err = serr
			}
		}
		// The run's own summary and report paths go to stderr with the
		// progress, so stdout holds the comparison alone.
		if err := afterRun(ctx, db, res, err, f.runFlags, stderr, stderr); err != nil {
			return err
		}
		return abVerdict(context.WithoutCancel(ctx), db, res, f, sides, rules, onlyOld, onlyNew, stdout, stderr)
	})
}

// splitABArgs reads OLD [NEW] [PKG]: the argument after OLD is NEW unless
// it is a package pattern ("." or starting with "./", or holding "...").
func splitABArgs(pos []string) (old, new, pkg string, err error) {
	if len(pos) == 0 {
		return "", "", "", errors.New(`want OLD (a git revision or a directory), e.g. "perflab ab HEAD~1" or "perflab ab main HEAD ./pkg"`)
	}
	old, rest := pos[0], pos[1:]
	if isPackagePattern(old) {
		return "", "", "", fmt.Errorf("OLD %q looks like a package; give OLD (a revision, or a directory as an absolute or ../ path) first", old)
	}
	if len(rest) > 0 && !isPackagePattern(rest[0]) {
		new, rest = rest[0], rest[1:]
	}
	pkg, err = onePackage("ab", "OLD and NEW", rest)
	return old, new, pkg, err
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

// abSettings returns the sides old and new with the settings of the two
// --config values, if given (their names become labels). A relative PGO
// profile is made absolute, so both sides read the same file.
func abSettings(given []string) ([2]abSide, error) {
	out := [2]abSide{{name: "old"}, {name: "new"}}
	switch len(given) {
	case 0:
		return out, nil
	case 2:
	default:
		return out, fmt.Errorf("--config: give none or two (OLD's settings, then NEW's), got %d; e.g. --config base --config gogc-off:GOGC=off", len(given))
	}
	for i, g := range given {
		c, err := discover.ParseConfig(g)
		if err != nil {
			return out, err
		}
		for j, kv := range c.Env {
			if v, ok := strings.CutPrefix(kv, "PGO="); ok && v != "off" && v != "auto" {
				abs, err := filepath.Abs(v)
				if err != nil {
					return out, err
				}
				if st, err := os.Stat(abs); err != nil || st.IsDir() {
					return out, fmt.Errorf("--config %s: PGO=%s is not a readable profile file; give a CPU profile (go test -cpuprofile) or off", g, v)
				}
				c.Env[j] = "PGO=" + abs
			}
		}
		out[i].env = c.Env
		if c.Name != out[i].name {
			out[i].label = c.Name
		}
	}
	return out, nil
}

// abSources materialises OLD and NEW ("" is the working tree).
func abSources(ctx context.Context, dir string, args [2]string, cache string, sides []abSide) error {
	repo, repoErr := revision.Open(ctx, dir)
	for i, arg := range args {
		var err error
		if repo == nil {
			if arg == "" {
				return fmt.Errorf("NEW defaults to the working tree, but %v", repoErr)
			}
			if sides[i].src, err = revision.Directory(arg); err != nil {
				return fmt.Errorf("%s %q: %v; and it is no revision: %v", sides[i].name, arg, err, repoErr)
			}
			continue
		}
		if sides[i].src, err = repo.Materialize(ctx, arg, cache); err != nil {
			return fmt.Errorf("%s: %w", strings.ToUpper(sides[i].name), err)
		}
	}
	return nil
}

// abBenches builds each side's test binary and lists its benchmarks. A
// side that does not build is named; both are tried before giving up.
func abBenches(ctx context.Context, f *abFlags, sides [2]abSide, pkg string, stderr io.Writer) ([2][]discover.Bench, error) {
	var out [2][]discover.Bench
	var failed []string
	for i, sd := range sides {
		l, err := benchesOf(ctx, sd.src, sd.config(), pkg, f.regex, filepath.Join(f.cache, "bin"))
		if err == nil {
			out[i] = l.Benches
			for _, line := range discover.SkipLines(l.Skipped) {
				fmt.Fprintf(stderr, "perflab ab: %s: %s\n", sd.name, line)
			}
		}
		var be *buildError
		switch {
		case ctx.Err() != nil:
			return out, ctx.Err()
		case errors.As(err, &be):
			fmt.Fprintf(stderr, "perflab ab: %s (%s) does not build:\n%s\n", sd.name, sd.Label(), indentText(err.Error()))
			failed = append(failed, sd.name)
		case err != nil:
			fmt.Fprintf(stderr, "perflab ab: %s: %v\n", sd.name, err)
		}
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("%s does not build (see above); nothing was measured", strings.Join(failed, " and "))
	}
	return out, nil
}

// buildError is a source whose test binary does not build.
type buildError struct{ err error }

func (e *buildError) Error() string { return e.err.Error() }
func (e *buildError) Unwrap() error { return e.err }

// benchesOf builds the test binary of pkg in src with config c's settings
// (cached by content in binCache) and lists its benchmarks matching regex,
// with those that skipped themselves. A failed build is a *buildError.
func benchesOf(ctx context.Context, src *revision.Source, c discover.Config, pkg, regex, binCache string) (*discover.Listing, error) {
	s, err := spec.Parse(filepath.Join(src.ModDir, "perflab-ab.toml"), []byte(probeSpec(c)))
	if err != nil {
		return nil, err
	}
	sc := s.Configs[0]
	bin, _, err := gotest.Compile(ctx, gotest.Build{Dir: src.ModDir, Package: pkg, Env: sc.BuildEnv(), Flags: sc.BuildFlags(), CacheDir: binCache})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &buildError{err}
	}
	return discover.Scan(ctx, bin, filepath.Join(src.ModDir, filepath.FromSlash(pkg)), regex)
}

// probeSpec is a one-config spec holding a config's settings, so its
// build flags and environment come from spec.Config like the run's.
func probeSpec(c discover.Config) string {
	text, err := discover.SpecText(discover.SpecInput{Name: "probe", Package: ".", Benches: []discover.Bench{{Func: "BenchmarkX"}}, Configs: []discover.Config{c}})
	if err != nil {
		return ""
	}
	return text
}

// revisionSpec is the spec of a run whose configs are revisions, with
// in's benchmarks; file places it (in the first revision's module
// directory, which its package path is relative to).
func revisionSpec(file string, in discover.SpecInput) (*spec.Spec, error) {
	text, err := discover.SpecText(in)
	if err != nil {
		return nil, err
	}
	s, err := spec.Parse(file, []byte(text))
	if err != nil {
		return nil, fmt.Errorf("the benchmarks do not make a valid spec: %w", err)
	}
	return s, nil
}

func indentText(s string) string {
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ")
}

// splitBenches returns the benchmarks on both sides (in old's order) and
// those on one side only.
func splitBenches(old, new []discover.Bench) (common, onlyOld, onlyNew []discover.Bench) {
	inNew := map[string]bool{}
	for _, b := range new {
		inNew[b.Name()] = true
	}
	inOld := map[string]bool{}
	for _, b := range old {
		inOld[b.Name()] = true
		if inNew[b.Name()] {
			common = append(common, b)
		} else {
			onlyOld = append(onlyOld, b)
		}
	}
	for _, b := range new {
		if !inOld[b.Name()] {
			onlyNew = append(onlyNew, b)
		}
	}
	return common, onlyOld, onlyNew
}

// abVerdict compares the run's old and new configs round by round, prints
// the table (or the JSON), writes the Markdown summary and applies the
// gate.
func abVerdict(ctx context.Context, db *store.DB, res *engine.Result, f *abFlags, sides [2]abSide, rules []compare.Threshold,
	onlyOld, onlyNew []discover.Bench, stdout, stderr io.Writer) error {
	// A run sampled sequentially (--budget, --precision) is judged with
	// anytime-valid intervals, like every other view of it.
	pr, err := findings.LoadPaired(ctx, db, res.RunID, "old", "new", f.options())
	if err != nil {
		return err
	}
	for _, b := range onlyOld {
		pr.OnlyOld = append(pr.OnlyOld, b.Name())
	}
	for _, b := range onlyNew {
		pr.OnlyNew = append(pr.OnlyNew, b.Name())
	}
	var gate *compare.Gate
	if len(rules) > 0 {
		g := compare.Check(pr.Gate(), pr.Alpha, rules)
		gate = &g
	}
	src := report.PairedSource{Title: "perflab ab: " + shortTitle(sides), Old: sides[0].Label(), New: sides[1].Label(), RunID: res.RunID, Rounds: res.RoundsDone}
	if env, err := db.Env(ctx, res.RunID); err == nil {
		src.Env = env
	}
	if f.asJSON {
		err = report.PairedJSON(stdout, pr, src, gate)
	} else {
		err = report.PairedText(stdout, pr, src, gate)
	}
	if err != nil {
		return err
	}
	if f.markdown != "" {
		if err := writeFileWith(f.markdown, func(w io.Writer) error { return report.PairedMarkdown(w, pr, src, gate) }); err != nil {
			return fmt.Errorf("--markdown: %w", err)
		}
		fmt.Fprintf(stderr, "perflab ab: summary written to %s\n", f.markdown)
	}
	return f.outcome(stderr, "perflab ab", gate, "more rounds narrow the intervals: raise --budget (or --max-rounds), or measure on a quieter machine")
}

func envValue(env []store.KV, key string) string {
	for _, kv := range env {
		if kv.Key == key {
			return kv.Value
		}
	}
	return ""
}

// abName names the experiment after the package's directory in the
// user's module, not after its copy in the cache.
func abName(dir, pkg string) string {
	abs, err := filepath.Abs(filepath.Join(dir, filepath.FromSlash(pkg)))
	if err != nil {
		return "bench"
	}
	return sanitizeName(filepath.Base(abs))
}

func shortTitle(sides [2]abSide) string {
	name := func(s abSide) string {
		t := "`" + s.src.Short() + "`"
		if s.src.Kind == revision.Worktree {
			t = "working tree"
		}
		if s.label != "" {
			t += " [" + s.label + "]"
		}
		return t
	}
	return name(sides[0]) + " → " + name(sides[1])
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

// abGateUnit is the unit sequential sampling decides on and the gate's
// limits in it, as ratios: with --fail-on and no --unit, the gated time
// unit (sec/op, cpu-sec/op or instructions/op) of the first rule, so rounds are added until
// each interval lies clear of the limit the gate tests.
func abGateUnit(unit string, rules []compare.Threshold) (string, []float64) {
	if unit == "" {
		for _, r := range rules {
			if r.Unit == engine.UnitSec || r.Unit == engine.UnitCPU || r.Unit == engine.UnitInstructions {
				unit = r.Unit
				break
			}
		}
	}
	var limits []float64
	for _, r := range rules {
		if r.Unit == unit && unit != "" {
			limits = append(limits, 1+r.Pct/100)
		}
	}
	return unit, limits
}
