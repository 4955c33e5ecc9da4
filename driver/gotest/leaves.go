package gotest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Leaves runs inv.Binary once over inv.Bench, one iteration per benchmark
// at GOMAXPROCS 1 with -test.v, and returns the full names of the leaf
// benchmarks that ran and of those that skipped themselves (b.Skip), as go
// test prints them ("BenchmarkEncode/size=64"). inv.Benchtime and inv.CPU
// are ignored.
func Leaves(ctx context.Context, inv Invocation) (ran, skipped []string, err error) {
	args := []string{"-test.run=^$", "-test.bench=" + inv.Bench, "-test.count=1", "-test.benchtime=1x", "-test.cpu=1", "-test.v"}
	out, err := runCaptured(ctx, inv, args)
	if err != nil {
		return nil, nil, err
	}
	res, _ := Parse(bytes.NewReader(out), "list")
	seen := map[string]bool{}
	for _, r := range res {
		n := "Benchmark" + string(r.Name.Full())
		if !seen[n] {
			seen[n] = true
			ran = append(ran, n)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "--- SKIP: "); ok && strings.HasPrefix(n, "Benchmark") {
			n = strings.Fields(n)[0]
			if !seen[n] {
				seen[n] = true
				skipped = append(skipped, n)
			}
		}
	}
	return ran, skipped, nil
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
