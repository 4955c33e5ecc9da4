package cachegrind

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/driver/gotest"
)

// InstallHint is the command that installs valgrind on Debian and Ubuntu.
const InstallHint = "apt-get install -y valgrind"

// ErrNoValgrind reports that valgrind is not installed.
var ErrNoValgrind = errors.New("valgrind is not installed (or not on PATH); measuring instructions needs it: install it with `" + InstallHint + "` (Debian/Ubuntu), `dnf install valgrind` (Fedora) or your system's package manager")

// Version returns valgrind's version ("valgrind-3.19.0"), or an error
// wrapping [ErrNoValgrind] when it is missing.
func Version(ctx context.Context) (string, error) {
	path, err := exec.LookPath("valgrind")
	if err != nil {
		return "", ErrNoValgrind
	}
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("running %s --version: %w; check the valgrind installation", path, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// A Cell is one benchmark selection of a compiled test binary.
type Cell struct {
	Binary  string        // the test binary
	Dir     string        // its working directory
	Bench   string        // -test.bench regex selecting exactly one benchmark
	CPU     int           // -test.cpu value (and GOMAXPROCS); 0 means 1
	Env     []string      // the config's exec env; GOMAXPROCS and GOGC are set after it
	Timeout time.Duration // per valgrind run; 0 = 10m
}

// Options are the measurement settings.
type Options struct {
	// GOGC for the runs under valgrind: "" leaves the config's setting
	// (the Go default when the config sets none). See the package
	// documentation of perflab's instructions mode for why.
	GOGC     string
	CacheSim bool   // also simulate the caches: miss units per op
	TempDir  string // where Cachegrind's output files go; "" = os.TempDir()
}

// A Measurement is one cell's instructions per op from one pair of runs.
type Measurement struct {
	N     int64              // the smaller iteration count; the other is 2N
	Name  string             // the benchmark's full name as it printed it
	PerOp map[string]float64 // event (Ir, and I1mr, D1mr... with cache simulation) → count per op
	Funcs map[string]float64 // function → instructions (Ir) per op; only functions whose count changed
	// NsPerOp is the benchmark's own ns/op under valgrind in the 2N run:
	// divided by its ns/op outside valgrind it gives the slowdown.
	NsPerOp float64
	Wall    time.Duration // both runs together
}

// Instructions is the instructions per op.
func (m *Measurement) Instructions() float64 { return m.PerOp["Ir"] }

// count is one run: the benchmark's output and the profile.
type count struct {
	name    string
	nsPerOp float64
	bytesOp float64
	prof    *Profile
}

// run executes the cell once at n iterations under Cachegrind.
func run(ctx context.Context, c Cell, opt Options, n int64) (*count, error) {
	tmp, err := os.MkdirTemp(opt.TempDir, "perflab-cachegrind-")
	if err != nil {
		return nil, fmt.Errorf("cachegrind: creating a directory for its output: %w", err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "cachegrind.out")
	sim := "--cache-sim=no"
	if opt.CacheSim {
		sim = "--cache-sim=yes"
	}
	cpu := max(c.CPU, 1)
	env := append(append([]string(nil), c.Env...), "GOMAXPROCS="+strconv.Itoa(cpu), godebug(c.Env))
	if opt.GOGC != "" {
		env = append(env, "GOGC="+opt.GOGC)
	}
	res, err := gotest.Run(ctx, gotest.Invocation{
		Binary: c.Binary, Dir: c.Dir, Bench: c.Bench, Benchtime: strconv.FormatInt(n, 10) + "x",
		CPU: []int{cpu}, Env: env, Timeout: cmpTimeout(c.Timeout),
		Wrap: []string{"valgrind", "--tool=cachegrind", sim, "--cachegrind-out-file=" + out},
	})
	if err != nil {
		if _, lerr := exec.LookPath("valgrind"); lerr != nil {
			return nil, ErrNoValgrind
		}
		var re *gotest.RunError
		if errors.As(err, &re) {
			return nil, fmt.Errorf("cachegrind: %w", err)
		}
		// Malformed extra lines: keep the results when there are any.
		if len(res) == 0 {
			return nil, fmt.Errorf("cachegrind: %w", err)
		}
	}
	if len(res) != 1 {
		return nil, fmt.Errorf("cachegrind: -test.bench=%s selected %d benchmarks; instructions per op need a selection of exactly one", c.Bench, len(res))
	}
	if res[0].Iters != int(n) {
		return nil, fmt.Errorf("cachegrind: %s ran %d iterations, not the %d asked for; the benchmark must honour -test.benchtime=Nx", res[0].Name, res[0].Iters, n)
	}
	prof, err := ParseFile(out)
	if err != nil {
		return nil, err
	}
	ns, _ := res[0].Value("sec/op")
	bytes, _ := res[0].Value("B/op")
	return &count{name: string(res[0].Name), nsPerOp: ns * 1e9, bytesOp: bytes, prof: prof}, nil
}

// NoRDTSCP is the GODEBUG setting every run under valgrind gets: the Go
// runtime reads the time stamp counter with RDTSCP where the CPU reports
// it (runtime.cputicks), an instruction some valgrind builds cannot
// decode on some CPUs (AMD EPYC with valgrind 3.19: "vex amd64->IR:
// unhandled instruction bytes: 0xF 0x1 0xF9", then SIGILL). With it off
// the runtime uses MFENCE; LFENCE; RDTSC, which every valgrind decodes.
const NoRDTSCP = "cpu.rdtscp=off"

// godebug is the GODEBUG of a run under valgrind: the config's (or the
// environment's) settings with NoRDTSCP added.
func godebug(env []string) string {
	v, set := os.LookupEnv("GODEBUG")
	for _, kv := range env {
		if val, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			v, set = val, true
		}
	}
	if !set || v == "" {
		return "GODEBUG=" + NoRDTSCP
	}
	return "GODEBUG=" + v + "," + NoRDTSCP
}

// gcOff reports whether the runs have the garbage collector off.
func gcOff(c Cell, opt Options) bool {
	gogc := opt.GOGC
	if gogc == "" {
		for _, kv := range c.Env {
			if v, ok := strings.CutPrefix(kv, "GOGC="); ok {
				gogc = v
			}
		}
	}
	return strings.EqualFold(gogc, "off")
}

// runBoth runs the cell at two iteration counts concurrently.
func runBoth(ctx context.Context, c Cell, opt Options, n1, n2 int64) ([2]*count, error) {
	var out [2]*count
	var errs [2]error
	done := make(chan struct{})
	go func() {
		defer close(done)
		out[1], errs[1] = run(ctx, c, opt, n2)
	}()
	out[0], errs[0] = run(ctx, c, opt, n1)
	<-done
	if errs[0] != nil {
		return out, errs[0]
	}
	return out, errs[1]
}

func cmpTimeout(d time.Duration) time.Duration {
	if d <= 0 {
		return 10 * time.Minute
	}
	return d
}

// Measure runs the cell at n and 2n iterations, both at once (a count of
// instructions does not depend on what else the machine runs), and returns
// the counts per op of the difference.
func Measure(ctx context.Context, c Cell, opt Options, n int64) (*Measurement, error) {
	if n < 1 {
		return nil, fmt.Errorf("cachegrind: iteration count %d; want at least 1", n)
	}
	start := time.Now()
	counts, err := runBoth(ctx, c, opt, n, 2*n)
	if err != nil {
		return nil, err
	}
	lo, hi := counts[0], counts[1]
	m, err := diff(lo.prof, hi.prof, n)
	if err != nil {
		return nil, fmt.Errorf("cachegrind: %s: %w", hi.name, err)
	}
	m.Name, m.NsPerOp, m.Wall = hi.name, hi.nsPerOp, time.Since(start)
	return m, nil
}

// diff turns the profiles at n and 2n iterations into counts per op.
func diff(lo, hi *Profile, n int64) (*Measurement, error) {
	if strings.Join(lo.Events, " ") != strings.Join(hi.Events, " ") {
		return nil, fmt.Errorf("the two runs counted different events (%v, %v)", lo.Events, hi.Events)
	}
	m := &Measurement{N: n, PerOp: map[string]float64{}, Funcs: map[string]float64{}}
	for i, e := range hi.Events {
		m.PerOp[e] = (float64(hi.Totals[i]) - float64(lo.Totals[i])) / float64(n)
	}
	if _, ok := m.PerOp["Ir"]; !ok {
		return nil, fmt.Errorf("no Ir (instructions) event in %v", hi.Events)
	}
	ir := func(p *Profile, fn string) float64 {
		if c := p.Funcs[fn]; c != nil {
			return float64(c[0])
		}
		return 0
	}
	if hi.Events[0] != "Ir" {
		return nil, fmt.Errorf("the first event is %s, not Ir", hi.Events[0])
	}
	for fn := range hi.Funcs {
		if d := ir(hi, fn) - ir(lo, fn); d != 0 {
			m.Funcs[fn] = d / float64(n)
		}
	}
	for fn := range lo.Funcs {
		if _, ok := hi.Funcs[fn]; !ok && ir(lo, fn) != 0 {
			m.Funcs[fn] = -ir(lo, fn) / float64(n)
		}
	}
	return m, nil
}

// Calibration is the choice of N for one cell and what it rests on.
type Calibration struct {
	N      int64
	Spread float64 // estimated run-to-run spread (standard deviation) of one count, instructions
	PerOp  float64 // rough instructions per op
	Runs   int     // valgrind runs it took
	Wall   time.Duration
	Capped string // why N was limited ("" when it was not): the spread may then show in the result
}

// Target precision of one instructions/op figure and the limits of N.
const (
	// TargetRel is the relative standard deviation of one figure that
	// Calibrate aims for: (I(2N)−I(N)) must exceed √2·spread/TargetRel.
	TargetRel = 2.5e-4
	// MinSpread is the smallest run-to-run spread assumed, in
	// instructions: two runs may agree by chance, and the runtime's
	// background threads vary by about this much on a quiet machine.
	MinSpread = 30000
	// MaxDiff caps N·instructions/op, so a run under valgrind stays
	// within tens of seconds.
	MaxDiff = 3e9
	// MaxHeap caps 2N·B/op when the runs have no garbage collector
	// (GOGC=off): the 2N run must not exhaust memory.
	MaxHeap = 1 << 30
)

// Calibrate chooses N for a cell: it runs the cell twice at two iterations
// to estimate the spread of a count, then at growing iteration counts until
// the count grows by well over that spread, which estimates the
// instructions per op (the growth must exceed 100 spreads, so the estimate
// is good to about 1.5%); N is the smallest count whose difference I(2N)−I(N)
// keeps the spread within TargetRel of it.
func Calibrate(ctx context.Context, c Cell, opt Options) (Calibration, error) {
	start := time.Now()
	var cal Calibration
	var bytesOp float64
	one := func(n int64) (float64, error) {
		cal.Runs++
		r, err := run(ctx, c, opt, n)
		if err != nil {
			return 0, err
		}
		bytesOp = r.bytesOp
		return float64(r.prof.Totals[0]), nil
	}
	// At -test.benchtime=1x the testing package runs the benchmark once;
	// at 2x and more it runs it twice (b.N = 1, then b.N = n), with a
	// garbage collection before each: counts are comparable from 2x on.
	const k0 = 2
	two, err := runBoth(ctx, c, opt, k0, k0)
	cal.Runs += 2
	if err != nil {
		return cal, err
	}
	a, b := float64(two[0].prof.Totals[0]), float64(two[1].prof.Totals[0])
	bytesOp = two[0].bytesOp
	cal.Spread = math.Max(math.Abs(a-b)/math.Sqrt2, MinSpread)
	base := (a + b) / 2
	for _, k := range []int64{4, 200, 20000, 2000000, 200000000} {
		ik, err := one(k)
		if err != nil {
			return cal, err
		}
		d := ik - base
		cal.PerOp = math.Max(d, 0) / float64(k-k0)
		if d >= 100*cal.Spread || (k < 200000000 && float64(k*100)*math.Max(cal.PerOp, 1) > MaxDiff) {
			break
		}
	}
	if cal.PerOp <= 0 {
		return cal, fmt.Errorf("cachegrind: %s: the instruction count does not grow with the iteration count; does the benchmark loop b.N times?", c.Bench)
	}
	need := math.Sqrt2 * cal.Spread / (TargetRel * cal.PerOp)
	if need*cal.PerOp > MaxDiff {
		need, cal.Capped = MaxDiff/cal.PerOp, fmt.Sprintf("%.3g instructions per run", MaxDiff)
	}
	if gcOff(c, opt) && 2*need*bytesOp > MaxHeap {
		need, cal.Capped = MaxHeap/(2*bytesOp), fmt.Sprintf("%d MiB of heap without a garbage collector", MaxHeap>>20)
	}
	cal.N = max(1, int64(math.Ceil(need)))
	cal.Wall = time.Since(start)
	return cal, nil
}
