// Package culprit finds the commit of a git history that changed a Go
// module's benchmarks: it is what "perflab bisect" runs.
//
// [Find] runs package bisect's search over the first-parent history
// between GOOD and BAD and measures each step the way package ab
// compares builds: every commit is exported into a cache (with any extra
// files), built and listed once, and a step's commits run in
// interleaved rounds (package engine) until package findings decides the
// step from the rounds stored so far, with anytime-valid intervals at
// the step's share of the search's error rate. Every step's rounds are
// stored as a run, so a search that was stopped resumes from the store.
//
// Package bisect holds the search alone, below packages findings and
// report, which judge and word its steps; this package, above them, runs
// it over a repository.
package culprit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/perflab/perflab/ab"
	"github.com/perflab/perflab/bisect"
	"github.com/perflab/perflab/builtin"
	"github.com/perflab/perflab/discover"
	"github.com/perflab/perflab/engine"
	"github.com/perflab/perflab/findings"
	"github.com/perflab/perflab/revision"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// Options say what to bisect and how.
type Options struct {
	// Dir is the module's directory, in the git repository Good and Bad
	// are commits of; "" is the current directory.
	Dir string
	// Good and Bad are git revisions, Good older: the search covers
	// git rev-list --first-parent Good..Bad.
	Good, Bad string
	// Packages are the packages whose benchmarks are measured, relative
	// to the module directory, as go test takes them (a pattern such as
	// ./... stands for the packages with test files it matches); nil is
	// ".". Over several packages every benchmark names its package.
	Packages []string
	// Bench selects benchmarks, as go test -bench does; "" selects all.
	Bench string
	// BenchFor names the benchmark the steps decide on; "" decides on
	// the geomean of every benchmark selected.
	BenchFor string
	// With are files added to the package of every commit (a benchmark
	// the history did not have yet); only with one package.
	With []revision.File

	// Alpha is the search's error rate, split across its steps; 0 is
	// 0.05.
	Alpha float64
	// MinEffect is the change by which GOOD and BAD must differ to
	// bisect (0.02 = 2%); 0 is 0.02.
	MinEffect float64
	// Unit is the unit the steps decide on: sec/op, cpu-sec/op or
	// instructions/op; "" is sec/op, or instructions/op when Measure
	// counts instructions.
	Unit      string
	Measure   string        // also measure "instructions" (spec.ParseMeasure)
	Benchtime string        // -test.benchtime of each cell's first run; "" is 100ms
	CPU       []int         // -test.cpu list; nil runs the default
	Budget    time.Duration // finish within this time: each step gets an equal share of what is left
	// MaxRounds bounds the rounds of a step: at least 8; 0 is 100, or
	// 5000 with a Budget (which then ends each step).
	MaxRounds int
	// Layout is engine.LayoutRandom ("", the default) or
	// engine.LayoutFixed, as in package ab.
	Layout string
	// FuncAlign pins every function's alignment to FuncAlign bytes in
	// every commit's build, as ab.Options.FuncAlign: 0 is
	// ab.DefaultFuncAlign, a negative value the linker's default.
	FuncAlign int
	Seed      int64 // seed for the round order of step 1 (step k adds k−1); 0 picks one from the clock
	Verbose   bool  // a progress line per round even on a terminal
	// Resume continues the latest stored bisect with the same options:
	// decided steps are read from the store, an interrupted one gets
	// more rounds.
	Resume bool

	DB          *store.DB // where the steps' runs are stored ([Find] only)
	CacheDir    string    // built sources and test binaries; "" is builtin.CacheDir
	ArtifactDir string    // each run's artifacts go to ArtifactDir/run-<id>/
	Progress    io.Writer // progress lines while it works; nil discards them
}

// The rounds a step may take when MaxRounds is not given: without a
// budget, and with one (which then ends each step).
const (
	defaultStepRounds = 100
	budgetStepRounds  = 5000
)

