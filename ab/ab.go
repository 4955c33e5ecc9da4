// Package ab compares two builds of a Go module's benchmarks in
// interleaved rounds and judges the paired changes.
//
// [Run] does what "perflab ab" does. It materialises OLD and NEW (git
// revisions exported into a cache, the working tree copied there, or
// directories used in place), builds each side's test binary and lists
// its benchmarks, and runs the benchmarks both sides have as cells ×
// {old, new} in shuffled, interleaved rounds with package engine, so
// drift of the machine hits both sides alike and every round gives one
// paired new/old ratio. The run is stored like any other. The paired
// changes are then judged from the stored rounds (findings.LoadPaired)
// and, given rules, gated (package compare); package report prints them.
//
// Run is [Prepare], [Pair.Measure] and [Result.Compare] in turn: a
// caller that wants to act between them (open its store only once both
// sides build, report on the stored run before the comparison) calls
// them itself.
package ab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/compare"
	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// Options say what to compare and how.
type Options struct {
	// Dir is the module's directory, in the git repository Old and New
	// name; "" is the current directory.
	Dir string
	// Old and New are git revisions (a commit, branch, tag, HEAD~1, …)
	// or directories, each standing for the module directory. New "" is
	// the working tree, uncommitted changes included. Revisions are
	// exported into the cache and the working tree is copied there, so
	// the repository's working tree and index are never touched.
	Old, New string
	// Packages are the packages whose benchmarks are compared, relative
	// to the module directory ("." or "./codec"), or patterns ("./...")
	// that go list resolves in each side's module directory; none is
	// ".". Each side builds one test binary per package; with more than
	// one package (or a pattern) every benchmark names its package
	// (discover.Bench.Package) and one run interleaves them all.
	Packages []string
	// Bench selects benchmarks, as go test -bench does; "" selects all.
	Bench string
	// Configs are OLD's and NEW's settings (see [ParseConfigs]); the
	// zero Config is none. A Name other than the side's ("old", "new")
	// labels the side.
	Configs [2]discover.Config

	Rounds    int           // interleaved rounds; 0 with no Budget, Precision or MaxRounds samples sequentially under DefaultBudget
	Benchtime string        // -test.benchtime of each cell; "" is 100ms
	CPU       []int         // -test.cpu list; nil runs the default
	Budget    time.Duration // when > 0, add rounds while a ratio is undecided, within this time
	// DefaultBudget marks Budget as the default rather than the user's:
	// a first interval of every ratio that needs more grows it
	// (engine.Options.DefaultBudget).
	DefaultBudget bool
	Precision     float64 // sample until every ratio's half-width is at most this (0.01 = ±1%)
	MaxRounds     int     // at most this many rounds when sampling sequentially
	// Unit is the unit sequential sampling decides on: sec/op,
	// cpu-sec/op or instructions/op; "" is the gated time unit of the
	// first rule (see [GateUnit]), else sec/op.
	Unit string
	// Layout is engine.LayoutRandom (the default: each side is relinked
	// with fresh random function layouts every few rounds, so verdicts
	// hold over layouts) or engine.LayoutFixed (one link per side).
	Layout string
	// FuncAlign pins every function's alignment to FuncAlign bytes on
	// both sides (-ldflags=-funcalign=N): a hot loop's place in its cache
	// line then follows from the source, not from where the random layout
	// put its function; layouts are still sampled for what pinning leaves
	// (function order, cache sets, predictors). 0 is DefaultFuncAlign; a
	// negative value keeps the linker's default alignment (32 bytes on
	// amd64).
	FuncAlign int
	Measure   string // also measure "instructions" (spec.ParseMeasure)
	NoProfile bool   // skip the profiling pass
	Seed      int64  // seed for the round order; 0 picks one from the clock
	Verbose   bool   // a progress line per round even on a terminal

	// Alpha is the significance level of the paired comparison; 0 is
	// 0.05.
	Alpha float64
	// Rules gate the paired changes ("sec/op>+5%"); none: no gate. With
	// Budget, rounds are added until every gated time ratio clears them.
	Rules []compare.Threshold

	// Shard, when set, runs one shard of a comparison split over
	// machines (engine.Shard): every shard builds both sides itself and
	// must resolve them to the same commits and benchmarks.
	Shard *engine.Shard

	DB          *store.DB // where the run is stored ([Run] only)
	CacheDir    string    // built sources and test binaries; "" is builtin.CacheDir
	ArtifactDir string    // the run's artifacts go to ArtifactDir/run-<id>/
	Progress    io.Writer // progress lines while it works; nil discards them
}

