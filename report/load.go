package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/perflab/perflab/driver/load"
)

// LoadText writes one load step as perflab load prints it: the model,
// counts and rates, the percentile table of latency and service time,
// the status codes, transport errors and the generator's health, and
// INVALID with the reason when the generator, not the target, limited
// the step.
func LoadText(w io.Writer, r *load.Result) error {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', 0)
	model := "closed model"
	if r.Open {
		model = fmt.Sprintf("open model at %s req/s", loadRate(r.Rate))
	}
	fmt.Fprintf(tw, "%s for %v: %d requests scheduled, %d sent, %d responses in %v\n", model, r.Duration, r.Scheduled, r.Sent, r.Responses, r.Elapsed.Round(time.Millisecond))
	fmt.Fprintf(tw, "throughput %s req/s, goodput %s req/s, error rate %.3g%%\n\n", loadRate(r.Throughput()), loadRate(r.Goodput()), 100*r.ErrorRate())
	latName := "latency (from intended send)"
	if !r.Open {
		latName = "latency"
	}
	fmt.Fprintf(tw, "percentile\t%s\tservice time (from actual send)\n", latName)
	for _, p := range r.Percentiles() {
		fmt.Fprintf(tw, "%s\t%v\t%v\n", p.Name, loadDur(p.Latency), loadDur(p.Service))
	}
	tw.Flush()
	var parts []string
	for _, c := range r.Codes() {
		parts = append(parts, fmt.Sprintf("%d×%d", c.Code, c.N))
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
			loadRate(h.DispatchRate), loadRate(h.RequestedRate), h.MaxLag.Round(time.Microsecond), h.Late, h.LateAfter)
	}
	_, err := fmt.Fprintf(w, ", at most %d connections busy\n", r.MaxBusy)
	if h.Limited {
		_, err = fmt.Fprintf(w, "INVALID: this step was limited by the load generator, not the target: %s\n", h.Reason)
	}
	return err
}

// loadDur writes a latency at the precision its size deserves; "—" for
// none.
func loadDur(d time.Duration) string {
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

// loadRate writes a rate in requests per second: whole above 100, three
// significant digits below.
func loadRate(r float64) string {
	if r >= 100 {
		return fmt.Sprintf("%.0f", r)
	}
	return fmt.Sprintf("%.3g", r)
}
