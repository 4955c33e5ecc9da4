package allocscale

import (
	"math"
	"runtime/metrics"
)

// Window metrics: what the windows benchmark samples every windowPeriod.
const (
	scavengeCPU = "/cpu/classes/scavenge/total:cpu-seconds"
	lockWait    = "/sync/mutex/wait/total:seconds"       // sync.Mutex and, since Go 1.22, runtime-internal locks
	waitingGs   = "/sched/goroutines/waiting:goroutines" // Go 1.26 and later
	allGs       = "/sched/goroutines:goroutines"
)

// LockWaitReported says whether the runtime reports lock wait time
// (runtime/metrics' /sync/mutex/wait/total:seconds, Go 1.20 and later).
func LockWaitReported() bool {
	s := []metrics.Sample{{Name: lockWait}}
	metrics.Read(s)
	return s[0].Value.Kind() != metrics.KindBad
}

// Window is what one sampling window saw.
type Window struct {
	ScavengeSec float64 // scavenger CPU time in the window
	LockWaitSec float64 // time goroutines spent blocked on locks in the window
	// BlockRate is the share of goroutines waiting (blocked) at the end of
	// the window; NaN when the runtime does not report it.
	BlockRate float64
}

// Sampler reads the window metrics; each Sample returns the window since
// the previous one.
type Sampler struct {
	s    []metrics.Sample
	prev [2]float64
}

// NewSampler starts a sampler at the current readings.
func NewSampler() *Sampler {
	s := &Sampler{s: []metrics.Sample{{Name: scavengeCPU}, {Name: lockWait}, {Name: waitingGs}, {Name: allGs}}}
	metrics.Read(s.s)
	s.prev[0], _ = value(s.s[0].Value)
	s.prev[1], _ = value(s.s[1].Value)
	return s
}

// Sample closes the current window and opens the next.
func (s *Sampler) Sample() Window {
	metrics.Read(s.s)
	scav, _ := value(s.s[0].Value)
	wait, _ := value(s.s[1].Value)
	w := Window{ScavengeSec: scav - s.prev[0], LockWaitSec: wait - s.prev[1], BlockRate: math.NaN()}
	s.prev[0], s.prev[1] = scav, wait
	waiting, ok1 := value(s.s[2].Value)
	all, ok2 := value(s.s[3].Value)
	if ok1 && ok2 && all > 0 {
		w.BlockRate = waiting / all
	}
	return w
}

// Pearson is Pearson's correlation coefficient of x and y; NaN when fewer
// than three pairs, a NaN value, or either series is constant. The
// benchmark reports one per round; perflab summarises them across rounds
// (analysis.Options.CorrelationRounds). It is computed here, not by
// package analysis: perflab embeds this package's sources but not
// analysis's, and toolchains back to go1.18 build them (go118.mod).
func Pearson(x, y []float64) float64 {
	n := len(x)
	if len(y) < n {
		n = len(y)
	}
	if n < 3 {
		return math.NaN()
	}
	var mx, my float64
	for i := 0; i < n; i++ {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxy, sxx, syy float64
	for i := 0; i < n; i++ {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if !(sxx > 0) || !(syy > 0) {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}
