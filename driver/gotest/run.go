package gotest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/perf/benchfmt"
)

// An Invocation is one execution of a compiled test binary for one
// benchmark selection.
type Invocation struct {
	Binary    string
	Dir       string        // working dir for the binary (the package dir, so testdata/ works); "" = current
	Bench     string        // -test.bench regex
	Benchtime string        // -test.benchtime; "" = default
	Count     int           // -test.count: timed repetitions of each benchmark in the one process; 0 = 1
	CPU       []int         // -test.cpu list; nil = omit
	Env       []string      // extra exec env "KEY=VAL" (GOMAXPROCS, GOGC, ...) appended to os.Environ()
	Timeout   time.Duration // kill the process after this; 0 = no timeout (ctx still applies)
	Args      []string      // extra args
	Usage     *Usage        // when non-nil, receives the process's CPU and wall time (usage.go)
	// Wrap is a command the binary runs under, e.g. {"valgrind",
	// "--tool=cachegrind"}: the process started is Wrap[0] with Wrap[1:],
	// the binary and its arguments. Empty runs the binary directly.
	Wrap []string
}

// A RunError reports a benchmark run that failed: the binary exited with a
// non-zero status, panicked, was killed (timeout, cancellation, signal), or
// printed no benchmark results. Tail holds the last 20 lines of its
// combined standard error and standard output; if the output announced a
// panic or fatal runtime error before those lines, that line is kept at the
// top of Tail.
type RunError struct {
	Reason, Tail string
	// Skipped is set when the binary printed no results because the
	// selected benchmarks called b.Skip: the cell does not apply, it did
	// not fail. Skips then names each with its message, and Reason says
	// "skipped: " and the message (or, for several, each message with how
	// many benchmarks gave it).
	Skipped bool
	Skips   []Skip
	// NoResults is set when the binary exited successfully but printed no
	// benchmark result and no skip message could be read back: a wrong
	// regex, or benchmarks that skipped themselves this time only (a load
	// step the generator could not drive, say).
	NoResults bool
}

// Error returns Reason and Tail on separate lines.
func (e *RunError) Error() string { return e.Reason + "\n" + e.Tail }

// killGrace bounds how long Run waits for the output pipes to close after
// the binary exited and its process group was killed.
const killGrace = 5 * time.Second

