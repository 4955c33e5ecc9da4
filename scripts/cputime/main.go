// Command cputime measures, on a planted benchmark pair
// (engine/testdata/planted*), where a benchmark process's CPU time goes
// and how well each way of reading it recovers the pair's ratios. It is a
// measurement script, not part of perflab; Linux only.
//
//	go run ./scripts/cputime -pair engine/testdata/plantedpair -rounds 20 -configs 1s -all
//	go run ./scripts/cputime -pair engine/testdata/plantedpair -rounds 40 -configs 50ms,200ms,200msx5,1s
//
// It builds the pair's test binary against the testing package that
// gotest.Build.CPUTime patches, with the timer's added file replaced by a
// probe that reads, while the benchmark timer runs, the process's CPU time
// from getrusage (what perflab reports as cpu-sec/op), the process's CPU
// clock (clock_gettime(CLOCK_PROCESS_CPUTIME_ID), ns resolution) and the
// CPU clock of the thread that starts and stops the timer
// (CLOCK_THREAD_CPUTIME_ID), counts the timer periods that ended on another
// thread than they began, and records the process's CPU time when the
// first benchmark timer starts (start-up: exec, runtime and package
// initialisation, flag parsing, benchmark matching).
//
// Each process shape of -configs (a time inside the timed loop, maybe
// split into repetitions) sizes each variant once (iterations from a
// sizing run's CPU time per op, which a neighbour does not inflate). Each round then runs, in one shuffled order, one
// process per shape and variant at that count N and, with -all, for
// one-repetition shapes, one at 2 iterations (the baseline of cpu-sec/op
// before the in-process timer) and one at 2N iterations. Per process it prints the split of the child's CPU
// time (from wait4's rusage) into start-up, timed loop and the rest; per
// estimator the per-round log-ratios of each variant against the first,
// their mean, SD and MAD, the paired Hodges–Lehmann estimate with its
// signed-rank interval, the anytime-valid interval a sequential run would
// print after these rounds, and the wall time a round of the estimator's
// processes took.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/driver/gotest"
)

func main() {
	pair := flag.String("pair", "engine/testdata/plantedpair", "planted pair package directory")
	bench := flag.String("bench", "BenchmarkWork", "benchmark whose v=… sub-benchmarks are the variants")
	variants := flag.String("variants", "a,b,c", "variants; the first is the baseline")
	rounds := flag.Int("rounds", 20, "rounds")
	configs := flag.String("configs", "1s", "comma-separated process shapes run in the same rounds: TIME inside the timed loop per process, or TIMExK for K repetitions of TIME/K (-test.count=K)")
	all := flag.Bool("all", false, "also run 2- and 2N-iteration processes of the one-repetition shapes (whole-process estimators)")
	seed := flag.Uint64("seed", 1, "shuffle seed")
	raw := flag.String("raw", "", "write one line per repetition to this file")
	flag.Parse()
	log.SetFlags(0)
	ctx := context.Background()

	dir, err := filepath.Abs(*pair)
	if err != nil {
		log.Fatal(err)
	}
	bin, err := buildProbe(ctx, dir)
	if err != nil {
		log.Fatal(err)
	}
	vs := strings.Split(*variants, ",")
	var rawOut *os.File
	if *raw != "" {
		if rawOut, err = os.Create(*raw); err != nil {
			log.Fatal(err)
		}
		defer rawOut.Close()
		fmt.Fprintln(rawOut, "shape\tround\tvariant\titers\trep\twall_s\tcpu_s\tstartup_s\tloop_rusage_s\tloop_clock_s\tloop_thread_s\tloop_wall_s\tmigrations")
	}
	var shapes []shape
	for _, c := range strings.Split(*configs, ",") {
		sh, err := parseShape(c)
		if err != nil {
			log.Fatal(err)
		}
		sh.n = map[string]int{}
		for _, v := range vs {
			p, err := run(ctx, bin, dir, *bench, v, (sh.timed / time.Duration(sh.count)).String(), 1)
			if err != nil {
				log.Fatal(err)
			}
			sh.n[v] = max(4, int(math.Round(sh.timed.Seconds()/float64(sh.count)/p.reps[0].loopRusage*float64(p.iters))))
		}
		shapes = append(shapes, sh)
	}
	rng := rand.New(rand.NewPCG(*seed, 7))
	procs := make([][]proc, len(shapes))
	start := time.Now()
	for r := 1; r <= *rounds; r++ {
		type job struct {
			shape int
			v     string
			iters int
		}
		var jobs []job
		for i, sh := range shapes {
			for _, v := range vs {
				jobs = append(jobs, job{i, v, sh.n[v]})
				if *all && sh.count == 1 {
					jobs = append(jobs, job{i, v, 2}, job{i, v, 2 * sh.n[v]})
				}
			}
		}
		rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		for _, j := range jobs {
			sh := shapes[j.shape]
			p, err := run(ctx, bin, dir, *bench, j.v, strconv.Itoa(j.iters)+"x", sh.count)
			if err != nil {
				log.Fatal(err)
			}
			p.round, p.variant = r, j.v
			procs[j.shape] = append(procs[j.shape], p)
			if rawOut != nil {
				for k, rp := range p.reps {
					fmt.Fprintf(rawOut, "%s\t%d\t%s\t%d\t%d\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%.6f\t%d\n", sh.name, r, j.v, j.iters, k,
						p.wall, p.cpu, p.startup, rp.loopRusage, rp.loopClock, rp.loopThread, rp.loopWall, rp.migrations)
				}
			}
		}
	}
	fmt.Printf("%s, %s: %d rounds of %d shapes in %s\n", filepath.Base(dir), *bench, *rounds, len(shapes), time.Since(start).Round(time.Second))
	for i, sh := range shapes {
		fmt.Printf("\n== %s per process (N per repetition: %v)\n", sh.name, sh.n)
		decomposition(procs[i], vs, sh.n)
		estimators(procs[i], vs, sh.n, sh.count)
	}
}

