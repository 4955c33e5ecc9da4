package report_test

import (
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/perflab/perflab/driver/load"
	"github.com/perflab/perflab/report"
)

// loadSteps are load steps as driver/load returns them: an open-model
// step with an error status, transport errors and a limited generator,
// and a closed-model step with no responses.
func loadSteps(t *testing.T) map[string]*load.Result {
	t.Helper()
	hist := func(vals ...time.Duration) *hdrhistogram.Histogram {
		h := hdrhistogram.New(1_000, 60_000_000_000, 3)
		for _, v := range vals {
			if err := h.RecordValue(int64(v)); err != nil {
				t.Fatal(err)
			}
		}
		return h
	}
	var lat, svc []time.Duration
	for i := range 1000 {
		lat = append(lat, time.Duration(200+i)*time.Microsecond)
		svc = append(svc, time.Duration(150+i/2)*time.Microsecond)
	}
	lat = append(lat, 1500*time.Millisecond)
	return map[string]*load.Result{
		"open": {
			Open: true, Rate: 1000, Duration: time.Second, Elapsed: 1203 * time.Millisecond,
			Scheduled: 1001, Sent: 1001, Responses: 999, Status: map[int]int64{404: 9, 200: 990},
			Errors: 2, FirstErr: "read: connection reset by peer", MaxBusy: 7,
			Latency: hist(lat...), Service: hist(svc...),
			Health: load.Health{RequestedRate: 1000, DispatchRate: 998.6, MaxLag: 3210 * time.Microsecond, Late: 40, LateAfter: time.Millisecond,
				CPU: 0.42, CPUs: 4, Limited: true, Reason: "the generator dispatched 4.0% of requests more than 1ms behind schedule (max lag 3.21ms)"},
		},
		"closed": {
			Duration: 2 * time.Second, Elapsed: 2 * time.Second, Scheduled: 16, Unsent: 16, MaxBusy: 16,
			Latency: hist(), Service: hist(), Health: load.Health{CPU: 0.05, CPUs: 8},
		},
	}
}

// TestLoadText: perflab load's table, as it prints it.
func TestLoadText(t *testing.T) {
	want := map[string]string{
		"open": `open model at 1000 req/s for 1s: 1001 requests scheduled, 1001 sent, 999 responses in 1.203s
throughput 830 req/s, goodput 823 req/s, error rate 1.1%

percentile  latency (from intended send)  service time (from actual send)
p50         700µs                         399µs
p90         1.1ms                         599µs
p99         1.19ms                        644µs
p99.9       1.2ms                         649µs
max         1.501s                        649µs

status codes: 200×990, 404×9
transport errors: 2, unsent: 0 (first: read: connection reset by peer)
generator: 0.42 of 4 CPU cores, dispatched 999 req/s of 1000 requested, max schedule lag 3.21ms, 40 late (> 1ms), at most 7 connections busy
INVALID: this step was limited by the load generator, not the target: the generator dispatched 4.0% of requests more than 1ms behind schedule (max lag 3.21ms)
`,
		"closed": `closed model for 2s: 16 requests scheduled, 0 sent, 0 responses in 2s
throughput 0 req/s, goodput 0 req/s, error rate 100%

percentile  latency  service time (from actual send)
p50         —        —
p90         —        —
p99         —        —
p99.9       —        —
max         —        —

status codes: none
transport errors: 0, unsent: 16
generator: 0.05 of 8 CPU cores, at most 16 connections busy
`,
	}
	for name, r := range loadSteps(t) {
		var b strings.Builder
		if err := report.LoadText(&b, r); err != nil {
			t.Fatal(err)
		}
		if b.String() != want[name] {
			t.Errorf("%s step:\n%s\nwant:\n%s", name, b.String(), want[name])
		}
	}
}