// Run executes inv.Binary with
//
//	-test.run=^$ -test.bench=<Bench> -test.count=<Count> -test.benchmem [-test.benchtime=<Benchtime>] [-test.cpu=<CPU>] <Args>
//
// in inv.Dir and returns the benchmark results it printed on standard
// output, in output order, parsed as by [Parse] with the binary's base name
// as file name.
//
// A non-zero exit, a panic, a kill by timeout, cancellation or signal, or
// output without any benchmark result is reported as a *[RunError] with no
// results. If the run succeeded but some lines that began with "Benchmark"
// could not be parsed, Run returns the results that did parse together
// with an error wrapping the *[benchfmt.SyntaxError] values; that error is
// not a *RunError and callers may keep the results.
//
// The binary runs in its own process group (on Unix), which is killed as a
// whole on timeout or cancellation and again once the binary has exited, so
// no process it started survives the run.
func Run(ctx context.Context, inv Invocation) ([]*benchfmt.Result, error) {
	if inv.Binary == "" {
		return nil, errors.New("gotest: Invocation.Binary is empty; pass the path Compile returned")
	}
	if inv.Bench == "" {
		return nil, errors.New("gotest: Invocation.Bench is empty; set it to a -test.bench regex, e.g. from BenchRegex")
	}
	if inv.Count < 0 {
		return nil, fmt.Errorf("gotest: Invocation.Count is %d; want 0 (one repetition) or more", inv.Count)
	}
	args := []string{"-test.run=^$", "-test.bench=" + inv.Bench, "-test.count=" + strconv.Itoa(max(1, inv.Count)), "-test.benchmem"}
	if inv.Benchtime != "" {
		args = append(args, "-test.benchtime="+inv.Benchtime)
	}
	if inv.CPU != nil {
		cpus := make([]string, len(inv.CPU))
		for i, c := range inv.CPU {
			if c < 1 {
				return nil, fmt.Errorf("gotest: Invocation.CPU holds %d; every -test.cpu value must be at least 1", c)
			}
			cpus[i] = strconv.Itoa(c)
		}
		args = append(args, "-test.cpu="+strings.Join(cpus, ","))
	}
	args = append(args, inv.Args...)

	runCtx := ctx
	if inv.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, inv.Timeout)
		defer cancel()
	}
	name := filepath.Base(inv.Binary)
	cmd := exec.CommandContext(runCtx, inv.Binary, args...)
	if len(inv.Wrap) > 0 {
		cmd = exec.CommandContext(runCtx, inv.Wrap[0], append(append(inv.Wrap[1:len(inv.Wrap):len(inv.Wrap)], inv.Binary), args...)...)
	}
	cmd.Dir = inv.Dir
	cmd.Env = append(os.Environ(), inv.Env...)
	isolate(cmd)

	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("gotest: creating output pipe: %w", err)
	}
	defer outR.Close()
	errR, errW, err := os.Pipe()
	if err != nil {
		outW.Close()
		return nil, fmt.Errorf("gotest: creating output pipe: %w", err)
	}
	defer errR.Close()
	cmd.Stdout, cmd.Stderr = outW, errW
	started := time.Now()
	err = cmd.Start()
	outW.Close() // the child holds its own copies
	errW.Close()
	if err != nil {
		return nil, fmt.Errorf("gotest: starting benchmark binary: %w; check that Compile produced %s and that it is executable", err, inv.Binary)
	}

	tail := new(tailBuffer)
	type parsed struct {
		res []*benchfmt.Result
		err error
	}
	parseDone := make(chan parsed, 1)
	go func() {
		tee := io.TeeReader(outR, tail)
		res, err := Parse(tee, name)
		_, _ = io.Copy(io.Discard, tee) // keep the child from blocking on a full pipe
		parseDone <- parsed{res, err}
	}()
	stderrDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(tail, errR)
		close(stderrDone)
	}()

	waitErr := cmd.Wait()
	inv.Usage.record(cmd.ProcessState, started)
	_ = killGroup(cmd) // processes the binary started and left behind

	// The pipes close once every process holding them is gone; a process
	// that left the group could keep them open, so stop waiting after a
	// grace period.
	grace := time.NewTimer(killGrace)
	defer grace.Stop()
	var p parsed
	gotParse, gotStderr := false, false
	for !gotParse || !gotStderr {
		select {
		case p = <-parseDone:
			gotParse = true
		case <-stderrDone:
			gotStderr = true
			stderrDone = nil
		case <-grace.C:
			outR.Close()
			errR.Close()
		}
	}

	if waitErr != nil || !cmd.ProcessState.Success() {
		return nil, &RunError{Reason: failureReason(ctx, runCtx, inv, name, cmd, waitErr, tail), Tail: tail.String()}
	}
	if len(p.res) == 0 {
		reason := fmt.Sprintf("benchmark binary %s printed no benchmark results for -test.bench=%s; check that the regex matches a benchmark (list them with -test.list=.)", name, inv.Bench)
		if p.err != nil {
			first, rest, more := strings.Cut(p.err.Error(), "\n")
			reason += "; first output problem: " + first
			if more && rest != "" {
				reason += " (and more)"
			}
		}
		if skips := explainNoResults(ctx, inv); len(skips) > 0 {
			return nil, &RunError{Reason: "skipped: " + describeSkips(skips), Tail: tail.String(), Skipped: true, Skips: skips}
		}
		return nil, &RunError{Reason: reason, Tail: tail.String(), NoResults: true}
	}
	if bad := unmeasured(p.res); bad != "" {
		return nil, &RunError{Reason: fmt.Sprintf("benchmark binary %s exited cleanly but printed %s with no measured value: go test prints that for a benchmark that panicked, when the panic loses a race with the end of the run", name, bad), Tail: tail.String()}
	}
	if p.err != nil {
		return p.res, fmt.Errorf("gotest: benchmark binary %s printed malformed benchmark lines (a benchmark may be writing to standard output): %w", name, p.err)
	}
	return p.res, nil
}

