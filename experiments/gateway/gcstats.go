package gateway

import (
	"math"
	"runtime/metrics"
)

// gcMetrics are the runtime/metrics GCCost reads.
var gcMetrics = []string{"/sched/pauses/total/gc:seconds", "/gc/cycles/total:gc-cycles"}

// GCCost runs f n times and returns the stop-the-world GC pause per call
// in nanoseconds (the pause histogram's total, estimated from bucket
// midpoints) and the GC cycles per call, from runtime/metrics. A fixed n
// makes the figure independent of how long a benchmark ran.
func GCCost(n int, f func()) (pauseNs, cycles float64) {
	before := make([]metrics.Sample, len(gcMetrics))
	after := make([]metrics.Sample, len(gcMetrics))
	for i, name := range gcMetrics {
		before[i].Name, after[i].Name = name, name
	}
	metrics.Read(before)
	for range n {
		f()
	}
	metrics.Read(after)
	pause := histTotal(after[0].Value) - histTotal(before[0].Value)
	var c float64
	if after[1].Value.Kind() == metrics.KindUint64 {
		c = float64(after[1].Value.Uint64() - before[1].Value.Uint64())
	}
	return math.Max(pause, 0) * 1e9 / float64(n), c / float64(n)
}

func histTotal(v metrics.Value) float64 {
	if v.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	h := v.Float64Histogram()
	var total float64
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		switch {
		case math.IsInf(lo, 0) && math.IsInf(hi, 0):
			continue
		case math.IsInf(lo, 0):
			total += float64(c) * hi
		case math.IsInf(hi, 0):
			total += float64(c) * lo
		default:
			total += float64(c) * (lo + hi) / 2
		}
	}
	return total
}
