package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/perflab/perflab/driver/gotest"
)

// condition is one way of running a benchmark process.
type condition struct {
	name string
	wrap []string // command the binary runs under
	env  []string // added to the environment perflab passes
	pad  bool     // add a variable of random length (0–maxPad bytes)
}

// maxPad is the most environment padding envpad adds, in bytes.
const maxPad = 4096

// conditionOrder is every condition sources knows, in the order tables
// list them; base comes first.
var conditionOrder = []string{"base", "pin0", "pin1", "envpad", "noaslr", "gomaxprocs1"}

// conditions builds the conditions named, leaving out (with a message on
// standard error) those whose tool is missing or does not work here.
func conditions(ctx context.Context, names []string) ([]condition, error) {
	cpus := allowedCPUs()
	var out []condition
	for _, n := range names {
		c := condition{name: n}
		switch n {
		case "base":
		case "pin0", "pin1":
			i, _ := strconv.Atoi(n[3:])
			if i >= len(cpus) {
				fmt.Fprintf(os.Stderr, "varlab: %s left out: this process may run on %d CPU(s) only\n", n, len(cpus))
				continue
			}
			c.wrap = []string{"taskset", "-c", strconv.Itoa(cpus[i])}
		case "envpad":
			c.pad = true
		case "noaslr":
			c.wrap = []string{"setarch", machine(), "-R"}
		case "gomaxprocs1":
			c.env = []string{"GOMAXPROCS=1"}
		default:
			return nil, fmt.Errorf("-conds: unknown condition %q; want some of %s", n, strings.Join(conditionOrder, ","))
		}
		if len(c.wrap) > 0 {
			probe := exec.CommandContext(ctx, c.wrap[0], append(c.wrap[1:], "true")...)
			if b, err := probe.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "varlab: %s left out: %s does not work here (%v%s); %s is in util-linux\n",
					n, strings.Join(c.wrap, " "), err, firstLine(b), c.wrap[0])
				continue
			}
		}
		out = append(out, c)
	}
	if len(out) == 0 || out[0].name != "base" {
		return nil, fmt.Errorf("-conds %s: base must come first, the processes every other condition is compared with", strings.Join(names, ","))
	}
	return out, nil
}

// allowedCPUs lists the CPUs this process may run on.
func allowedCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil
	}
	var cpus []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus
}

// machine is uname -m.
func machine() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return "x86_64"
	}
	return string(bytes.TrimRight(u.Machine[:], "\x00"))
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if s == "" {
		return ""
	}
	return ": " + s
}

func runSources(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("varlab sources", flag.ContinueOnError)
	var c common
	c.register(fs, "sources", 20)
	procs := fs.Int("procs", 6, "processes per condition per round")
	reps := fs.Int("reps", 5, "repetitions per process (-test.count); a process's value is their median")
	conds := fs.String("conds", strings.Join(conditionOrder, ","), "conditions, comma-separated, base first")
	err := c.parse(fs, args, "Usage: varlab sources -dir MODDIR -bench REGEX [flags]\n\n"+
		"Runs one test binary (default layout) under each condition, -procs processes a\n"+
		"condition in each of -rounds shuffled rounds, and prints per benchmark each\n"+
		"condition's process-to-process SD of log time (round effects taken out), its\n"+
		"SD within a process, and its process variance against base's.\n\n"+
		"Conditions: base (as perflab runs a process), pin0 and pin1 (taskset to the\n"+
		"first or second CPU allowed), envpad (a variable of random length 0-4096 bytes\n"+
		"in the environment), noaslr (setarch -R), gomaxprocs1 (GOMAXPROCS=1).\n\n")
	if err != nil {
		return err
	}
	if *procs < 2 || *reps < 1 {
		return fmt.Errorf("-procs %d -reps %d: want at least 2 processes and 1 repetition", *procs, *reps)
	}
	cs, err := conditions(ctx, strings.Split(*conds, ","))
	if err != nil {
		return err
	}
	tmp, cleanup, err := c.scratch("sources")
	if err != nil {
		return err
	}
	defer cleanup()
	bin, _, err := gotest.Compile(ctx, gotest.Build{Dir: c.dir, Package: c.pkg, CacheDir: filepath.Join(tmp, "cache")})
	if err != nil {
		return err
	}
	dir := pkgDir(c.dir, c.pkg)
	names, err := leaves(ctx, bin, dir, c.bench)
	if err != nil {
		return err
	}
	per := c.benchtime / time.Duration(*reps)
	iters := map[string]int{}
	for _, leaf := range names {
		if iters[leaf], err = size(ctx, bin, dir, leaf, per); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "varlab: %s: %d iterations a repetition, %d repetitions a process\n", leaf, iters[leaf], *reps)
	}
	var kept []string
	for _, x := range cs {
		kept = append(kept, x.name)
	}
	d := &dataset{Settings: settings("sources", c, fmt.Sprintf("procs=%d reps=%d conds=%s", *procs, *reps, strings.Join(kept, ",")))}
	out, err := newSink(c.out, d.Settings, *reps)
	if err != nil {
		return err
	}
	defer out.close()
	type job struct {
		leaf string
		cond condition
		proc int
	}
	rng := rand.New(rand.NewPCG(c.seed, 7))
	start, done := time.Now(), 0
	for r := 1; r <= c.rounds && ctx.Err() == nil; r++ {
		var jobs []job
		for _, leaf := range names {
			for _, x := range cs {
				for p := 1; p <= *procs; p++ {
					jobs = append(jobs, job{leaf, x, p})
				}
			}
		}
		rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
		for pos, j := range jobs {
			inv := gotest.Invocation{Binary: bin, Dir: dir, Count: *reps, Wrap: j.cond.wrap, Env: j.cond.env}
			pad := 0
			if j.cond.pad {
				pad = rng.IntN(maxPad + 1)
				inv.Env = append(inv.Env, "VARLAB_PAD="+strings.Repeat("x", pad))
			}
			v, err := timeOf(ctx, inv, j.leaf, iters[j.leaf])
			if ctx.Err() != nil {
				break
			}
			if err != nil {
				return fmt.Errorf("round %d, %s: %w", r, j.cond.name, err)
			}
			row := sourceRow{Bench: j.leaf, Cond: j.cond.name, Round: r, Proc: j.proc, Pos: pos, Iters: iters[j.leaf], Pad: pad, Reps: v}
			d.Sources = append(d.Sources, row)
			if err := out.write(row.record()); err != nil {
				return err
			}
		}
		if ctx.Err() == nil {
			done = r
			progress(r, c.rounds, start)
		}
	}
	printSources(stdout, d)
	return interrupted(ctx, done, c.rounds, c.out)
}