// unmeasured names the first result that has no value, or a value that is
// not a number, or returns "". A benchmark that panics in its goroutine
// unblocks the testing package's wait as the panic unwinds; once in some
// thousand runs the process then prints the result line (with the
// iteration count alone, which is no result, or with a time that is not
// a number) and exits 0 before the panic is printed.
func unmeasured(res []*benchfmt.Result) string {
	for _, r := range res {
		if len(r.Values) == 0 {
			return "Benchmark" + string(r.Name)
		}
		for _, v := range r.Values {
			if math.IsNaN(v.Value) || math.IsInf(v.Value, 0) {
				return fmt.Sprintf("Benchmark%s (%v %s)", r.Name, v.Value, v.Unit)
			}
		}
	}
	return ""
}

// failureReason explains why a run ended unsuccessfully.
func failureReason(ctx, runCtx context.Context, inv Invocation, name string, cmd *exec.Cmd, waitErr error, tail *tailBuffer) string {
	switch {
	case ctx.Err() != nil:
		return fmt.Sprintf("benchmark binary %s was stopped: %v", name, ctx.Err())
	case runCtx.Err() != nil:
		return fmt.Sprintf("benchmark binary %s timed out after %v and was killed; raise the timeout or lower the benchtime", name, inv.Timeout)
	}
	st := cmd.ProcessState
	if st == nil {
		return fmt.Sprintf("benchmark binary %s failed: %v", name, waitErr)
	}
	code := st.ExitCode()
	if code == -1 {
		return fmt.Sprintf("benchmark binary %s was killed (%v)", name, st)
	}
	out := tail.String()
	if code == 2 && (strings.Contains(out, "panic: ") || strings.Contains(out, "fatal error: ")) {
		return fmt.Sprintf("benchmark binary %s panicked (exit status 2); the panic is shown below", name)
	}
	return fmt.Sprintf("benchmark binary %s exited with status %d; its output is shown below", name, code)
}

// Profiles holds the absolute paths of the files a profiling pass wrote.
type Profiles struct{ CPU, Heap, Mutex, Block, Trace string }

