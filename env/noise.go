package env

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// noiseIters is the fixed length of the calibration loop: about a
// millisecond on a current 3 GHz core. It never changes with the machine, so
// durations and their spread are comparable between runs.
const noiseIters = 700_000

// noiseSink keeps the calibration loop's result alive so the compiler cannot
// remove the loop.
var noiseSink uint64

// calibrate runs the fixed integer hash loop once. Each step depends on the
// previous one, so the loop measures latency of plain integer work and does
// not touch memory.
func calibrate(seed uint64) uint64 {
	x := seed | 1
	for i := uint64(0); i < noiseIters; i++ {
		x ^= x >> 33
		x *= 0xff51afd7ed558ccd
		x += i
	}
	return x
}

// NoiseResult is a machine-noise estimate from repeated runs of a fixed
// calibration loop.
type NoiseResult struct {
	N      int           // number of timed runs
	Median time.Duration // median duration of one run
	CV     float64       // coefficient of variation: sample stddev / mean
}

// Noise runs a fixed, pure-CPU calibration loop (about 1ms) n times and
// reports the coefficient of variation of its durations: a machine-noise
// estimate comparable across runs. A quiet machine gives a CV around 1%;
// a busy or frequency-scaling one gives much more. n must be at least 2.
// Noise stops early with ctx's error if ctx is cancelled.
func Noise(ctx context.Context, n int) (NoiseResult, error) {
	if n < 2 {
		return NoiseResult{}, fmt.Errorf("env: noise estimate needs at least 2 runs, got %d; pass n >= 2 (30 is a good default)", n)
	}
	if err := ctx.Err(); err != nil {
		return NoiseResult{}, fmt.Errorf("env: noise estimate cancelled: %w", err)
	}
	noiseSink += calibrate(noiseSink) // warm-up, not timed
	ds := make([]time.Duration, 0, n)
	for range n {
		if err := ctx.Err(); err != nil {
			return NoiseResult{}, fmt.Errorf("env: noise estimate cancelled after %d of %d runs: %w", len(ds), n, err)
		}
		start := time.Now()
		noiseSink += calibrate(noiseSink)
		ds = append(ds, time.Since(start))
	}
	return summarize(ds)
}

// summarize computes the median and coefficient of variation of ds.
func summarize(ds []time.Duration) (NoiseResult, error) {
	n := len(ds)
	if n < 2 {
		return NoiseResult{}, errors.New("env: noise estimate needs at least 2 durations")
	}
	var sum float64
	for _, d := range ds {
		sum += float64(d)
	}
	mean := sum / float64(n)
	var ss float64
	for _, d := range ds {
		dev := float64(d) - mean
		ss += dev * dev
	}
	sd := math.Sqrt(ss / float64(n-1))
	cv := 0.0
	if mean > 0 {
		cv = sd / mean
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	med := sorted[n/2]
	if n%2 == 0 {
		med = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	return NoiseResult{N: n, Median: med, CV: cv}, nil
}

// String formats r as, for example, "cv=1.8% (n=30, median 1.02ms)".
func (r NoiseResult) String() string {
	return fmt.Sprintf("cv=%.1f%% (n=%d, median %s)", r.CV*100, r.N, shortDuration(r.Median))
}

// shortDuration formats d with three significant digits where possible.
func shortDuration(d time.Duration) string {
	v := float64(d)
	unit := "ns"
	switch {
	case d >= time.Second:
		v, unit = v/float64(time.Second), "s"
	case d >= time.Millisecond:
		v, unit = v/float64(time.Millisecond), "ms"
	case d >= time.Microsecond:
		v, unit = v/float64(time.Microsecond), "µs"
	case d < 0:
		return d.String()
	}
	prec := 0
	switch {
	case unit == "ns":
		prec = 0
	case v < 10:
		prec = 2
	case v < 100:
		prec = 1
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + unit
}