// DefaultBudget is the budget of a comparison given neither rounds nor a
// budget: it samples sequentially until every ratio is decided, and grows
// when the first interval of every ratio needs more.
const DefaultBudget = 2 * time.Minute

// DefaultFuncAlign is the function alignment a comparison pins unless
// told otherwise: a cache line. Measured on gjson and bitset
// (scripts/varlab, docs/measurements.md), it cut the spread a random
// layout adds to gjson's Get on a large document from 7% to 1.2% and left
// bitset's, already small, small, with planted changes estimated alike.
const DefaultFuncAlign = 64

// Sides' names: the configs of the run.
const (
	Old = "old"
	New = "new"
)

// Run compares opt.Old and opt.New: it prepares both sides, measures
// them into opt.DB and compares the paired changes. The result is nil
// when nothing was measured. An interrupted run is returned with an
// error and no comparison; a partial one (a cell failed in some rounds)
// is compared on the rounds it has and returned with an error too.
func Run(ctx context.Context, opt Options) (*Result, error) {
	if opt.DB == nil {
		return nil, errors.New("ab: no database to store the run in")
	}
	p, err := Prepare(ctx, opt)
	if err != nil {
		return nil, err
	}
	res, err := p.Measure(ctx, opt.DB)
	if err != nil {
		return res, err
	}
	switch res.Run.Status {
	case "complete":
		return res, res.Compare(ctx)
	case "partial":
		if err := res.Compare(ctx); err != nil {
			return res, err
		}
		return res, fmt.Errorf("run %d is partial: some cells failed in some rounds, and its comparison misses their samples (the report's Failures section says why)", res.Run.RunID)
	}
	return res, fmt.Errorf("run %d is %s: its comparison would miss rounds or cells", res.Run.RunID, res.Run.Status)
}

// A Pair is a comparison ready to measure: both sides materialised and
// built, and their benchmarks listed.
type Pair struct {
	Old, New Side
	// Benchmarks are those on both sides, in OLD's order: the cells of
	// the run.
	Benchmarks []discover.Bench
	// OnlyOld and OnlyNew are listed, not compared.
	OnlyOld, OnlyNew []discover.Bench

	opt  Options
	spec *spec.Spec
}