// Profile makes a profiling pass over inv, separate from any timed run,
// writing into outDir (created if missing). It runs inv twice: once with
// CPU, heap (at the runtime's default sampling rate), mutex
// (-test.mutexprofilefraction=1) and block (-test.blockprofilerate=10000)
// profiling, and once with an execution trace, since tracing would distort
// the profiles; the trace pass runs a tenth of the benchtime. The files are named prefix followed by cpu.pprof,
// heap.pprof, mutex.pprof, block.pprof and trace.out; prefix must not
// contain a path separator. Failures are reported as by [Run]; malformed
// benchmark lines are not an error here, and a profile the binary did not
// write is.
func Profile(ctx context.Context, inv Invocation, outDir, prefix string) (Profiles, error) {
	if strings.ContainsAny(prefix, `/\`) {
		return Profiles{}, fmt.Errorf("gotest: profile prefix %q contains a path separator; put directories in outDir", prefix)
	}
	dir, err := filepath.Abs(outDir)
	if err != nil {
		return Profiles{}, fmt.Errorf("gotest: resolving profile dir %q: %w", outDir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Profiles{}, fmt.Errorf("gotest: creating profile dir: %w; choose a writable directory", err)
	}
	p := Profiles{
		CPU:   filepath.Join(dir, prefix+"cpu.pprof"),
		Heap:  filepath.Join(dir, prefix+"heap.pprof"),
		Mutex: filepath.Join(dir, prefix+"mutex.pprof"),
		Block: filepath.Join(dir, prefix+"block.pprof"),
		Trace: filepath.Join(dir, prefix+"trace.out"),
	}
	for _, f := range []string{p.CPU, p.Heap, p.Mutex, p.Block, p.Trace} {
		// A file left from an earlier pass must not pass for a new one.
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return Profiles{}, fmt.Errorf("gotest: removing old profile: %w", err)
		}
	}
	passes := [][]string{
		{
			"-test.outputdir=" + dir,
			"-test.cpuprofile=" + prefix + "cpu.pprof",
			"-test.memprofile=" + prefix + "heap.pprof",
			"-test.mutexprofile=" + prefix + "mutex.pprof",
			"-test.mutexprofilefraction=1",
			"-test.blockprofile=" + prefix + "block.pprof",
			"-test.blockprofilerate=10000",
		},
		{
			"-test.outputdir=" + dir,
			"-test.trace=" + prefix + "trace.out",
		},
	}
	for i, extra := range passes {
		pass := inv
		pass.Args = append(append([]string(nil), inv.Args...), extra...)
		if i == 1 {
			pass.Benchtime = shorter(inv.Benchtime)
		}
		if _, err := Run(ctx, pass); err != nil {
			var re *RunError
			if errors.As(err, &re) || !errors.As(err, new(*benchfmt.SyntaxError)) {
				return Profiles{}, fmt.Errorf("gotest: profiling pass %d of 2: %w", i+1, err)
			}
		}
	}
	for _, f := range []string{p.CPU, p.Heap, p.Mutex, p.Block, p.Trace} {
		fi, err := os.Stat(f)
		if err != nil {
			return Profiles{}, fmt.Errorf("gotest: the benchmark binary did not write %s: %w; check that Args do not override the profiling flags", f, err)
		}
		if fi.Size() == 0 {
			return Profiles{}, fmt.Errorf("gotest: the benchmark binary wrote an empty %s", f)
		}
	}
	return p, nil
}

// shorter is the trace pass's benchtime: a tenth of the profiling pass's,
// since an execution trace grows by megabytes per second of benchmark.
func shorter(benchtime string) string {
	if n, ok := strings.CutSuffix(benchtime, "x"); ok {
		if v, err := strconv.Atoi(n); err == nil {
			return strconv.Itoa(max(1, v/10)) + "x"
		}
		return benchtime
	}
	if d, err := time.ParseDuration(benchtime); err == nil {
		return max(time.Millisecond, d/10).String()
	}
	return "100ms" // a tenth of go test's default 1s
}

// explainNoResults reruns a selection that printed no results once more,
// verbosely and for one iteration, to learn whether its benchmarks skipped
// themselves (go test prints skips only with -test.v; the rerun runs the
// binary itself, not under inv.Wrap, since whether a benchmark skips does
// not depend on what it runs under). It returns every
// benchmark that skipped with its message, or nil when none did.
func explainNoResults(ctx context.Context, inv Invocation) []Skip {
	if slices.Contains(inv.Args, "-test.v") {
		return nil
	}
	cpu := make([]string, len(inv.CPU))
	for i, c := range inv.CPU {
		cpu[i] = strconv.Itoa(c)
	}
	out, err := verbose(ctx, inv, strings.Join(cpu, ","))
	if err != nil {
		return nil
	}
	return ParseSkips(out)
}

// skipMessage returns what the benchmarks that called b.Skip in out said
// (see describeSkips), or "" when the output shows no skip.
func skipMessage(out string) string {
	skips := ParseSkips([]byte(out))
	if len(skips) == 0 {
		return ""
	}
	return describeSkips(skips)
}
