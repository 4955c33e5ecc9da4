package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Point is the outcome of one probe of a knee search.
type Point struct {
	Rate      float64       // requested rate
	P99       time.Duration // coordinated-omission-corrected 99th percentile latency
	ErrorRate float64       // fraction of scheduled requests that failed
	Goodput   float64       // successful responses per second
	Dispatch  float64       // requests the generator dispatched per second of schedule
	Limited   bool          // the generator, not the target, limited this probe
	Reason    string        // why it was limited
	Pass      bool          // set by the search: within the SLO and the error bound
}

// PointOf summarises a step for a knee search.
func PointOf(r *Result) Point {
	return Point{
		Rate: r.Rate, P99: Quantile(r.Latency, 0.99), ErrorRate: r.ErrorRate(), Goodput: r.Goodput(),
		Dispatch: r.Health.DispatchRate, Limited: r.Health.Limited, Reason: r.Health.Reason,
	}
}

// A Probe applies load at rate for one step and reports the outcome.
type Probe func(ctx context.Context, rate float64) (Point, error)

// Knee configures a knee search: the highest request rate whose
// coordinated-omission-corrected p99 latency stays within SLO with an
// error rate within MaxErrorRate.
type Knee struct {
	SLO          time.Duration // p99 bound; required
	MaxErrorRate float64       // default 0.01
	Start        float64       // first rate probed; required
	Growth       float64       // coarse factor between rates; default 2
	MinRate      float64       // give up below this rate; default Start/64
	MaxRate      float64       // never probe above this rate; default MaxRate
	Resolution   float64       // bisection stops when (hi−lo)/lo ≤ Resolution; default 0.05
	MaxProbes    int           // bound on probes; default 24
	// Retries is how many times a probe limited by the generator (a
	// scheduling hiccup of a busy machine) is repeated before the search
	// gives up; the repeats count against MaxProbes.
	Retries int
}

// KneeResult is the outcome of a search.
type KneeResult struct {
	Rate    float64 // highest passing rate; 0 when none passed
	Failing float64 // lowest failing rate above Rate; 0 when none failed
	// Bracketed is set when both a passing and a failing rate were found
	// and bisection narrowed them to Resolution (or ran out of probes).
	Bracketed bool
	// Limited is set when a probe was limited by the generator before the
	// knee was bracketed: Rate is then only a lower bound of the target's
	// knee and must not be reported as its result.
	Limited bool
	Reason  string
	Points  []Point // every probe, in order
}

func (k Knee) withDefaults() (Knee, error) {
	if k.SLO <= 0 {
		return k, errors.New("knee search needs a positive p99 SLO")
	}
	if k.Start <= 0 || math.IsNaN(k.Start) || math.IsInf(k.Start, 0) {
		return k, errors.New("knee search needs a positive start rate")
	}
	if k.MaxErrorRate <= 0 {
		k.MaxErrorRate = 0.01
	}
	if k.Growth <= 1 {
		k.Growth = 2
	}
	if k.MinRate <= 0 {
		k.MinRate = k.Start / 64
	}
	if k.MaxRate <= 0 || k.MaxRate > MaxRate {
		k.MaxRate = MaxRate
	}
	if k.Resolution <= 0 {
		k.Resolution = 0.05
	}
	if k.MaxProbes <= 0 {
		k.MaxProbes = 24
	}
	return k, nil
}

// Search finds the knee: coarse steps from Start (up by Growth while the
// SLO holds, or down while it does not), then bisection between the
// highest passing and lowest failing rates until they are within
// Resolution of each other. A probe limited by the generator is repeated
// up to Retries times and then ends the search with Limited set — unless
// it met the SLO anyway with at least 97% of the rate dispatched: lateness
// of the generator only adds to the measured latency, so such a probe
// passes.
func (k Knee) Search(ctx context.Context, probe Probe) (KneeResult, error) {
	k, err := k.withDefaults()
	if err != nil {
		return KneeResult{}, err
	}
	var res KneeResult
	try := func(rate float64) (pass bool, stop bool, err error) {
		for attempt := 0; ; attempt++ {
			if len(res.Points) >= k.MaxProbes {
				return false, true, nil
			}
			p, err := probe(ctx, rate)
			if err != nil {
				return false, true, fmt.Errorf("probing %.0f req/s: %w", rate, err)
			}
			p.Rate = rate
			p.Pass = p.P99 > 0 && p.P99 <= k.SLO && p.ErrorRate <= k.MaxErrorRate
			if p.Limited && p.Pass && p.Dispatch >= 0.97*rate {
				// A late generator only adds latency: a probe that met the
				// SLO anyway, at the full rate, passes.
				p.Limited = false
				p.Reason = "passed although " + p.Reason
			}
			if p.Limited {
				p.Pass = false
			}
			res.Points = append(res.Points, p)
			if !p.Limited {
				return p.Pass, false, nil
			}
			if attempt >= k.Retries {
				res.Limited = true
				res.Reason = fmt.Sprintf("at %.0f req/s: %s", rate, p.Reason)
				return false, true, nil
			}
		}
	}

	lo, hi := 0.0, 0.0
	rate := math.Min(k.Start, k.MaxRate)
	pass, stop, err := try(rate)
	if err != nil || stop {
		return res, err
	}
	if pass {
		lo = rate
		for {
			if rate >= k.MaxRate {
				res.Rate = lo
				res.Reason = fmt.Sprintf("the SLO held up to the search's maximum rate %.0f req/s", k.MaxRate)
				return res, nil
			}
			rate = math.Min(rate*k.Growth, k.MaxRate)
			pass, stop, err = try(rate)
			if err != nil || stop {
				res.Rate = lo
				return res, err
			}
			if !pass {
				hi = rate
				break
			}
			lo = rate
		}
	} else {
		hi = rate
		for {
			rate /= k.Growth
			if rate < k.MinRate {
				res.Failing = hi
				res.Reason = fmt.Sprintf("the SLO failed at every rate down to %.0f req/s", k.MinRate)
				return res, nil
			}
			pass, stop, err = try(rate)
			if err != nil || stop {
				res.Failing = hi
				return res, err
			}
			if pass {
				lo = rate
				break
			}
			hi = rate
		}
	}
	for (hi-lo)/lo > k.Resolution {
		mid := (lo + hi) / 2
		pass, stop, err = try(mid)
		if err != nil {
			res.Rate, res.Failing = lo, hi
			return res, err
		}
		if stop {
			if !res.Limited {
				res.Bracketed = true // out of probes: the bracket is still valid
			}
			break
		}
		if pass {
			lo = mid
		} else {
			hi = mid
		}
	}
	res.Rate, res.Failing = lo, hi
	if !res.Limited {
		res.Bracketed = true
	}
	return res, nil
}
