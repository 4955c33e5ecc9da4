package gotest

import (
	"context"
	"testing"
	"time"
)

func TestCPUPerOp(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		cpu       time.Duration
		n         int
		base      time.Duration
		m         int
		want      float64
		wantValid bool
	}{
		{"difference of two counts", 110 * ms, 1002, 10 * ms, 2, 100e-3 / 1000, true},
		{"baseline not smaller", 10 * ms, 2, 10 * ms, 2, 0, false},
		{"no CPU above the baseline", 9 * ms, 1000, 10 * ms, 2, 0, false},
	}
	for _, tc := range tests {
		got, ok := CPUPerOp(tc.cpu, tc.n, tc.base, tc.m)
		if ok != tc.wantValid || (ok && (got < tc.want*0.999 || got > tc.want*1.001)) {
			t.Errorf("%s: CPUPerOp = %g, %v; want %g, %v", tc.name, got, ok, tc.want, tc.wantValid)
		}
	}
}

// TestRunUsage runs a real benchmark at two fixed iteration counts and
// derives its CPU time per op from the processes' rusage. The long run
// times ~0.3 s of loop, so the process start-up's CPU variance (a few
// milliseconds) cannot dominate the difference.
func TestRunUsage(t *testing.T) {
	tb := tinyBinary(t)
	run := func(bt string) (Usage, float64) {
		var u Usage
		res, err := Run(context.Background(), Invocation{Binary: tb.bin, Dir: tb.dir, Bench: "^BenchmarkTiny$/^n=10$", Benchtime: bt, Usage: &u})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != 1 {
			t.Fatalf("got %d results, want 1", len(res))
		}
		ns, _ := res[0].Value("sec/op")
		return u, ns
	}
	base, _ := run("2x")
	long, secPerOp := run("60000000x")
	if base.CPU <= 0 || base.Wall <= 0 || long.CPU <= base.CPU {
		t.Fatalf("usage at 2x %+v and at 60000000x %+v: want positive CPU and wall, more CPU for more iterations", base, long)
	}
	perOp, ok := CPUPerOp(long.CPU, 60000000, base.CPU, 2)
	if !ok {
		t.Fatal("CPUPerOp found no CPU time above the baseline")
	}
	// The loop runs on one thread and allocates nothing, so its CPU time
	// cannot exceed its wall time (a neighbour only ever adds wall time);
	// the slack covers the two processes' start-up noise in the difference.
	if perOp > secPerOp*1.5 {
		t.Errorf("cpu-sec/op %.3g above sec/op %.3g: a one-thread loop's CPU time exceeds its wall time", perOp, secPerOp)
	}
}
