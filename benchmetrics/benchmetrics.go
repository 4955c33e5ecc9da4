// Package benchmetrics reports runtime/metrics deltas per operation from
// inside a Go benchmark.
//
// A benchmark calls Measure before its loop and the returned function after
// it:
//
//	func BenchmarkX(b *testing.B) {
//		defer benchmetrics.Measure(b)()
//		for b.Loop() {
//			...
//		}
//	}
//
// Measure works with the classic `for i := 0; i < b.N; i++` loop too: it
// resets the benchmark timer after taking its first reading, and the returned
// function stops the timer before taking its second, so neither reading is
// timed.
//
// The returned function reports these units through testing.B.ReportMetric,
// so they appear next to sec/op in `go test -bench` output and benchstat
// compares them like any other unit. Each is the change of one runtime
// metric across the benchmark loop divided by b.N:
//
//	gc-cycles/op       completed GC cycles (/gc/cycles/total:gc-cycles)
//	gc-pause-sec/op    seconds the world was stopped for the GC
//	                   (/sched/pauses/total/gc:seconds, a histogram whose
//	                   total is estimated from bucket midpoints)
//	mutex-wait-sec/op  seconds goroutines spent blocked on sync.Mutex,
//	                   sync.RWMutex or runtime locks, summed over goroutines
//	                   (/sync/mutex/wait/total:seconds, sampled by the runtime)
//	heap-objects/op    objects allocated on the heap (/gc/heap/allocs:objects)
//
// Lower is better for all of them; Units lists them with that metadata.
// Nothing is reported when b.N is 0 (the loop did not finish), and a metric
// the running toolchain does not support is skipped silently.
package benchmetrics

import (
	"math"
	"runtime/metrics"
	"testing"
)

// Units lists the units Measure reports with their benchfmt unit metadata:
// Better is the value of the "better" key, "lower" for all of them.
var Units = []struct{ Unit, Better string }{
	{"gc-cycles/op", "lower"},
	{"gc-pause-sec/op", "lower"},
	{"mutex-wait-sec/op", "lower"},
	{"heap-objects/op", "lower"},
}

// metricNames are the runtime/metrics names behind Units, index for index.
var metricNames = [...]string{
	"/gc/cycles/total:gc-cycles",
	"/sched/pauses/total/gc:seconds",
	"/sync/mutex/wait/total:seconds",
	"/gc/heap/allocs:objects",
}

// meter holds one reading of all metrics before the loop and one after.
type meter struct {
	before, after []metrics.Sample
}

func newMeter() *meter {
	m := &meter{
		before: make([]metrics.Sample, len(metricNames)),
		after:  make([]metrics.Sample, len(metricNames)),
	}
	for i, name := range metricNames {
		m.before[i].Name = name
		m.after[i].Name = name
	}
	return m
}

// Measure starts tracking runtime/metrics and returns a func that, called
// after the benchmark loop, reports the per-op deltas with b.ReportMetric.
// Typical use:
//
//	defer benchmetrics.Measure(b)()
//	for b.Loop() { ... }
//
// It is also correct with the classic `for i := 0; i < b.N; i++` loop: it
// calls b.ResetTimer after its first reading, and the returned function calls
// b.StopTimer before its second. See the package documentation for the
// units.
func Measure(b *testing.B) func() {
	m := newMeter()
	metrics.Read(m.before)
	b.ResetTimer()
	return func() {
		b.StopTimer()
		metrics.Read(m.after)
		m.report(b.N, b.ReportMetric)
	}
}

// report calls emit with the per-op delta of every supported metric.
func (m *meter) report(n int, emit func(value float64, unit string)) {
	if n <= 0 {
		return
	}
	for i := range metricNames {
		v0, ok0 := sampleValue(m.before[i].Value)
		v1, ok1 := sampleValue(m.after[i].Value)
		if !ok0 || !ok1 {
			continue
		}
		d := v1 - v0
		if d < 0 || math.IsNaN(d) || math.IsInf(d, 0) {
			// Counters never go down; a negative delta means a
			// histogram estimate shifted. Report no change.
			d = 0
		}
		emit(d/float64(n), Units[i].Unit)
	}
}

// sampleValue converts one runtime/metrics value to a float64 total. It
// reports false for KindBad (a metric the toolchain does not have).
func sampleValue(v metrics.Value) (float64, bool) {
	switch v.Kind() {
	case metrics.KindUint64:
		return float64(v.Uint64()), true
	case metrics.KindFloat64:
		return v.Float64(), true
	case metrics.KindFloat64Histogram:
		return histogramTotal(v.Float64Histogram()), true
	default:
		return 0, false
	}
}

// histogramTotal estimates the sum of all values recorded in h as
// Σ count × bucket midpoint. A bucket with an infinite edge uses its finite
// edge instead; a bucket with no finite edge counts as zero.
func histogramTotal(h *metrics.Float64Histogram) float64 {
	if h == nil || len(h.Buckets) != len(h.Counts)+1 {
		return 0
	}
	var total float64
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		lo, hi := h.Buckets[i], h.Buckets[i+1]
		var mid float64
		switch loInf, hiInf := math.IsInf(lo, 0), math.IsInf(hi, 0); {
		case loInf && hiInf:
			continue
		case loInf:
			mid = hi
		case hiInf:
			mid = lo
		default:
			mid = lo + (hi-lo)/2
		}
		total += float64(c) * mid
	}
	return total
}
