package allocscale

import (
	"math"
	"math/bits"
	"time"
)

// subBuckets is the number of buckets per power of two of nanoseconds: a
// bucket is at most 1/8 of its lower bound wide.
const subBuckets = 8

// numBuckets covers every non-negative int64 nanosecond count.
const numBuckets = (63-2)*subBuckets + subBuckets

// Histogram counts durations in log-linear buckets: below 8 ns one bucket
// per nanosecond, above it each power of two split in 8 equal parts. The
// zero value is empty and ready to use; it is not safe for concurrent use.
type Histogram struct {
	counts [numBuckets]uint64
	n      uint64
}

// bucket returns the index of the bucket holding ns.
func bucket(ns uint64) int {
	if ns < subBuckets {
		return int(ns)
	}
	exp := bits.Len64(ns) - 1            // ns is in [2^exp, 2^(exp+1)), exp >= 3
	mant := int(ns >> uint(exp-3))       // in [8, 16)
	return (exp-2)*subBuckets + mant - 8 // exp 3 → 8..15, exp 4 → 16..23, …
}

// lowerBound is the smallest duration in bucket i, in nanoseconds.
func lowerBound(i int) uint64 {
	if i < subBuckets {
		return uint64(i)
	}
	exp := i/subBuckets + 2
	mant := uint64(i%subBuckets + 8)
	return mant << uint(exp-3)
}

// Record adds one duration; a negative duration counts as zero.
func (h *Histogram) Record(d time.Duration) {
	var ns uint64
	if d > 0 {
		ns = uint64(d)
	}
	h.counts[bucket(ns)]++
	h.n++
}

// Merge adds the counts of o to h.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
}

// Count returns the number of recorded durations.
func (h *Histogram) Count() uint64 { return h.n }

// Quantile returns the q-quantile (0 < q <= 1) of the recorded durations,
// the middle of the bucket holding the ceil(q·n)-th smallest one, and
// false when nothing was recorded or q is out of range.
func (h *Histogram) Quantile(q float64) (time.Duration, bool) {
	if h.n == 0 || !(q > 0 && q <= 1) {
		return 0, false
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen < rank {
			continue
		}
		lo := lowerBound(i)
		if i+1 >= numBuckets {
			return time.Duration(lo), true
		}
		return time.Duration(lo + (lowerBound(i+1)-lo)/2), true
	}
	return 0, false
}