// withDefaults fills in the options left zero and checks them.
func (o Options) withDefaults() (Options, error) {
	o.Dir = cmpOr(o.Dir, ".")
	if len(o.Packages) == 0 {
		o.Packages = []string{"."}
	}
	o.Benchtime = cmpOr(o.Benchtime, "100ms")
	o.Layout = cmpOr(o.Layout, engine.LayoutRandom)
	if o.Alpha == 0 {
		o.Alpha = 0.05
	}
	if o.MinEffect == 0 {
		o.MinEffect = 0.02
	}
	if o.MaxRounds == 0 {
		o.MaxRounds = defaultStepRounds
		if o.Budget > 0 {
			o.MaxRounds = budgetStepRounds
		}
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	m, err := spec.ParseMeasure(o.Measure)
	if err != nil {
		return o, err
	}
	if o.Unit == "" {
		o.Unit = engine.UnitSec
		if m.Instructions {
			o.Unit = engine.UnitInstructions
		}
	}
	switch {
	case !(o.Alpha > 0 && o.Alpha < 0.5):
		return o, fmt.Errorf("error rate %g: want one between 0 and 0.5, e.g. 0.05", o.Alpha)
	case o.MaxRounds < 8:
		return o, fmt.Errorf("at most %d rounds a step: a step needs at least 8 for an interval", o.MaxRounds)
	case o.Unit != engine.UnitSec && o.Unit != engine.UnitCPU && o.Unit != engine.UnitInstructions:
		return o, fmt.Errorf("unit %q: want %s, %s or %s", o.Unit, engine.UnitSec, engine.UnitCPU, engine.UnitInstructions)
	case o.Unit == engine.UnitInstructions && !m.Instructions:
		return o, fmt.Errorf("unit %s needs instructions measured", engine.UnitInstructions)
	case len(o.With) > 0 && ab.Several(o.Packages):
		return o, fmt.Errorf("--with adds its files to one package, and %s names several; name the package the files belong to", strings.Join(o.Packages, " "))
	}
	if _, err := engine.ParseLayout(o.Layout); err != nil {
		return o, err
	}
	if o.CacheDir == "" {
		if o.CacheDir, err = builtin.CacheDir(); err != nil {
			return o, err
		}
	}
	return o, nil
}

// packages names the packages as one string: the one package, or the
// list as given.
func (o Options) packages() string { return strings.Join(o.Packages, " ") }

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Find bisects: it prepares the search and runs it, storing the steps'
// runs in opt.DB.
func Find(ctx context.Context, opt Options) (*Result, error) {
	if opt.DB == nil {
		return nil, errors.New("culprit: no database to store the steps' runs in")
	}
	b, err := Prepare(ctx, opt)
	if err != nil {
		return nil, err
	}
	return b.Run(ctx, opt.DB)
}

// A Bisect is a search ready to run: its options checked and the
// history it searches read.
type Bisect struct {
	// History is GOOD, the first-parent commits after it, oldest first,
	// and BAD: the search's commits 0…n.
	History []revision.CommitInfo

	opt  Options
	repo *revision.Repo
}

// Prepare checks the options and reads the history between Good and
// Bad. It builds and stores nothing.
func Prepare(ctx context.Context, opt Options) (*Bisect, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	repo, err := revision.Open(ctx, opt.Dir)
	if err != nil {
		return nil, err
	}
	history, err := repo.FirstParent(ctx, opt.Good, opt.Bad)
	if err != nil {
		return nil, err
	}
	return &Bisect{History: history, opt: opt, repo: repo}, nil
}

// Result is a bisect's course and what it found.
type Result struct {
	// Bisect is what its reports show (package report): every
	// measuring step computed from its rounds, the skipped commits and
	// why, how the search ended, and the culprit with its effect.
	*findings.Bisect
	// Search is the search's course: every step with its outcome.
	Search bisect.Result
}

// Run runs the search, storing every step's rounds in db as a run. It
// returns the result so far with an error that ends the search early
// (an interrupted measurement, an endpoint that does not build).
func (b *Bisect) Run(ctx context.Context, db *store.DB) (*Result, error) {
	s := &stepper{opt: b.opt, db: db, repo: b.repo, history: b.History, start: time.Now(),
		sources: map[int]*revision.Source{}, benches: map[int][]discover.Bench{}, failed: map[int]error{}}
	s.rule = findings.BisectRule{Unit: b.opt.Unit, MinEffect: b.opt.MinEffect}
	if err := s.identify(ctx); err != nil {
		return nil, err
	}
	h := b.History
	s.planned = bisect.Planned(len(h) - 1)
	fmt.Fprintf(s.opt.Progress, "perflab bisect: %d commits after GOOD %s up to BAD %s; at most %d steps, α = %g (%.3g a step); bisect %s\n",
		len(h)-1, h[0].Short(), h[len(h)-1].Short(), s.planned, s.opt.Alpha, bisect.StepAlpha(s.opt.Alpha, s.planned, 1), s.id)
	res, err := bisect.Search(ctx, len(h)-1, s.opt.Alpha, s)
	view := findings.BisectOf(findings.Bisect{ID: s.id, Package: s.opt.packages(), Regex: s.opt.Bench, Rule: s.rule, History: h}, res, s.steps)
	return &Result{Bisect: view, Search: res}, err
}

// identify names the bisect: a hash of everything that decides its
// course, and when it started. With Resume it is the latest stored
// bisect with that hash.
func (s *stepper) identify(ctx context.Context) error {
	h := sha256.New()
	n := len(s.history) - 1
	o := s.opt
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%g\x00%g\x00%s\x00%v\x00%s\x00",
		s.repo.Top, s.repo.Rel, s.history[0].Hash, s.history[n].Hash, o.packages(), o.Bench, s.rule.Unit, o.Measure,
		s.rule.MinEffect, o.Alpha, o.BenchFor, o.CPU, o.Benchtime)
	if o.Layout != engine.LayoutRandom {
		// Bisects that sample layouts keep the identity they had before
		// layouts were a choice.
		fmt.Fprintf(h, "layout=%s\x00", o.Layout)
	}
	for _, fl := range o.With {
		fmt.Fprintf(h, "%s\x00%x\x00", fl.Name, sha256.Sum256(fl.Data))
	}
	prefix := hex.EncodeToString(h.Sum(nil))[:12]
	if !o.Resume {
		s.id = prefix + "." + time.Now().UTC().Format("20060102T150405.000000")
		return nil
	}
	id, err := findings.LatestBisect(ctx, s.db, prefix+".")
	if err != nil {
		return err
	}
	if id == "" {
		return fmt.Errorf("--resume: %s holds no bisect with these arguments (GOOD, BAD, package, -bench, --unit, --measure, --min-effect, --alpha, --bench-for, --cpu, --benchtime, --layout and --with must be the same); run without --resume to start one", s.db.Path())
	}
	s.id = id
	if s.stored, err = findings.BisectRuns(ctx, s.db, id); err != nil {
		return err
	}
	fmt.Fprintf(s.opt.Progress, "perflab bisect: resuming bisect %s (%d stored runs)\n", id, len(s.stored))
	return nil
}
