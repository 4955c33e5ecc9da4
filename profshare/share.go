package profshare

import (
	"fmt"
	"math"
)

// Share is Hits out of Total samples with its confidence interval.
type Share struct {
	Hits, Total int64
	Value       float64 // Hits/Total; NaN when Total is 0
	Lo, Hi      float64 // Wilson score interval; [0, 1] when Total is 0
	Confidence  float64 // the interval's level, such as 0.95
}

// NewShare returns hits out of total with its Wilson interval at the given
// confidence level. Out-of-range input (negative counts, hits > total, a
// level outside (0, 1)) is clamped: hits into [0, total], the level to 0.95.
func NewShare(hits, total int64, confidence float64) Share {
	if total < 0 {
		total = 0
	}
	hits = clampHits(hits, total)
	if !(confidence > 0 && confidence < 1) {
		confidence = 0.95
	}
	s := Share{Hits: hits, Total: total, Confidence: confidence, Value: math.NaN()}
	s.Lo, s.Hi = Wilson(hits, total, confidence)
	if total > 0 {
		s.Value = float64(hits) / float64(total)
	}
	return s
}

// Wilson returns the Wilson score interval of the proportion hits/total at
// the given two-sided confidence level:
//
//	(p + z²/2n ± z·sqrt(p(1−p)/n + z²/4n²)) / (1 + z²/n)
//
// with z the standard normal quantile of (1+confidence)/2. With total 0 the
// interval is [0, 1]: no information.
func Wilson(hits, total int64, confidence float64) (lo, hi float64) {
	if total <= 0 {
		return 0, 1
	}
	hits = clampHits(hits, total)
	n := float64(total)
	p := float64(hits) / n
	z := math.Sqrt2 * math.Erfinv(confidence)
	z2 := z * z
	den := 1 + z2/n
	mid := (p + z2/(2*n)) / den
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / den
	lo, hi = math.Max(0, mid-half), math.Min(1, mid+half)
	// Exact ends: no hit gives lo 0, all hits give hi 1.
	if hits == 0 {
		lo = 0
	}
	if hits == total {
		hi = 1
	}
	return lo, hi
}

// Diff is the difference A − B of two shares with Newcombe's hybrid score
// interval (method 10 of Newcombe, 1998), built from the two Wilson
// intervals.
type Diff struct {
	A, B   Share
	Value  float64 // A.Value − B.Value; NaN when either total is 0
	Lo, Hi float64
}

// NewDiff returns a − b with its interval. Both shares should carry the same
// confidence level; the interval inherits it.
func NewDiff(a, b Share) Diff {
	d := Diff{A: a, B: b, Value: a.Value - b.Value, Lo: -1, Hi: 1}
	if a.Total == 0 || b.Total == 0 {
		d.Value = math.NaN()
		return d
	}
	d.Lo = d.Value - math.Sqrt(sq(a.Value-a.Lo)+sq(b.Hi-b.Value))
	d.Hi = d.Value + math.Sqrt(sq(a.Hi-a.Value)+sq(b.Value-b.Lo))
	return d
}

func sq(x float64) float64 { return x * x }

// String formats the share as "0.123 [0.101, 0.148] (45/366 samples)".
func (s Share) String() string {
	if s.Total == 0 {
		return "no samples"
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g] (%d/%d samples)", s.Value, s.Lo, s.Hi, s.Hits, s.Total)
}

// clampHits puts hits into [0, total]. It is not min and max, so that Go
// 1.18 builds this package (allocscale's go1.18 config measures lock
// shares with it).
func clampHits(hits, total int64) int64 {
	if hits > total {
		hits = total
	}
	if hits < 0 {
		hits = 0
	}
	return hits
}
