package gotest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Listing is what one pass of a test binary over a selection ran, and
// what skipped itself.
type Listing struct {
	Ran     []string // full names of the leaf benchmarks that printed a result, each once, in order
	Skipped []Skip   // benchmarks that skipped themselves and printed no result, each once, in order
}

// ListLeaves runs inv.Binary once over inv.Bench, one iteration per
// benchmark at GOMAXPROCS 1 with -test.v, and returns the full names of
// the leaf benchmarks that ran, as go test prints them
// ("BenchmarkEncode/size=64", with no -N suffix since GOMAXPROCS is 1),
// and those that skipped themselves with their messages. inv.Benchtime
// and inv.CPU are ignored. A run that fails is a *[RunError].
func ListLeaves(ctx context.Context, inv Invocation) (*Listing, error) {
	out, err := verbose(ctx, inv, "1")
	if err != nil {
		return nil, err
	}
	l := &Listing{}
	res, _ := Parse(bytes.NewReader(out), "list") // the bare name lines of -test.v are not results
	seen := map[string]bool{}
	for _, r := range res {
		n := "Benchmark" + string(r.Name.Full())
		if !seen[n] {
			seen[n] = true
			l.Ran = append(l.Ran, n)
		}
	}
	for _, s := range ParseSkips(out) {
		if strings.HasPrefix(s.Name, "Benchmark") && !seen[s.Name] {
			seen[s.Name] = true
			l.Skipped = append(l.Skipped, s)
		}
	}
	return l, nil
}

// Leaves is [ListLeaves] with the skipped benchmarks' names alone.
func Leaves(ctx context.Context, inv Invocation) (ran, skipped []string, err error) {
	l, err := ListLeaves(ctx, inv)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range l.Skipped {
		skipped = append(skipped, s.Name)
	}
	return l.Ran, skipped, nil
}

// verbose runs inv.Binary over inv.Bench for one iteration per benchmark
// with -test.v at the -test.cpu list cpu ("" leaves it out) and returns
// its standard output.
func verbose(ctx context.Context, inv Invocation, cpu string) ([]byte, error) {
	if inv.Bench == "" {
		return nil, errors.New("gotest: Invocation.Bench is empty; set it to a -test.bench regex")
	}
	args := []string{"-test.run=^$", "-test.bench=" + inv.Bench, "-test.count=1", "-test.benchtime=1x"}
	if cpu != "" {
		args = append(args, "-test.cpu="+cpu)
	}
	return runCaptured(ctx, inv, append(args, "-test.v"))
}

// ListBenchmarks returns the top-level benchmark names the binary holds
// (-test.list), without running any.
func ListBenchmarks(ctx context.Context, inv Invocation) ([]string, error) {
	out, err := runCaptured(ctx, inv, []string{"-test.list=^Benchmark"})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Benchmark") {
			names = append(names, l)
		}
	}
	return names, nil
}

// runCaptured runs the binary with args in its own process group and
// returns its standard output; a failure carries the output's tail.
func runCaptured(ctx context.Context, inv Invocation, args []string) ([]byte, error) {
	if inv.Binary == "" {
		return nil, errors.New("gotest: Invocation.Binary is empty; pass the path Compile returned")
	}
	if inv.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, inv.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, inv.Binary, append(args, inv.Args...)...)
	cmd.Dir = inv.Dir
	cmd.Env = append(os.Environ(), inv.Env...)
	isolate(cmd)
	cmd.WaitDelay = killGrace
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	_ = killGroup(cmd)
	if err != nil {
		tail := stdout.String() + stderr.String()
		if lines := strings.Split(strings.TrimRight(tail, "\n"), "\n"); len(lines) > 20 {
			tail = strings.Join(lines[len(lines)-20:], "\n")
		}
		return nil, &RunError{Reason: fmt.Sprintf("benchmark binary %s %s failed after %s: %v", inv.Binary, strings.Join(args, " "), time.Since(start).Round(time.Millisecond), err), Tail: tail}
	}
	return stdout.Bytes(), nil
}
