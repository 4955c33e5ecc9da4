package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
	"github.com/perflab/perflab/store"
)

// InstructionsGOGC is the GOGC of the runs under valgrind when the config
// sets none: with the collector off the counts spread about 0.1% for an
// allocating benchmark instead of about 3% (docs/instructions.md).
const InstructionsGOGC = "off"

// measurer runs each cell a second time under Cachegrind, after its timed
// run in the same round, and turns the counts into samples.
type measurer struct {
	m           spec.Measure
	version     string
	explicitCPU bool
	ns          map[string]int64
	progress    io.Writer

	db        *store.DB
	runID     int64
	artifacts string
	files     map[string]bool // functions artifacts already recorded
	failures  []store.Failure
	reported  map[string]bool // cells whose cost was printed

	// tried and measured count the measurements of the rounds; first is
	// the first failure's reason.
	tried, measured int
	first           string
}

// newMeasurer returns nil when the run measures time only. Otherwise it
// checks that valgrind is installed and chooses each cell's iteration
// count (cachegrind.Calibrate), before anything is recorded.
func newMeasurer(ctx context.Context, opt Options, mode spec.Mode, p *plan.Plan, bins map[string]string, progress io.Writer) (*measurer, error) {
	m, err := spec.ParseMeasure(cmpOr(opt.Measure, mode.Measure))
	if err != nil {
		return nil, err
	}
	if !m.Instructions {
		return nil, nil
	}
	version, err := cachegrind.Version(ctx)
	if err != nil {
		return nil, fmt.Errorf("--measure %s: %w", m, err)
	}
	ms := &measurer{m: m, version: version, explicitCPU: mode.CPU != nil,
		ns: map[string]int64{}, progress: progress, files: map[string]bool{}, reported: map[string]bool{}}
	fmt.Fprintf(progress, "perflab: instructions: %s; choosing each cell's iteration counts (GOMAXPROCS=1 unless -test.cpu says otherwise, GOGC=%s unless the config sets it)\n", version, InstructionsGOGC)
	start := time.Now()
	tried := 0
	var failed []string
	for _, cell := range p.Cells {
		bin, ok := bins[slot(cell)]
		if !ok {
			continue
		}
		for _, cpu := range ms.cpus(mode) {
			c, err := ms.cell(opt, bin, cell, cpu)
			if err != nil {
				return nil, err
			}
			tried++
			cal, err := cachegrind.Calibrate(ctx, c, ms.options(opt, cell))
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if errors.Is(err, cachegrind.ErrNoValgrind) {
					return nil, err
				}
				// The timed rounds will record this cell's failure; the
				// tool's own output says why.
				fmt.Fprintf(progress, "perflab: instructions: %s: cannot choose an iteration count: %s\n", cell, indentRest(err))
				failed = append(failed, fmt.Sprintf("%s: %s", cell, firstLine(err)))
				continue
			}
			ms.ns[measureKey(cell, cpu)] = cal.N
			note := ""
			if cal.Capped != "" {
				note = " (capped at " + cal.Capped + ")"
			}
			fmt.Fprintf(progress, "perflab: instructions: %s cpu %d: ≈%.4g instructions/op, spread ≈%.2g instructions a run → N=%d%s (%d valgrind runs, %s)\n",
				cell, cpu, cal.PerOp, cal.Spread, cal.N, note, cal.Runs, cal.Wall.Round(time.Millisecond))
		}
	}
	if tried > 0 && len(failed) == tried {
		return nil, fmt.Errorf("instructions: no cell could be measured under Cachegrind (%d of %d failed while choosing their iteration counts; their output is above), so the run stops before it starts; the first failure: %s", len(failed), tried, failed[0])
	}
	fmt.Fprintf(progress, "perflab: instructions: iteration counts chosen in %s\n", time.Since(start).Round(time.Second))
	return ms, nil
}

// firstLine is the first line of err's message, without the pointer to
// the output that follows it.
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return strings.TrimSuffix(s, "; its output is shown below")
}

// indentRest is err's message with every line after the first indented,
// so a tool's output quoted in it reads as a block under the reason.
func indentRest(err error) string {
	first, rest, ok := strings.Cut(strings.TrimRight(err.Error(), "\n"), "\n")
	if !ok || strings.TrimSpace(rest) == "" {
		return first
	}
	return first + "\n" + indent(rest)
}

