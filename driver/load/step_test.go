package load

import (
	"bytes"
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// localTarget starts h on a loopback port (httptest binds 127.0.0.1) and
// resolves it.
func localTarget(t *testing.T, h http.Handler) *Target {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	u, err := ParseURL(srv.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Resolve(context.Background(), u, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// countAbove is the number of recorded values above v.
func countAbove(h *hdrhistogram.Histogram, v time.Duration) int64 {
	var n int64
	for _, bar := range h.Distribution() {
		if bar.From > int64(v) {
			n += bar.Count
		}
	}
	return n
}

// TestCoordinatedOmission: a server that stalls once for 300 ms while the
// generator holds a single connection. Every request due during the stall
// waits behind it; measured from its intended time its latency includes
// that wait, while its service time (from the actual send) does not.
func TestCoordinatedOmission(t *testing.T) {
	const stall = 300 * time.Millisecond
	var n atomic.Int64
	tg := localTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 100 {
			time.Sleep(stall)
		}
		w.Write([]byte("ok"))
	}))
	res, err := Run(context.Background(), Step{Target: tg, Rate: 500, Duration: time.Second, Conns: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Good() < 450 {
		t.Fatalf("only %d good responses of %d scheduled", res.Good(), res.Scheduled)
	}
	// At 500 req/s, about 150 requests are due during the stall; all of
	// them queue behind it.
	late, slow := countAbove(res.Latency, 100*time.Millisecond), countAbove(res.Service, 100*time.Millisecond)
	t.Logf("latency: p50 %v p99 %v max %v, %d above 100ms; service: p50 %v p99 %v max %v, %d above 100ms",
		Quantile(res.Latency, 0.5), Quantile(res.Latency, 0.99), maxOf(res.Latency), late,
		Quantile(res.Service, 0.5), Quantile(res.Service, 0.99), maxOf(res.Service), slow)
	if late < 50 {
		t.Errorf("%d requests with latency above 100ms; the stall must show in every request due during it (about 100 of them)", late)
	}
	if maxOf(res.Latency) < stall-20*time.Millisecond {
		t.Errorf("max latency %v; it must include the whole %v stall", maxOf(res.Latency), stall)
	}
	if slow > 10 {
		t.Errorf("%d requests with service time above 100ms; only the stalled request itself was slow to serve", slow)
	}
	if maxOf(res.Service) < stall-20*time.Millisecond {
		t.Errorf("max service time %v; the stalled request took %v", maxOf(res.Service), stall)
	}
}

// TestMerge: per-worker histograms merge into the histogram of all values.
func TestMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	all := NewHistogram()
	var parts []*hdrhistogram.Histogram
	for w := 0; w < 8; w++ {
		h := NewHistogram()
		for i := 0; i < 1000+w*100; i++ {
			d := time.Duration(r.ExpFloat64()*float64(200*time.Microsecond)) * time.Duration(1+w)
			record(h, d)
			record(all, d)
		}
		parts = append(parts, h)
	}
	parts = append(parts, nil) // an unused worker
	m := Merge(parts...)
	if m.TotalCount() != all.TotalCount() || m.Max() != all.Max() || m.Min() != all.Min() {
		t.Fatalf("merged count/min/max %d/%d/%d, want %d/%d/%d", m.TotalCount(), m.Min(), m.Max(), all.TotalCount(), all.Min(), all.Max())
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		if a, b := Quantile(m, q), Quantile(all, q); a != b {
			t.Errorf("q%g merged %v, want %v", q, a, b)
		}
	}
	// Merging does not change the inputs.
	if parts[0].TotalCount() != 1000 {
		t.Errorf("input histogram changed: %d values", parts[0].TotalCount())
	}
}

func TestRecordClamps(t *testing.T) {
	h := NewHistogram()
	record(h, -time.Second)
	record(h, time.Hour)
	if h.TotalCount() != 2 || Quantile(h, 0) > time.Microsecond+time.Microsecond/100 || maxOf(h) < 59*time.Second {
		t.Fatalf("clamped values: count %d, min %v, max %v", h.TotalCount(), Quantile(h, 0), maxOf(h))
	}
}

func TestOpenModelCounts(t *testing.T) {
	tg := localTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte("ok"))
	}))
	ok, _ := BuildRequest(http.MethodGet, tg.URL, nil)
	u := *tg.URL
	u.Path = "/missing"
	missing, _ := BuildRequest(http.MethodGet, &u, nil)
	res, err := Run(context.Background(), Step{Target: tg, Requests: [][]byte{ok, ok, ok, missing}, Rate: 400, Duration: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Scheduled < 195 || res.Scheduled > 201 {
		t.Errorf("scheduled %d requests, want 200 (400/s for 0.5s)", res.Scheduled)
	}
	if res.Responses != res.Scheduled || res.Status[200] != 3*res.Scheduled/4 || res.Status[404] != res.Scheduled/4 {
		t.Errorf("responses %d, status %v for %d scheduled", res.Responses, res.Status, res.Scheduled)
	}
	if got := res.ErrorRate(); got < 0.24 || got > 0.26 {
		t.Errorf("error rate %g, want 0.25 (the 404s)", got)
	}
	if res.Latency.TotalCount() != res.Responses {
		t.Errorf("%d latencies recorded for %d responses", res.Latency.TotalCount(), res.Responses)
	}
	if c := res.Codes(); len(c) != 2 || c[0] != (StatusCount{200, res.Status[200]}) || c[1] != (StatusCount{404, res.Status[404]}) {
		t.Errorf("codes %v, want 200 then 404 with their counts %v", c, res.Status)
	}
	var names []string
	for _, p := range res.Percentiles() {
		names = append(names, p.Name)
		if !(p.Latency > 0 && p.Service > 0 && p.Service <= p.Latency) {
			t.Errorf("%s: latency %v, service %v; want both positive, service time within latency", p.Name, p.Latency, p.Service)
		}
	}
	if got := strings.Join(names, " "); got != "p50 p90 p99 p99.9 max" {
		t.Errorf("percentiles %s, want p50 p90 p99 p99.9 max", got)
	}
	var buf bytes.Buffer
	if err := res.WriteHDRLog(&buf, "t-"); err != nil {
		t.Fatal(err)
	}
	rd := hdrhistogram.NewHistogramLogReader(&buf)
	h, err := rd.NextIntervalHistogram()
	if err != nil || h == nil || h.TotalCount() != res.Latency.TotalCount() {
		t.Fatalf("HDR log: read back %v, %v", h, err)
	}
}

func TestClosedModelBounds(t *testing.T) {
	tg := localTarget(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	res, err := Run(context.Background(), Step{Target: tg, Duration: 2 * time.Second, MaxRequests: 300, Conns: 4})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent > 300 || res.Responses != res.Sent || res.Responses < 290 {
		t.Fatalf("sent %d, responses %d; want at most and about 300", res.Sent, res.Responses)
	}
	if res.Elapsed > time.Second {
		t.Errorf("took %v: the request bound should end the step long before its duration", res.Elapsed)
	}
	for _, v := range res.Values() {
		if v.Unit == "req/s" && v.Value <= 0 {
			t.Errorf("req/s = %v", v.Value)
		}
	}
	rec := res.Record("BenchmarkX/a=b")
	if string(rec.Name) != "BenchmarkX/a=b" || rec.Iters != int(res.Responses) || len(rec.Values) < 8 {
		t.Errorf("record %s iters %d values %d", rec.Name, rec.Iters, len(rec.Values))
	}
}

func TestNoServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	u, _ := ParseURL(srv.URL + "/")
	tg, _ := Resolve(context.Background(), u, false, nil)
	srv.Close() // nothing listens there now
	_, err := Run(context.Background(), Step{Target: tg, Rate: 10, Duration: 100 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "is the target listening") {
		t.Fatalf("err = %v", err)
	}
}

func TestStepBounds(t *testing.T) {
	u, _ := ParseURL("http://127.0.0.1:1/")
	tg := &Target{URL: u, Addrs: nil}
	for _, s := range []Step{
		{Target: tg, Duration: time.Second},
		{Target: &Target{URL: u, Addrs: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:1")}}, Duration: 0},
		{Target: &Target{URL: u, Addrs: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:1")}}, Duration: time.Hour},
		{Target: &Target{URL: u, Addrs: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:1")}}, Duration: time.Second, Rate: -1},
		{Target: &Target{URL: u, Addrs: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:1")}}, Duration: time.Second, MaxRequests: MaxRequestsCap + 1},
		{Target: &Target{URL: u, Addrs: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:1")}}, Duration: time.Second, Conns: MaxConns + 1},
	} {
		if _, err := Run(context.Background(), s); err == nil {
			t.Errorf("step %+v accepted", s)
		}
	}
}