// shape is how a process is sized: time inside the timed loop, split into
// count repetitions.
type shape struct {
	name  string
	timed time.Duration
	count int
	n     map[string]int // iterations per repetition, per variant
}

func parseShape(s string) (shape, error) {
	t, k, _ := strings.Cut(s, "x")
	sh := shape{name: s, count: 1}
	var err error
	if sh.timed, err = time.ParseDuration(t); err != nil {
		return sh, fmt.Errorf("-configs %q: %v", s, err)
	}
	if k != "" {
		if sh.count, err = strconv.Atoi(k); err != nil || sh.count < 1 {
			return sh, fmt.Errorf("-configs %q: bad repetition count", s)
		}
	}
	return sh, nil
}

// proc is one benchmark process.
type proc struct {
	round     int
	variant   string
	iters     int     // per repetition
	wall, cpu float64 // whole process, s
	startup   float64 // process CPU when the first benchmark timer started, s
	reps      []rep
}

// rep is one repetition's timed loop.
type rep struct {
	loopRusage float64 // process CPU (getrusage), s
	loopClock  float64 // process CPU clock, s
	loopThread float64 // CPU clock of the timer's thread, s
	loopWall   float64 // wall, s
	migrations int     // timer periods that ended on another thread
}

// run runs the probe binary once for one variant.
func run(ctx context.Context, bin, dir, bench, v, benchtime string, count int) (proc, error) {
	cmd := exec.CommandContext(ctx, bin, "-test.run=^$", "-test.bench=^"+bench+"$/^v="+v+"$", "-test.benchtime="+benchtime, "-test.count="+strconv.Itoa(count))
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return proc{}, fmt.Errorf("running %s v=%s: %v\n%s%s", bench, v, err, out.String(), errb.String())
	}
	p := proc{wall: time.Since(start).Seconds()}
	st := cmd.ProcessState
	p.cpu = (st.UserTime() + st.SystemTime()).Seconds()
	res, err := gotest.Parse(&out, "probe")
	if err != nil || len(res) != count {
		return proc{}, fmt.Errorf("parsing %s v=%s: %v (%d results, want %d)\n%s", bench, v, err, len(res), count, out.String())
	}
	for _, r := range res {
		val := func(unit string) float64 {
			x, ok := r.Value(unit)
			if !ok {
				log.Fatalf("%s v=%s reported no %s: %v", bench, v, unit, r.Values)
			}
			return x
		}
		n := float64(r.Iters)
		p.iters = r.Iters
		p.startup = val("startup-cpu-sec")
		p.reps = append(p.reps, rep{
			loopWall:   val("sec/op") * n,
			loopRusage: val("cpu-sec/op") * n,
			loopClock:  val("pcpu-sec/op") * n,
			loopThread: val("tcpu-sec/op") * n,
			migrations: int(val("migrations")),
		})
	}
	return p, nil
}

