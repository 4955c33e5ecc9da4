// Command varlab measures where the variance of a Go benchmark's time
// comes from on one machine, as components of log time: between link
// layouts, between processes, within a process. It is a measurement
// program, not part of perflab; Linux only. docs/varlab.md says how to
// run it on real modules and how to read its tables.
//
//	varlab layouts -dir MODDIR -pkg . -bench REGEX -layouts 10 -rounds 15 -benchtime 100ms -funcalign 0,64,128 [-planted OLDDIR,NEWDIR]
//	varlab sources -dir MODDIR -pkg . -bench REGEX -rounds 20 -procs 6 -reps 5 -benchtime 100ms
//	varlab analyze FILE.csv
//
// layouts links L random layouts (-ldflags=-randlayout) of the package's
// test binary at each function alignment (-ldflags=-funcalign=N; 0 is the
// linker's default), runs R rounds, each of every binary once in a
// shuffled order at a fixed iteration count, and splits log time, per
// benchmark and alignment, into a between-layout and a process component.
// With -planted it links and runs two source trees of one module and
// estimates the change between them at each alignment, beside its change
// in instructions/op under Cachegrind.
//
// sources runs one binary under conditions that each remove or vary one
// suspected source of process-to-process variance (CPU placement, address
// randomisation, environment size, the runtime's parallelism), interleaved
// in shuffled rounds, and compares each condition's process variance with
// the unchanged processes' (base, as perflab runs them).
//
// Both write every process as a CSV row (-o) as they go; analyze prints the
// same tables from such a file. Ctrl-C stops a measurement: the rows so far
// stay in the file and the tables are printed from the complete rounds.
package main

import (
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/perflab/perflab/driver/gotest"
)

