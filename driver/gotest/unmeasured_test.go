package gotest

import (
	"strings"
	"testing"
)

// TestUnmeasured: a result with a value that is not a number, which go
// test can print (and exit 0) when a benchmark's panic loses a race with
// the end of the run, is no measurement. The line with the iteration
// count alone that the race also prints is no result at all.
func TestUnmeasured(t *testing.T) {
	for _, tc := range []struct {
		out, want string
	}{
		{"BenchmarkPanic-2   \t       1\nPASS\n", ""},
		{"BenchmarkA-2 \t 10\t 5.0 ns/op\nBenchmarkB-2 \t 10\t NaN ns/op\n", "BenchmarkB-2 (NaN sec/op)"},
		{"BenchmarkA-2 \t 10\t 5.0 ns/op\t 3 B/op\n", ""},
		{"BenchmarkLoad-2 \t 10\t 42 req/s\n", ""},
	} {
		res, _ := Parse(strings.NewReader(tc.out), "x")
		if got := unmeasured(res); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.out, got, tc.want)
		}
	}
}