// loop sums f over a process's repetitions.
func (p proc) loop(f func(rep) float64) float64 {
	s := 0.0
	for _, r := range p.reps {
		s += f(r)
	}
	return s
}

// perOpMedian is the median over repetitions of f per iteration.
func (p proc) perOpMedian(f func(rep) float64) float64 {
	var xs []float64
	for _, r := range p.reps {
		xs = append(xs, f(r)/float64(p.iters))
	}
	return median(xs)
}

// decomposition prints, per variant and iteration count, the mean and SD
// (ms) of the parts of a process's CPU time.
func decomposition(procs []proc, vs []string, n map[string]int) {
	fmt.Println("CPU time of a process, ms: mean ± SD over rounds (start-up = exec to the first benchmark timer; timed loop = all repetitions; rest = whole − start-up − timed loop)")
	fmt.Printf("  %-4s %9s  %-18s %-18s %-18s %-18s %-18s %s\n", "var", "iters", "whole", "start-up", "timed loop", "rest", "wall", "migrated")
	for _, v := range vs {
		for _, iters := range []int{2, n[v], 2 * n[v]} {
			var whole, start, loop, rest, wall []float64
			mig := 0
			for _, p := range procs {
				if p.variant != v || p.iters != iters {
					continue
				}
				l := p.loop(func(r rep) float64 { return r.loopRusage })
				whole = append(whole, 1e3*p.cpu)
				start = append(start, 1e3*p.startup)
				loop = append(loop, 1e3*l)
				rest = append(rest, 1e3*(p.cpu-p.startup-l))
				wall = append(wall, 1e3*p.wall)
				mig += int(p.loop(func(r rep) float64 { return float64(r.migrations) }))
			}
			if len(whole) == 0 {
				continue
			}
			fmt.Printf("  %-4s %9d  %-18s %-18s %-18s %-18s %-18s %d\n", v, iters, msd(whole), msd(start), msd(loop), msd(rest), msd(wall), mig)
		}
	}
}

func msd(x []float64) string {
	m, sd := meanSD(x)
	return fmt.Sprintf("%.2f ± %.2f", m, sd)
}

