package allocscale

import (
	"math"
	"runtime/metrics"
)

// cpuMetrics are the runtime/metrics CPU classes the benchmark reports as
// fractions of all CPU time the runtime accounted for.
var cpuMetrics = []string{
	"/cpu/classes/total:cpu-seconds",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/scavenge/total:cpu-seconds",
}

// gcMetrics give GC pauses per cycle.
var gcMetrics = []string{
	"/gc/cycles/total:gc-cycles",
	"/sched/pauses/total/gc:seconds",
}

// Snapshot is one reading of the runtime metrics the benchmark reports.
type Snapshot struct {
	cpu []metrics.Sample
	gc  []metrics.Sample
}

// ReadSnapshot reads the metrics now.
func ReadSnapshot() Snapshot {
	s := Snapshot{cpu: make([]metrics.Sample, len(cpuMetrics)), gc: make([]metrics.Sample, len(gcMetrics))}
	for i, n := range cpuMetrics {
		s.cpu[i].Name = n
	}
	for i, n := range gcMetrics {
		s.gc[i].Name = n
	}
	metrics.Read(s.cpu)
	metrics.Read(s.gc)
	return s
}

// Deltas holds the changes between two snapshots.
type Deltas struct {
	GCCPUFraction        float64 // GC CPU / all CPU the runtime accounted for
	ScavengerCPUFraction float64 // scavenger CPU / all CPU
	CPUOK                bool    // the fractions are known: the runtime accounted some CPU time
	GCCycles             float64
	PauseSecPerCycle     float64 // total GC pause / GC cycles
	PauseOK              bool    // at least one cycle completed and pauses are known
}

// Since returns what changed from before to s.
func (s Snapshot) Since(before Snapshot) Deltas {
	var d Deltas
	total, okT := delta(before.cpu[0], s.cpu[0])
	gc, okG := delta(before.cpu[1], s.cpu[1])
	scav, okS := delta(before.cpu[2], s.cpu[2])
	if okT && okG && okS && total > 0 {
		d.GCCPUFraction, d.ScavengerCPUFraction, d.CPUOK = gc/total, scav/total, true
	}
	cycles, okC := delta(before.gc[0], s.gc[0])
	pause, okP := delta(before.gc[1], s.gc[1])
	d.GCCycles = cycles
	if okC && okP && cycles > 0 {
		d.PauseSecPerCycle, d.PauseOK = pause/cycles, true
	}
	return d
}

// delta returns after − before for a counter or the total of a histogram
// (estimated from bucket midpoints), and false for a metric the toolchain
// lacks.
func delta(before, after metrics.Sample) (float64, bool) {
	a, ok1 := value(after.Value)
	b, ok2 := value(before.Value)
	if !ok1 || !ok2 || a < b {
		return 0, false
	}
	return a - b, true
}

func value(v metrics.Value) (float64, bool) {
	switch v.Kind() {
	case metrics.KindUint64:
		return float64(v.Uint64()), true
	case metrics.KindFloat64:
		return v.Float64(), true
	case metrics.KindFloat64Histogram:
		h := v.Float64Histogram()
		var total float64
		for i, c := range h.Counts {
			lo, hi := h.Buckets[i], h.Buckets[i+1]
			switch {
			case c == 0:
			case math.IsInf(lo, 0) && math.IsInf(hi, 0):
			case math.IsInf(lo, 0):
				total += float64(c) * hi
			case math.IsInf(hi, 0):
				total += float64(c) * lo
			default:
				total += float64(c) * (lo + (hi-lo)/2)
			}
		}
		return total, true
	}
	return 0, false
}
