package gateway

import (
	"slices"
	"strconv"
	"testing"
)

// The spec's one axis, sweep, is what each benchmark varies: the route
// count (BenchmarkRoute), the percentage of writes (BenchmarkMap) or the
// requests in flight (BenchmarkLeak). BenchmarkContext and BenchmarkLog
// vary nothing and run at sweep=0. A benchmark skips the values that
// belong to another.
var (
	sweepValues  = []float64{0, 0.1, 0.2, 0.5, 1, 2, 5, 10, 25, 50, 100, 300, 1000, 3000, MaxRoutes}
	routeCounts  = []float64{100, 300, 1000, 3000, MaxRoutes}
	writePcts    = []float64{0, 0.1, 0.2, 0.5, 1, 2, 5, 10, 25, 50, 100}
	concurrences = []float64{100, 300, 1000}
	procsValues  = []int{1, 2, 4, 8, 16, 32, 64}
)

// seed is the seed of every generated table and request mix.
const seed = 1

// sweep runs f for each sweep value that is in mine, and skips the others
// with a message that names the benchmark's own values.
func sweep(b *testing.B, mine []float64, what string, f func(b *testing.B, v float64)) {
	for _, v := range sweepValues {
		name := strconv.FormatFloat(v, 'f', -1, 64)
		b.Run("sweep="+name, func(b *testing.B) {
			if !slices.Contains(mine, v) {
				b.Skipf("this benchmark sweeps %s over %v; sweep=%s is another benchmark's value", what, mine, name)
			}
			f(b, v)
		})
	}
}
