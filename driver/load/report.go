package load

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/perf/benchfmt"
)

// OK reports whether status counts as a successful response (2xx or 3xx).
func OK(status int) bool { return status >= 200 && status < 400 }

// Good is the number of successful (2xx or 3xx) responses.
func (r *Result) Good() int64 {
	var n int64
	for code, c := range r.Status {
		if OK(code) {
			n += c
		}
	}
	return n
}

// ErrorRate is the fraction of scheduled requests that did not end in a
// successful response: transport errors, unsent requests and error
// statuses alike.
func (r *Result) ErrorRate() float64 {
	if r.Scheduled <= 0 {
		return 0
	}
	bad := r.Scheduled - r.Good()
	if bad < 0 {
		bad = 0
	}
	return float64(bad) / float64(r.Scheduled)
}

// Throughput is responses of any status per second of elapsed time.
func (r *Result) Throughput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Responses) / r.Elapsed.Seconds()
}

// Goodput is successful responses per second of elapsed time.
func (r *Result) Goodput() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Good()) / r.Elapsed.Seconds()
}

// Quantile returns the latency at quantile q (0..1) of h, a histogram in
// nanoseconds, as a duration; 0 when h is empty.
func Quantile(h *hdrhistogram.Histogram, q float64) time.Duration {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.ValueAtQuantile(q * 100))
}

// Quantiles reported by Percentiles and the records.
var reportQuantiles = []struct {
	q    float64
	name string
}{
	{0.50, "p50"}, {0.90, "p90"}, {0.99, "p99"}, {0.999, "p99.9"},
}

// Values returns the step's figures as benchmark values: req/s (all
// responses), good-req/s (2xx and 3xx), errors/op (error fraction of
// scheduled requests), p50-sec, p90-sec, p99-sec and p999-sec of latency
// (coordinated-omission-corrected in the open model) and svc-p99-sec (the
// service time's 99th percentile).
func (r *Result) Values() []benchfmt.Value {
	v := []benchfmt.Value{
		{Value: r.Throughput(), Unit: "req/s"},
		{Value: r.Goodput(), Unit: "good-req/s"},
		{Value: r.ErrorRate(), Unit: "errors/op"},
	}
	if r.Latency != nil && r.Latency.TotalCount() > 0 {
		for _, q := range reportQuantiles {
			unit := strings.ReplaceAll(q.name, ".", "") + "-sec"
			v = append(v, benchfmt.Value{Value: Quantile(r.Latency, q.q).Seconds(), Unit: unit})
		}
		v = append(v, benchfmt.Value{Value: Quantile(r.Service, 0.99).Seconds(), Unit: "svc-p99-sec"})
	}
	return v
}

// Record returns the step as one Go benchmark record named name (which
// must start with "Benchmark"), with Iters the number of responses. The
// caller must not record a step whose Health is Limited as the target's
// result.
func (r *Result) Record(name string, config ...benchfmt.Config) *benchfmt.Result {
	return &benchfmt.Result{
		Config: config,
		Name:   benchfmt.Name(name),
		Iters:  int(max(r.Responses, 1)),
		Values: r.Values(),
	}
}

// UnitMetadata lists which way is better for the units Values reports.
func UnitMetadata() []benchfmt.UnitMetadata {
	var m []benchfmt.UnitMetadata
	for _, u := range []struct{ unit, better string }{
		{"req/s", "higher"}, {"good-req/s", "higher"}, {"errors/op", "lower"},
		{"p50-sec", "lower"}, {"p90-sec", "lower"}, {"p99-sec", "lower"}, {"p999-sec", "lower"}, {"svc-p99-sec", "lower"},
	} {
		m = append(m, benchfmt.UnitMetadata{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u.unit, Key: "better"}, Value: u.better})
	}
	return m
}

// Percentile is the latency and the service time at one quantile of a
// step, or at its maximum.
type Percentile struct {
	Name             string // "p50", "p90", "p99", "p99.9" or "max"
	Latency, Service time.Duration
}

// Percentiles gives the step's latency and service time at p50, p90, p99
// and p99.9, then their maxima; 0 where a histogram is empty.
func (r *Result) Percentiles() []Percentile {
	out := make([]Percentile, 0, len(reportQuantiles)+1)
	for _, q := range reportQuantiles {
		out = append(out, Percentile{q.name, Quantile(r.Latency, q.q), Quantile(r.Service, q.q)})
	}
	return append(out, Percentile{"max", maxOf(r.Latency), maxOf(r.Service)})
}

// StatusCount is how many responses carried one status code.
type StatusCount struct {
	Code int
	N    int64
}

// Codes lists the step's responses per status code, by code.
func (r *Result) Codes() []StatusCount {
	out := make([]StatusCount, 0, len(r.Status))
	for c, n := range r.Status {
		out = append(out, StatusCount{c, n})
	}
	slices.SortFunc(out, func(a, b StatusCount) int { return a.Code - b.Code })
	return out
}

func maxOf(h *hdrhistogram.Histogram) time.Duration {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.Max())
}

// WriteHDRLog writes the step's latency and service-time histograms to w
// in the HdrHistogram log format (values in nanoseconds), tagged
// "<tag>latency" and "<tag>service", so HdrHistogram's tools can plot them.
func (r *Result) WriteHDRLog(w io.Writer, tag string) error {
	lw := hdrhistogram.NewHistogramLogWriter(w)
	if err := lw.OutputLogFormatVersion(); err != nil {
		return err
	}
	if err := lw.OutputComment("perflab load step; values in nanoseconds"); err != nil {
		return err
	}
	if err := lw.OutputLegend(); err != nil {
		return err
	}
	for _, h := range []struct {
		name string
		h    *hdrhistogram.Histogram
	}{{"latency", r.Latency}, {"service", r.Service}} {
		if h.h == nil {
			continue
		}
		c := h.h.Clone()
		c.SetTag(tag + h.name)
		c.SetStartTimeMs(0)
		c.SetEndTimeMs(r.Elapsed.Milliseconds())
		if err := lw.OutputIntervalHistogram(c); err != nil {
			return fmt.Errorf("writing the %s histogram: %w", h.name, err)
		}
	}
	return nil
}