// estimators prints, per estimator of a variant's per-op cost, the
// per-round log-ratios of each variant against the first.
func estimators(procs []proc, vs []string, n map[string]int, count int) {
	type est struct {
		name  string
		value func(byIters map[int]proc, n int) (float64, bool)
		cost  func(byIters map[int]proc, n int) float64 // wall time of the processes it needs
	}
	// at is f of the N-iteration process, per iteration of all repetitions.
	at := func(f func(p proc) float64) func(map[int]proc, int) (float64, bool) {
		return func(m map[int]proc, n int) (float64, bool) {
			p, ok := m[n]
			return f(p) / float64(n*count), ok
		}
	}
	med := func(f func(r rep) float64) func(map[int]proc, int) (float64, bool) {
		return func(m map[int]proc, n int) (float64, bool) {
			p, ok := m[n]
			return p.perOpMedian(f), ok
		}
	}
	one := func(m map[int]proc, n int) float64 { return m[n].wall }
	wallOf := func(r rep) float64 { return r.loopWall }
	rusageOf := func(r rep) float64 { return r.loopRusage }
	ests := []est{
		{"wall, timed loop (sec/op)", at(func(p proc) float64 { return p.loop(wallOf) }), one},
		{"CPU, timed loop, getrusage (cpu-sec/op)", at(func(p proc) float64 { return p.loop(rusageOf) }), one},
		{"CPU, timed loop, process clock", at(func(p proc) float64 { return p.loop(func(r rep) float64 { return r.loopClock }) }), one},
		{"CPU, timed loop, thread clock", at(func(p proc) float64 { return p.loop(func(r rep) float64 { return r.loopThread }) }), one},
		{"CPU, whole process / N", at(func(p proc) float64 { return p.cpu }), one},
	}
	if count > 1 {
		ests = append(ests,
			est{fmt.Sprintf("wall, median of %d repetitions", count), med(wallOf), one},
			est{fmt.Sprintf("CPU (getrusage), median of %d repetitions", count), med(rusageOf), one},
		)
	}
	if count == 1 {
		ests = append(ests,
			est{"CPU, (N process − 2-iteration process)/(N−2)", func(m map[int]proc, n int) (float64, bool) {
				a, ok1 := m[n]
				b, ok2 := m[2]
				return (a.cpu - b.cpu) / float64(n-2), ok1 && ok2
			}, func(m map[int]proc, n int) float64 { return m[n].wall + m[2].wall }},
			est{"CPU, (2N process − N process)/N", func(m map[int]proc, n int) (float64, bool) {
				a, ok1 := m[2*n]
				b, ok2 := m[n]
				return (a.cpu - b.cpu) / float64(n), ok1 && ok2
			}, func(m map[int]proc, n int) float64 { return m[n].wall + m[2*n].wall }},
		)
	}
	byRound := map[int]map[string]map[int]proc{}
	for _, p := range procs {
		if byRound[p.round] == nil {
			byRound[p.round] = map[string]map[int]proc{}
		}
		if byRound[p.round][p.variant] == nil {
			byRound[p.round][p.variant] = map[int]proc{}
		}
		byRound[p.round][p.variant][p.iters] = p
	}
	var rounds []int
	for r := range byRound {
		rounds = append(rounds, r)
	}
	slices.Sort(rounds)
	fmt.Println("per-round log-ratios against " + vs[0] + ": exp(mean) [SD, MAD×1.4826 in %]; Hodges–Lehmann [signed-rank 95%]; anytime-valid 95% (asymptotic CS); wall s per round of the processes it needs")
	for _, e := range ests {
		fmt.Printf("  %s\n", e.name)
		for _, v := range vs[1:] {
			var d []float64
			var cost float64
			for _, r := range rounds {
				num, ok1 := e.value(byRound[r][v], n[v])
				den, ok2 := e.value(byRound[r][vs[0]], n[vs[0]])
				if !ok1 || !ok2 || num <= 0 || den <= 0 {
					continue
				}
				d = append(d, math.Log(num/den))
				for _, vv := range vs {
					cost += e.cost(byRound[r][vv], n[vv])
				}
			}
			if len(d) == 0 {
				continue
			}
			m, sd := meanSD(d)
			hl := analysis.PairedLogs(d, 0.95)
			cs := analysis.AnytimeLogs(d, 0.95, 0)
			fmt.Printf("    %s/%s  %.4f [SD %.2f%%, MAD %.2f%%]  HL %.4f [%.4f, %.4f] ±%.2f%%  CS [%.4f, %.4f] ±%.2f%%  %.2f s/round\n",
				v, vs[0], math.Exp(m), 100*sd, 100*1.4826*mad(d), hl.Ratio, hl.Lo, hl.Hi, 100*hl.HalfWidth(), cs.Lo, cs.Hi, 100*cs.HalfWidth(), cost/float64(len(d)))
		}
	}
}

func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	if len(x) > 1 {
		sd = math.Sqrt(sd / float64(len(x)-1))
	}
	return mean, sd
}

