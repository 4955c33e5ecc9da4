// Command noisecorpus records benchmark rounds on this machine under a
// chosen kind of interference, for the statistics tests that replay real
// noise (analysis/testdata/noise).
//
// It builds the planted pair (engine/testdata/plantedpair: v=b does 2% more
// of v=a's work, v=c is a copy of v=a), sizes each variant to about
// -proc of timed loop per process, and then runs -rounds rounds; a round
// runs every variant once, in a shuffled order, as one process of -reps
// back-to-back repetitions of equal iteration counts. For every process it
// writes one CSV line: round, position in the round, variant, iterations
// per repetition, each repetition's ns/op, the process's CPU time (user +
// system, all threads, from its rusage) and its wall time, in ns.
//
// -hog starts the interference for the length of the recording, as child
// processes that end with it:
//
//	quiet    none (the machine's own co-tenants only)
//	noisy    ../shared/tools/noisy-neighbour (busy spells and pauses of 10–300 ms on every CPU)
//	onecore  one process spinning on one CPU all the time
//	membw    one process copying 64 MiB buffers back and forth (memory bandwidth)
//	bursts   every CPU busy 1–5 ms, then idle 5–50 ms, at random
//
// Usage, from the repository root (-hog noisy looks for the tool at
// ../shared/tools/noisy-neighbour):
//
//	go run ./scripts/noisecorpus -hog noisy -rounds 200 -o analysis/testdata/noise/noisy.csv.gz
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	var (
		pkg    = flag.String("pkg", "engine/testdata/plantedpair", "package `dir` of BenchmarkWork")
		rounds = flag.Int("rounds", 150, "rounds to record")
		reps   = flag.Int("reps", 5, "repetitions per process")
		proc   = flag.Duration("proc", 100*time.Millisecond, "timed loop per process")
		hog    = flag.String("hog", "quiet", "interference: quiet, noisy, onecore, membw, bursts")
		seed   = flag.Uint64("seed", 1, "seed of the round orders and of the interference")
		out    = flag.String("o", "", "output `file` (.csv.gz); standard output when empty")
		hogRun = flag.String("run-hog", "", "internal: run one hog process of this kind")
	)
	flag.Parse()
	if *hogRun != "" {
		runHog(*hogRun, *seed)
		return
	}
	if err := record(*pkg, *rounds, *reps, *proc, *hog, *seed, *out); err != nil {
		log.Fatal(err)
	}
}

func record(pkg string, rounds, reps int, proc time.Duration, hog string, seed uint64, out string) error {
	dir, err := os.MkdirTemp("", "noisecorpus")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "pp.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Dir, build.Stderr = pkg, os.Stderr
	if err := build.Run(); err != nil {
		return fmt.Errorf("building %s: %w", pkg, err)
	}
	variants := []string{"a", "b", "c"}
	iters := map[string]int{}
	for _, v := range variants {
		p, err := run(bin, v, proc.String(), 1)
		if err != nil {
			return err
		}
		iters[v] = max(1, p.iters/reps)
	}
	stop, err := startHog(hog, seed)
	if err != nil {
		return err
	}
	defer stop()
	time.Sleep(time.Second)

	var w io.Writer = os.Stdout
	if out != "" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		gz := gzip.NewWriter(f)
		defer gz.Close()
		w = gz
	}
	bw := bufio.NewWriter(w)
	defer bw.Flush()
	fmt.Fprintf(bw, "# noisecorpus hog=%s rounds=%d reps=%d proc=%s seed=%d cpus=%d go=%s recorded=%s\n",
		hog, rounds, reps, proc, seed, runtime.NumCPU(), runtime.Version(), time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(bw, "round,pos,variant,iters")
	for i := 1; i <= reps; i++ {
		fmt.Fprintf(bw, ",rep%d", i)
	}
	fmt.Fprintf(bw, ",cpu_ns,wall_ns\n")
	rng := rand.New(rand.NewPCG(seed, 7))
	for r := 1; r <= rounds; r++ {
		order := append([]string(nil), variants...)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for pos, v := range order {
			p, err := run(bin, v, strconv.Itoa(iters[v])+"x", reps)
			if err != nil {
				return err
			}
			if len(p.nsop) != reps {
				return fmt.Errorf("round %d v=%s: %d repetitions, want %d", r, v, len(p.nsop), reps)
			}
			fmt.Fprintf(bw, "%d,%d,%s,%d", r, pos, v, iters[v])
			for _, x := range p.nsop {
				fmt.Fprintf(bw, ",%g", x)
			}
			fmt.Fprintf(bw, ",%d,%d\n", p.cpu.Nanoseconds(), p.wall.Nanoseconds())
		}
		if r%25 == 0 {
			fmt.Fprintf(os.Stderr, "noisecorpus: %s: round %d of %d\n", hog, r, rounds)
		}
	}
	return nil
}

