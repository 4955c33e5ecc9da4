package engine

import (
	"context"
	"errors"
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/driver/gotest"
)

// CPU time per op (cpu-sec/op).
//
// A run deciding on cpu-sec/op builds its test binaries with the CPU timer
// (gotest.Build.CPUTime): the testing package, patched at build time,
// accumulates the process's CPU time while the benchmark timer runs and
// reports it beside ns/op. So the unit is the CPU time of the timed loop
// only, read inside the process: no start-up, no test framework, no exit,
// and no second process to subtract. When the toolchain's testing package
// cannot be patched, the build says why and falls back to the older
// estimate, the difference of the N-iteration process's CPU time and that
// of a 2-iteration process of the same cell (baselineOf).

// compile builds one config's binary; a run deciding on cpu-sec/op builds
// it with the CPU timer, or says why it cannot and builds it without.
func compile(ctx context.Context, opt Options, config string, b gotest.Build, progress io.Writer) (string, bool, error) {
	if opt.Unit != UnitCPU {
		return gotest.Compile(ctx, b)
	}
	b.CPUTime = true
	bin, cached, err := gotest.Compile(ctx, b)
	if !errors.Is(err, gotest.ErrNoCPUTime) {
		return bin, cached, err
	}
	fmt.Fprintf(progress, "perflab: config %s: %v\nperflab: config %s: %s falls back to the difference of two processes' CPU time (N iterations less %d)\n",
		config, err, config, UnitCPU, baselineIters)
	b.CPUTime = false
	return gotest.Compile(ctx, b)
}

// cpuInside reports whether a result carries cpu-sec/op measured inside
// its process (the CPU timer's, or the benchmark's own), so later
// processes of its cell need no baseline process.
func cpuInside(r *benchfmt.Result) bool {
	_, ok := r.Value(UnitCPU)
	return ok
}