// noneMeasured returns an error once a round has run with every one of
// its Cachegrind measurements failed and none has ever succeeded: the
// run stops there, with the reason, instead of spending its budget on
// cells it cannot measure.
func (ms *measurer) noneMeasured(round int) error {
	if ms == nil || ms.tried == 0 || ms.measured > 0 {
		return nil
	}
	return fmt.Errorf("instructions: every Cachegrind measurement so far failed (%d, through round %d), so the run stops instead of spending its budget; the first failure: %s", ms.tried, round, ms.first)
}

// cpus are the -test.cpu values a cell runs at under valgrind: the mode's,
// or 1.
func (ms *measurer) cpus(mode spec.Mode) []int {
	if mode.CPU != nil {
		return mode.CPU
	}
	return []int{1}
}

func measureKey(cell plan.Cell, cpu int) string {
	return cell.Config + "\x00" + cell.Name() + "\x00" + strconv.Itoa(cpu)
}

func (ms *measurer) cell(opt Options, bin string, cell plan.Cell, cpu int) (cachegrind.Cell, error) {
	re, err := gotest.BenchRegex(cell.Bench, cell.Levels)
	if err != nil {
		return cachegrind.Cell{}, err
	}
	return cachegrind.Cell{Binary: bin, Dir: opt.packageDirOf(slot(cell)), Bench: re, CPU: cpu, Env: configOf(opt.Spec, cell.Config).ExecEnv()}, nil
}

func (ms *measurer) options(opt Options, cell plan.Cell) cachegrind.Options {
	o := cachegrind.Options{CacheSim: ms.m.CacheSim}
	if configOf(opt.Spec, cell.Config).GOGC == "" {
		o.GOGC = InstructionsGOGC
	}
	return o
}

func configOf(s *spec.Spec, name string) spec.Config {
	for _, c := range s.Configs {
		if c.Name == name {
			return c
		}
	}
	return spec.Config{Name: name}
}

// record stores what the run's readers need: valgrind's version and the
// settings in the environment, the new units' direction.
func (ms *measurer) record(ctx context.Context, db *store.DB, runID int64, artifacts string, fresh bool) error {
	ms.db, ms.runID, ms.artifacts = db, runID, artifacts
	arts, err := db.Artifacts(ctx, runID)
	if err != nil {
		return err
	}
	for _, a := range arts {
		if a.Kind == cachegrind.ArtifactKind {
			ms.files[a.Path] = true
		}
	}
	if !fresh {
		return nil
	}
	gogc := InstructionsGOGC + " (unless the config sets GOGC)"
	kv := []store.KV{
		{Key: "valgrind", Value: ms.version},
		{Key: "instructions", Value: fmt.Sprintf("Cachegrind --cache-sim=%s; (I(2N)−I(N))/N per cell; GOMAXPROCS=1 unless -test.cpu is set; GOGC=%s; goroutines run serialised under valgrind", map[bool]string{true: "yes", false: "no"}[ms.m.CacheSim], gogc)},
	}
	if err := db.SetEnv(ctx, runID, kv); err != nil {
		return err
	}
	return db.SetUnitMeta(ctx, runID, measureUnitMeta())
}

func measureUnitMeta() []store.UnitMeta {
	var m []store.UnitMeta
	for _, u := range cachegrind.Units {
		m = append(m, store.UnitMeta{Unit: u, Key: "better", Value: "lower"})
	}
	return m
}