type process struct {
	iters     int
	nsop      []float64
	cpu, wall time.Duration
}

func run(bin, variant, benchtime string, count int) (process, error) {
	cmd := exec.Command(bin, "-test.run=^$", "-test.bench=^BenchmarkWork$/^v="+variant+"$",
		"-test.benchtime="+benchtime, "-test.count="+strconv.Itoa(count))
	start := time.Now()
	b, err := cmd.Output()
	p := process{wall: time.Since(start)}
	if err != nil {
		return p, fmt.Errorf("v=%s: %w\n%s", variant, err, b)
	}
	if u, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.cpu = time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && strings.HasPrefix(f[0], "BenchmarkWork/") && f[3] == "ns/op" {
			n, _ := strconv.Atoi(f[1])
			x, _ := strconv.ParseFloat(f[2], 64)
			p.iters = n
			p.nsop = append(p.nsop, x)
		}
	}
	if len(p.nsop) == 0 {
		return p, fmt.Errorf("v=%s: no result in output:\n%s", variant, b)
	}
	return p, nil
}

// startHog starts the interference and returns what stops it.
func startHog(kind string, seed uint64) (func(), error) {
	var cmds []*exec.Cmd
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	switch kind {
	case "quiet":
	case "noisy":
		nn := filepath.Join("..", "shared", "tools", "noisy-neighbour")
		if _, err := os.Stat(nn); err != nil {
			return nil, fmt.Errorf("-hog noisy needs %s: %w", nn, err)
		}
		cmds = append(cmds, exec.Command(nn, "900", strconv.FormatUint(seed, 10)))
	case "onecore", "membw":
		cmds = append(cmds, exec.Command(self, "-run-hog", kind, "-seed", strconv.FormatUint(seed, 10)))
	case "bursts":
		for i := 0; i < runtime.NumCPU(); i++ {
			cmds = append(cmds, exec.Command(self, "-run-hog", kind, "-seed", strconv.FormatUint(seed*1000+uint64(i), 10)))
		}
	default:
		return nil, fmt.Errorf("unknown -hog %q: want quiet, noisy, onecore, membw or bursts", kind)
	}
	for _, c := range cmds {
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := c.Start(); err != nil {
			return nil, err
		}
	}
	return func() {
		for _, c := range cmds {
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			_ = c.Wait()
		}
	}, nil
}

// runHog is one interference process; it runs until killed.
func runHog(kind string, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 11))
	switch kind {
	case "onecore":
		runtime.GOMAXPROCS(1)
		x := uint64(1)
		for {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if x == 0 {
				fmt.Println(x)
			}
		}
	case "membw":
		runtime.GOMAXPROCS(1)
		a, b := make([]byte, 64<<20), make([]byte, 64<<20)
		for i := range a {
			a[i] = byte(i)
		}
		for {
			copy(b, a)
			copy(a, b)
		}
	case "bursts":
		runtime.GOMAXPROCS(1)
		x := uint64(1)
		for {
			until := time.Now().Add(time.Duration(1+rng.IntN(5)) * time.Millisecond)
			for time.Now().Before(until) {
				for i := 0; i < 1000; i++ {
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
			}
			time.Sleep(time.Duration(5+rng.IntN(46)) * time.Millisecond)
			if x == 0 {
				fmt.Println(x)
			}
		}
	}
}