// Prepare materialises both sides, builds their test binaries and lists
// their benchmarks: everything before the first measurement. It stores
// nothing. A side that does not build is named on opt.Progress and
// Prepare fails after trying both.
func Prepare(ctx context.Context, opt Options) (*Pair, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	p := &Pair{opt: opt, Old: side(Old, opt.Configs[0]), New: side(New, opt.Configs[1])}
	if opt.FuncAlign > 0 {
		p.Old.LDFlags = fmt.Sprintf("-funcalign=%d", opt.FuncAlign)
		p.New.LDFlags = p.Old.LDFlags
	}
	sides := []*Side{&p.Old, &p.New}
	if err := materialise(ctx, opt.Dir, [2]string{opt.Old, opt.New}, opt.CacheDir, sides); err != nil {
		return nil, err
	}
	for _, sd := range sides {
		fmt.Fprintf(opt.Progress, "perflab ab: %s = %s\n", sd.Name, sd.Label())
	}
	benches, err := listSides(ctx, sides, opt.Packages, opt.Bench, filepath.Join(opt.CacheDir, "bin"), opt.Progress)
	if err != nil {
		return nil, err
	}
	p.Benchmarks, p.OnlyOld, p.OnlyNew = Split(benches[0], benches[1])
	if len(p.Benchmarks) == 0 {
		return nil, fmt.Errorf("no benchmark matching %q exists on both sides (old has %d, new %d), so there is nothing to compare; check -bench and the package", opt.Bench, len(benches[0]), len(benches[1]))
	}
	// A run over several packages is the module's: its cells name their
	// packages.
	pkg := "."
	if !Several(opt.Packages) {
		pkg = opt.Packages[0]
	}
	title := fmt.Sprintf("old %s vs new %s", p.Old.Label(), p.New.Label())
	p.spec, err = Spec(filepath.Join(p.Old.Source.ModDir, "perflab-ab.toml"), discover.SpecInput{
		Name: "ab-" + Name(opt.Dir, pkg), Title: title, Package: pkg,
		Benches: p.Benchmarks, Configs: []discover.Config{p.Old.Config(), p.New.Config()},
		Rounds: opt.Rounds, Benchtime: opt.Benchtime, CPU: opt.CPU,
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// withDefaults fills in the options left zero.
func (o Options) withDefaults() (Options, error) {
	o.Dir = cmpOr(o.Dir, ".")
	o.Bench = cmpOr(o.Bench, ".")
	o.Benchtime = cmpOr(o.Benchtime, "100ms")
	o.Layout = cmpOr(o.Layout, engine.LayoutRandom)
	if o.Rounds < 0 {
		return o, errors.New("--rounds must be at least 1")
	}
	if o.FuncAlign == 0 {
		o.FuncAlign = DefaultFuncAlign
	}
	if a := o.FuncAlign; a > 0 && (a < 16 || a > 4096 || a&(a-1) != 0) {
		return o, fmt.Errorf("--funcalign %d: want a power of two from 16 to 4096 bytes (64, a cache line, pins a loop's place in its line), or 0 for the linker's default", a)
	}
	if o.Rounds == 0 && o.Budget == 0 && o.Precision == 0 && o.MaxRounds == 0 {
		// Neither rounds nor a budget: sample until decided, within a
		// budget that grows when the first interval of every benchmark
		// needs more.
		o.Budget, o.DefaultBudget = DefaultBudget, true
	}
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	if len(o.Packages) == 0 {
		o.Packages = []string{"."}
	}
	if o.CacheDir == "" {
		dir, err := builtin.CacheDir()
		if err != nil {
			return o, err
		}
		o.CacheDir = dir
	}
	return o, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Several reports whether pkgs name more than one package: several
// packages, or a pattern.
func Several(pkgs []string) bool {
	return len(pkgs) > 1 || slices.ContainsFunc(pkgs, isPattern)
}

func isPattern(pkg string) bool { return strings.Contains(pkg, "...") }

// Measure runs the pair's benchmarks in interleaved rounds and stores
// the run in db, labelled with both sides (env keys ab-old and ab-new).
// The result holds the engine's account of the run even when it failed
// or was interrupted, unless the run never started (then it is nil).
func (p *Pair) Measure(ctx context.Context, db *store.DB) (*Result, error) {
	run, err := engine.Run(ctx, p.engineOptions(db))
	if run == nil {
		return nil, err
	}
	if serr := db.SetEnv(context.WithoutCancel(ctx), run.RunID, p.sides()); serr != nil && err == nil {
		err = serr
	}
	return &Result{Pair: p, Run: run, db: db}, err
}

// sides labels the run with both sides (env keys ab-old and ab-new).
func (p *Pair) sides() []store.KV {
	return []store.KV{{Key: "ab-old", Value: p.Old.Label()}, {Key: "ab-new", Value: p.New.Label()}}
}

// engineOptions are the engine's options of the pair's run.
func (p *Pair) engineOptions(db *store.DB) engine.Options {
	o := p.opt
	unit, limits := GateUnit(o.Unit, o.Rules)
	var env []store.KV
	if o.Shard != nil {
		// Recorded as the run is created: a joining shard must agree.
		env = p.sides()
	}
	return engine.Options{
		Shard: o.Shard, Env: env,
		Spec: p.spec, Mode: "quick", DB: db, ArtifactDir: o.ArtifactDir, CacheDir: filepath.Join(o.CacheDir, "bin"), Progress: o.Progress,
		Seed: o.Seed, Rounds: o.Rounds, Benchtime: o.Benchtime, CPU: o.CPU, Budget: o.Budget, DefaultBudget: o.DefaultBudget, Alpha: o.Alpha, Measure: o.Measure,
		NoProfile: o.NoProfile, Verbose: o.Verbose, Precision: o.Precision, MaxRounds: o.MaxRounds, Unit: unit, Layout: o.Layout,
		Cells: discover.Cells(p.Benchmarks, []string{Old, New}), GateRatios: limits,
		Sources: map[string]string{Old: p.Old.Source.ModDir, New: p.New.Source.ModDir},
		Judge:   Judge{DB: db, Alpha: o.Alpha, Rows: true}, Repeat: analysis.RepeatEstimate, ChooseRepeats: analysis.ChooseRepeats,
	}
}

// Result is a measured comparison.
type Result struct {
	*Pair
	// Run says how the run ended, and its ID in the store.
	Run *engine.Result
	// Paired is the paired comparison of the run's rounds, and Gate the
	// rules' rulings on it (nil without rules); both nil until
	// [Result.Compare].
	Paired *findings.PairedResult
	Gate   *compare.Gate
	// Env is the run's environment as stored (the machine, its noise,
	// the sides' labels).
	Env []store.KV

	db *store.DB
}

// Compare judges the stored run: the paired new/old change of every
// benchmark and unit, the benchmarks on one side only, and the gate's
// rulings when there are rules. A run sampled sequentially is judged
// with anytime-valid intervals, like every other view of it.
func (r *Result) Compare(ctx context.Context) error {
	ctx = context.WithoutCancel(ctx)
	pr, err := findings.LoadPaired(ctx, r.db, r.Run.RunID, Old, New, analysis.Options{Alpha: r.opt.Alpha, Confidence: analysis.DefaultConfidence})
	if err != nil {
		return err
	}
	for _, b := range r.OnlyOld {
		pr.OnlyOld = append(pr.OnlyOld, b.FullName())
	}
	for _, b := range r.OnlyNew {
		pr.OnlyNew = append(pr.OnlyNew, b.FullName())
	}
	r.Paired = pr
	if len(r.opt.Rules) > 0 {
		g := compare.Check(pr.Gate(), pr.Alpha, r.opt.Rules)
		r.Gate = &g
	}
	if env, err := r.db.Env(ctx, r.Run.RunID); err == nil {
		r.Env = env
	}
	return nil
}

// Source is where the comparison came from, as package report's paired
// views quote it: a title naming both sides, their labels, the run and
// its rounds, and its environment.
func (r *Result) Source() report.PairedSource {
	return report.PairedSource{Title: "perflab ab: " + r.Old.short() + " → " + r.New.short(), Old: r.Old.Label(), New: r.New.Label(),
		RunID: r.Run.RunID, Rounds: r.Run.RoundsDone, Env: r.Env}
}

// GateUnit is the unit sequential sampling decides on and the gate's
// limits in it, as ratios: with no unit given, the gated time unit
// (sec/op, cpu-sec/op or instructions/op) of the first rule, so rounds
// are added until each interval lies clear of the limits the gate
// tests.
func GateUnit(unit string, rules []compare.Threshold) (string, []float64) {
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
