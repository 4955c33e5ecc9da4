package load

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
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

// Quantiles reported by the table and the records.
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

// WriteTable prints a human-readable summary of the step: rates, the
// percentile table of latency and service time, status codes, errors and
// generator health.
func (r *Result) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	model := "closed model"
	if r.Open {
		model = fmt.Sprintf("open model at %s req/s", fmtRate(r.Rate))
	}
	fmt.Fprintf(tw, "%s for %v: %d requests scheduled, %d sent, %d responses in %v\n", model, r.Duration, r.Scheduled, r.Sent, r.Responses, r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(tw, "throughput %s req/s, goodput %s req/s, error rate %.3g%%\n\n", fmtRate(r.Throughput()), fmtRate(r.Goodput()), 100*r.ErrorRate())
	latName := "latency (from intended send)"
	if !r.Open {
		latName = "latency"
	}
	fmt.Fprintf(tw, "percentile\t%s\tservice time (from actual send)\n", latName)
	for _, q := range reportQuantiles {
		fmt.Fprintf(tw, "%s\t%v\t%v\n", q.name, fmtDur(Quantile(r.Latency, q.q)), fmtDur(Quantile(r.Service, q.q)))
	}
	fmt.Fprintf(tw, "max\t%v\t%v\n", fmtDur(maxOf(r.Latency)), fmtDur(maxOf(r.Service)))
	tw.Flush()
	codes := make([]int, 0, len(r.Status))
	for c := range r.Status {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	var parts []string
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d×%d", c, r.Status[c]))
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	fmt.Fprintf(w, "\nstatus codes: %s\n", strings.Join(parts, ", "))
	if r.Errors > 0 || r.Unsent > 0 {
		fmt.Fprintf(w, "transport errors: %d, unsent: %d", r.Errors, r.Unsent)
		if r.FirstErr != "" {
			fmt.Fprintf(w, " (first: %s)", r.FirstErr)
		}
		fmt.Fprintln(w)
	}
	h := r.Health
	fmt.Fprintf(w, "generator: %.2f of %d CPU cores", h.CPU, h.CPUs)
	if r.Open {
		fmt.Fprintf(w, ", dispatched %s req/s of %s requested, max schedule lag %v, %d late (> %v)",
			fmtRate(h.DispatchRate), fmtRate(h.RequestedRate), h.MaxLag.Round(time.Microsecond), h.Late, h.LateAfter)
	}
	fmt.Fprintf(w, ", at most %d connections busy\n", r.MaxBusy)
	if h.Limited {
		_, err := fmt.Fprintf(w, "INVALID: this step was limited by the load generator, not the target: %s\n", h.Reason)
		return err
	}
	return nil
}

func maxOf(h *hdrhistogram.Histogram) time.Duration {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	return time.Duration(h.Max())
}

func fmtDur(d time.Duration) string {
	switch {
	case d == 0:
		return "—"
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func fmtRate(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.3g", r)
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