// measure runs the cell under Cachegrind once per timed result (one per
// -test.cpu value) and returns the instructions results, named and labelled
// like the timed ones so every comparison pairs them. A failure is kept
// for the round's failure list; the timed results stand.
func (ms *measurer) measure(ctx context.Context, r *rounds, bin string, cell plan.Cell, round int, timed []*benchfmt.Result) []*benchfmt.Result {
	var out []*benchfmt.Result
	fail := func(err error) {
		if ctx.Err() == nil {
			ms.failures = append(ms.failures, store.Failure{Round: round, Config: cell.Config, Cell: cell.Name(), Reason: "instructions: " + err.Error()})
			if ms.first == "" {
				ms.first = fmt.Sprintf("%s: %s", cell, indentRest(err))
			}
		}
	}
	for _, t := range timed {
		cpu := 1
		if ms.explicitCPU {
			cpu = procsOf(t.Name)
		}
		n, ok := ms.ns[measureKey(cell, cpu)]
		if !ok {
			fail(fmt.Errorf("no iteration count was chosen for cpu %d (see the calibration output)", cpu))
			continue
		}
		c, err := ms.cell(r.opt, bin, cell, cpu)
		if err != nil {
			fail(err)
			continue
		}
		ms.tried++
		m, err := cachegrind.Measure(ctx, c, ms.options(r.opt, cell), n)
		if err != nil {
			fail(err)
			continue
		}
		ms.measured++
		vals := []benchfmt.Value{{Value: m.Instructions(), Unit: cachegrind.UnitInstructions}}
		if ms.m.CacheSim {
			p := m.PerOp
			vals = append(vals,
				benchfmt.Value{Value: p["I1mr"], Unit: cachegrind.UnitSimI1},
				benchfmt.Value{Value: p["D1mr"] + p["D1mw"], Unit: cachegrind.UnitSimD1},
				benchfmt.Value{Value: p["ILmr"] + p["DLmr"] + p["DLmw"], Unit: cachegrind.UnitSimLL})
		}
		out = append(out, &benchfmt.Result{Config: t.Clone().Config, Name: t.Name, Iters: int(2 * n), Values: vals})
		full := "Benchmark" + string(t.Name.Full())
		if round > 0 {
			if err := ms.saveFuncs(ctx, cell, cachegrind.FuncRecord{Round: round, Name: full, N: n, Funcs: m.Funcs}); err != nil {
				fail(err)
			}
		}
		if !ms.reported[full+cell.Config] {
			ms.reported[full+cell.Config] = true
			slow := ""
			if ns, ok := t.Value("sec/op"); ok && ns > 0 && m.NsPerOp > 0 {
				slow = fmt.Sprintf(", %.1f× slower per op than outside valgrind", m.NsPerOp/(ns*1e9))
			}
			fmt.Fprintf(ms.progress, "perflab: instructions: %s [%s]: %.6g instructions/op; valgrind at %dx and %dx took %s%s\n",
				full, cell.Config, m.Instructions(), n, 2*n, m.Wall.Round(time.Millisecond), slow)
		}
	}
	return out
}

// saveFuncs appends a round's per-function counts to the cell's functions
// artifact and records the artifact the first time.
func (ms *measurer) saveFuncs(ctx context.Context, cell plan.Cell, rec cachegrind.FuncRecord) error {
	if ms.db == nil {
		return nil // the budget probe: nothing is stored
	}
	dir := filepath.Join(ms.artifacts, "instructions", slug(cell.Config))
	if cell.Package != "" {
		dir = filepath.Join(dir, slug(cell.Package))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("writing per-function counts: %w", err)
	}
	path, err := filepath.Abs(filepath.Join(dir, slug(cell.Name())+".jsonl"))
	if err != nil {
		return err
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("writing per-function counts: %w", err)
	}
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("writing per-function counts: %w", werr)
	}
	if !ms.files[path] {
		ms.files[path] = true
		st, _ := os.Stat(path)
		var size int64
		if st != nil {
			size = st.Size()
		}
		return ms.db.AddArtifact(context.WithoutCancel(ctx), ms.runID, store.Artifact{Config: cell.Config, Cell: cell.Name(), Kind: cachegrind.ArtifactKind, Path: path, Bytes: size})
	}
	return nil
}

// procsOf is the GOMAXPROCS of a go test result name: its "-N" suffix,
// or 1 without one. A "-N" right after "=" or "/" is a value, not the
// suffix ("n=-3").
func procsOf(name benchfmt.Name) int {
	full := string(name.Full())
	i := strings.LastIndexByte(full, '-')
	if i <= 0 || i == len(full)-1 || full[i-1] == '=' || full[i-1] == '/' {
		return 1
	}
	if p, err := strconv.Atoi(full[i+1:]); err == nil && p > 0 {
		return p
	}
	return 1
}

// drain returns and forgets the failures collected since the last call.
func (ms *measurer) drain() []store.Failure {
	if ms == nil {
		return nil
	}
	f := ms.failures
	ms.failures = nil
	return f
}