func median(x []float64) float64 {
	s := slices.Sorted(slices.Values(x))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mad(x []float64) float64 {
	m := median(x)
	dev := make([]float64, len(x))
	for i, v := range x {
		dev[i] = math.Abs(v - m)
	}
	return median(dev)
}

// buildProbe builds dir's test binary against the CPU-timed testing
// package with the probe timer in place of perflab's.
func buildProbe(ctx context.Context, dir string) (string, error) {
	work, err := os.MkdirTemp("", "cputime-probe-*")
	if err != nil {
		return "", err
	}
	cache := filepath.Join(work, "cache")
	if _, _, err := gotest.Compile(ctx, gotest.Build{Dir: dir, CacheDir: cache, CPUTime: true}); err != nil {
		return "", err
	}
	ovs, _ := filepath.Glob(filepath.Join(cache, "overlay-*", "overlay.json"))
	if len(ovs) != 1 {
		return "", fmt.Errorf("found %d testing overlays in %s", len(ovs), cache)
	}
	b, err := os.ReadFile(ovs[0])
	if err != nil {
		return "", err
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(b, &ov); err != nil {
		return "", err
	}
	probeDir := filepath.Join(work, "probe")
	if err := os.MkdirAll(probeDir, 0o755); err != nil {
		return "", err
	}
	for dst, src := range ov.Replace {
		content, err := os.ReadFile(src)
		if err != nil {
			return "", err
		}
		name := filepath.Base(src)
		if name == "perflab_cputime.go" {
			content = []byte(probeTimer)
		}
		p := filepath.Join(probeDir, name)
		if err := os.WriteFile(p, content, 0o644); err != nil {
			return "", err
		}
		ov.Replace[dst] = p
	}
	js, _ := json.Marshal(ov)
	ovPath := filepath.Join(probeDir, "overlay.json")
	if err := os.WriteFile(ovPath, js, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(work, "probe.test")
	cmd := exec.CommandContext(ctx, "go", "test", "-c", "-overlay="+ovPath, "-o", bin, ".")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the probe: %v\n%s", err, out)
	}
	return bin, nil
}

// probeTimer replaces perflab_cputime.go in the probe build.
const probeTimer = `package testing

import (
	"syscall"
	"time"
	"unsafe"
)

type perflabCPUTimer struct {
	begin, total   time.Duration
	pbegin, ptotal time.Duration
	tbegin, ttotal time.Duration
	tid, migrated  int
	failed         bool
}

var (
	perflabFirst = time.Duration(-1)
	perflabTS    syscall.Timespec
)

func perflabClock(id uintptr) time.Duration {
	syscall.Syscall(syscall.SYS_CLOCK_GETTIME, id, uintptr(unsafe.Pointer(&perflabTS)), 0)
	return time.Duration(perflabTS.Nano())
}

func (t *perflabCPUTimer) start() {
	c, ok := perflabProcessCPU()
	if perflabFirst < 0 {
		perflabFirst = c
	}
	t.begin, t.failed = c, t.failed || !ok
	t.pbegin = perflabClock(2)
	t.tid = syscall.Gettid()
	t.tbegin = perflabClock(3)
}

func (t *perflabCPUTimer) stop() {
	t.ttotal += perflabClock(3) - t.tbegin
	if syscall.Gettid() != t.tid {
		t.migrated++
	}
	t.ptotal += perflabClock(2) - t.pbegin
	c, ok := perflabProcessCPU()
	t.total += c - t.begin
	t.failed = t.failed || !ok
}

func (t *perflabCPUTimer) reset() { t.total, t.ptotal, t.ttotal, t.migrated = 0, 0, 0, 0 }

func (b *B) perflabReportCPU() {
	t := &b.perflabCPU
	if t.failed || b.N <= 0 || b.extra == nil {
		return
	}
	n := float64(b.N)
	b.extra["cpu-ns/op"] = float64(t.total.Nanoseconds()) / n
	b.extra["pcpu-ns/op"] = float64(t.ptotal.Nanoseconds()) / n
	b.extra["tcpu-ns/op"] = float64(t.ttotal.Nanoseconds()) / n
	b.extra["migrations"] = float64(t.migrated)
	b.extra["startup-cpu-sec"] = perflabFirst.Seconds()
}
`
