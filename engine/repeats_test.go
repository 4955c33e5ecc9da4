package engine

import (
	"math"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/analysis"
)

func parseResults(t *testing.T, text string) []*benchfmt.Result {
	t.Helper()
	var out []*benchfmt.Result
	r := benchfmt.NewReader(strings.NewReader(text), "repeats")
	for r.Scan() {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			out = append(out, res.Clone())
		}
	}
	return out
}

func TestCombineRepeats(t *testing.T) {
	for _, tt := range []struct {
		name  string
		text  string
		k     int
		noEst bool // no repetition statistic given
		ok    bool
		iters int
		ns    float64 // combined sec/op in ns
		bytes float64
	}{
		{"one spoiled repetition of five", `BenchmarkW/v=a 100 200 ns/op 8 B/op
BenchmarkW/v=a 100 201 ns/op 8 B/op
BenchmarkW/v=a 100 900 ns/op 8 B/op
BenchmarkW/v=a 100 199 ns/op 8 B/op
BenchmarkW/v=a 100 202 ns/op 16 B/op
`, 5, false, true, 500, 201, 8},
		{"one repetition is the result itself", "BenchmarkW/v=a 100 250 ns/op\n", 1, false, true, 100, 250, math.NaN()},
		{"one repetition needs no statistic", "BenchmarkW/v=a 100 250 ns/op\n", 1, true, true, 100, 250, math.NaN()},
		{"several repetitions need a statistic", "BenchmarkW/v=a 100 250 ns/op\nBenchmarkW/v=a 100 260 ns/op\n", 2, true, false, 0, 0, 0},
		{"fewer results than repetitions", "BenchmarkW/v=a 100 250 ns/op\nBenchmarkW/v=a 100 260 ns/op\n", 3, false, false, 0, 0, 0},
		{"two benchmarks", "BenchmarkW/v=a 100 250 ns/op\nBenchmarkW/v=b 100 260 ns/op\n", 2, false, false, 0, 0, 0},
		{"different iteration counts", "BenchmarkW/v=a 100 250 ns/op\nBenchmarkW/v=a 50 260 ns/op\n", 2, false, false, 0, 0, 0},
		{"a unit missing from one repetition", "BenchmarkW/v=a 100 250 ns/op 8 B/op\nBenchmarkW/v=a 100 260 ns/op\n", 2, false, false, 0, 0, 0},
		{"units that differ", "BenchmarkW/v=a 100 250 ns/op 8 B/op\nBenchmarkW/v=a 100 260 ns/op 1 allocs/op\n", 2, false, false, 0, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			est := analysis.RepeatEstimate
			if tt.noEst {
				est = nil
			}
			got, ok := combineRepeats(parseResults(t, tt.text), tt.k, est)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if !ok {
				return
			}
			if got.Iters != tt.iters {
				t.Errorf("Iters = %d, want %d", got.Iters, tt.iters)
			}
			if v, _ := got.Value("sec/op"); math.Abs(v*1e9-tt.ns) > 1e-6 {
				t.Errorf("sec/op = %gns, want %gns (the median of the repetitions)", v*1e9, tt.ns)
			}
			if v, has := got.Value("B/op"); has && v != tt.bytes {
				t.Errorf("B/op = %g, want %g", v, tt.bytes)
			}
		})
	}
}

func TestRepeatsFor(t *testing.T) {
	with := &rounds{opt: Options{Repeat: analysis.RepeatEstimate}}
	for _, tt := range []struct{ n, want int }{
		{1, 1}, {repeats*minRepeatIters - 1, 1}, {repeats * minRepeatIters, repeats}, {1_000_000, repeats},
	} {
		if got := with.repeatsFor(tt.n); got != tt.want {
			t.Errorf("repeatsFor(%d) = %d, want %d", tt.n, got, tt.want)
		}
	}
	// Without a statistic to combine them, a process runs one repetition.
	if got := new(rounds).repeatsFor(1_000_000); got != 1 {
		t.Errorf("repeatsFor without Options.Repeat = %d, want 1", got)
	}
}