const usage = `varlab measures where the variance of a Go benchmark's time comes from.

Usage:
  varlab layouts -dir MODDIR -bench REGEX [flags]   between-layout and process variance, per -funcalign
  varlab sources -dir MODDIR -bench REGEX [flags]   process variance under conditions that remove a source
  varlab analyze FILE.csv                          the tables again, from a CSV either wrote

Run "varlab layouts -h" or "varlab sources -h" for their flags; docs/varlab.md
for the commands to run on real modules and how to read the tables.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C ends varlab at once
	}()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "varlab:", err)
		stop()
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("no sub-command: want layouts, sources or analyze (varlab -h says what each does)")
	}
	switch args[0] {
	case "layouts":
		return runLayouts(ctx, args[1:], stdout)
	case "sources":
		return runSources(ctx, args[1:], stdout)
	case "analyze":
		if len(args) != 2 {
			return errors.New("analyze takes one CSV file: varlab analyze FILE.csv")
		}
		return analyzeFile(args[1], stdout)
	case "-h", "-help", "--help", "help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown sub-command %q: want layouts, sources or analyze (varlab -h says what each does)", args[0])
}

func analyzeFile(path string, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := readCSV(f)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case len(d.Layouts) > 0:
		printLayouts(stdout, d)
	case len(d.Sources) > 0:
		printSources(stdout, d)
	default:
		return fmt.Errorf("%s: no rows", path)
	}
	return nil
}

// common are the flags of both measurements.
type common struct {
	dir, pkg, bench, out string
	rounds               int
	benchtime            time.Duration
	seed                 uint64
	keep                 bool
}

func (c *common) register(fs *flag.FlagSet, kind string, rounds int) {
	fs.StringVar(&c.dir, "dir", ".", "module `directory` to build in")
	fs.StringVar(&c.pkg, "pkg", ".", "package, relative to -dir")
	fs.StringVar(&c.bench, "bench", "", "benchmarks to measure (a -test.bench `regex`); each leaf benchmark it selects is measured on its own")
	fs.IntVar(&c.rounds, "rounds", rounds, "interleaved rounds")
	fs.DurationVar(&c.benchtime, "benchtime", 100*time.Millisecond, "timed loop per process: each benchmark's iteration count is sized once to take about this long")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the rounds' orders")
	fs.StringVar(&c.out, "o", "varlab-"+kind+"-"+time.Now().Format("20060102-150405")+".csv", "CSV `file` for the raw rows (written as the rounds go)")
	fs.BoolVar(&c.keep, "keep", false, "keep the binaries' scratch directory")
}

// parse sets fs's usage to about and its flags, parses args and checks
// the common flags.
func (c *common) parse(fs *flag.FlagSet, args []string, about string) error {
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), about)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	return c.check()
}

// scratch makes the directory the binaries go in; done removes it, unless
// -keep says where it is.
func (c *common) scratch(kind string) (dir string, done func(), err error) {
	dir, err = os.MkdirTemp("", "varlab-"+kind+"-")
	if err != nil {
		return "", nil, err
	}
	if c.keep {
		fmt.Fprintf(os.Stderr, "varlab: binaries in %s\n", dir)
		return dir, func() {}, nil
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

func (c *common) check() error {
	switch {
	case c.bench == "":
		return errors.New("-bench is required: a -test.bench regex selecting the benchmarks to measure")
	case c.rounds < 2:
		return fmt.Errorf("-rounds %d: want at least 2", c.rounds)
	case c.benchtime <= 0:
		return fmt.Errorf("-benchtime %s: want a positive duration", c.benchtime)
	}
	if _, err := os.Stat(c.out); err == nil {
		return fmt.Errorf("-o %s exists: give another file name (nothing is overwritten)", c.out)
	}
	return nil
}

// pkgDir is where a package's test binary runs (so that testdata/ works).
func pkgDir(dir, pkg string) string { return filepath.Join(dir, pkg) }

// leafRegex is the -test.bench expression selecting exactly leaf.
func leafRegex(leaf string) (string, error) {
	parts := strings.Split(leaf, "/")
	return gotest.BenchRegex(parts[0], parts[1:])
}

// leaves lists the leaf benchmarks bench selects in bin.
func leaves(ctx context.Context, bin, dir, bench string) ([]string, error) {
	l, err := gotest.ListLeaves(ctx, gotest.Invocation{Binary: bin, Dir: dir, Bench: bench})
	if err != nil {
		return nil, fmt.Errorf("listing the benchmarks -bench %q selects: %w", bench, err)
	}
	for _, s := range l.Skipped {
		fmt.Fprintf(os.Stderr, "varlab: %s skips itself (%s); left out\n", s.Name, s.Reason)
	}
	if len(l.Ran) == 0 {
		return nil, fmt.Errorf("-bench %q selects no benchmark that runs; list them with go test -list=. in the package", bench)
	}
	return l.Ran, nil
}

// size returns the iteration count at which one repetition of leaf takes
// about target, from one run of bin at -test.benchtime=target.
func size(ctx context.Context, bin, dir, leaf string, target time.Duration) (int, error) {
	re, err := leafRegex(leaf)
	if err != nil {
		return 0, err
	}
	res, err := gotest.Run(ctx, gotest.Invocation{Binary: bin, Dir: dir, Bench: re, Benchtime: target.String()})
	if err != nil {
		return 0, fmt.Errorf("sizing %s: %w", leaf, err)
	}
	v, ok := res[0].Value(unitTime)
	if !ok || !(v > 0) {
		return 0, fmt.Errorf("sizing %s: no positive sec/op in its result", leaf)
	}
	return max(1, int(math.Round(target.Seconds()/v))), nil
}

// timeOf runs one process of bin and returns its repetitions' sec/op.
func timeOf(ctx context.Context, inv gotest.Invocation, leaf string, iters int) ([]float64, error) {
	re, err := leafRegex(leaf)
	if err != nil {
		return nil, err
	}
	inv.Bench, inv.Benchtime = re, fmt.Sprintf("%dx", iters)
	res, err := gotest.Run(ctx, inv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", leaf, err)
	}
	var out []float64
	for _, r := range res {
		if v, ok := r.Value(unitTime); ok && v > 0 {
			out = append(out, v)
		}
	}
	if len(out) != max(1, inv.Count) {
		return nil, fmt.Errorf("%s: %d results with sec/op, want %d", leaf, len(out), max(1, inv.Count))
	}
	return out, nil
}

// sink writes CSV rows to a file, flushed after every row so that an
// interrupted run keeps them.
type sink struct {
	f *os.File
	w *csv.Writer
}

func newSink(path, settings string, reps int) (*sink, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	s := &sink{f: f, w: csv.NewWriter(f)}
	if err := writeHeader(s.w, f, settings, reps); err != nil {
		f.Close()
		return nil, err
	}
	s.w.Flush()
	return s, s.w.Error()
}

func (s *sink) write(rec []string) error {
	if err := s.w.Write(rec); err != nil {
		return err
	}
	s.w.Flush()
	return s.w.Error()
}

func (s *sink) close() error { return s.f.Close() }

// progress prints a round's end and the time left, to standard error.
func progress(r, rounds int, start time.Time) {
	el := time.Since(start)
	left := time.Duration(float64(el) / float64(r) * float64(rounds-r))
	fmt.Fprintf(os.Stderr, "varlab: round %d of %d done (%s, about %s left)\n", r, rounds, el.Round(time.Second), left.Round(time.Second))
}

// interrupted is the error of a measurement stopped before its last round;
// its tables are printed first.
func interrupted(ctx context.Context, rounds, of int, out string) error {
	if ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("interrupted after %d of %d complete rounds: the tables above hold those; the rows so far are in %s", rounds, of, out)
}

// settings names a measurement's settings on one line, for the CSV's
// comment and the tables' heading.
func settings(kind string, c common, extra string) string {
	dir := ""
	if c.dir != "" {
		dir = "dir=" + c.dir
	}
	s := fmt.Sprintf("varlab %s %s pkg=%s bench=%s rounds=%d benchtime=%s seed=%d %s recorded=%s",
		kind, dir, c.pkg, c.bench, c.rounds, c.benchtime, c.seed, extra, time.Now().UTC().Format(time.RFC3339))
	return strings.Join(strings.Fields(s), " ")
}
