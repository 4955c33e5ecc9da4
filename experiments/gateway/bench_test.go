//go:build go1.24

package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/benchmetrics"
	"github.com/perflab/perflab/driver/load"
)

// routeCell is a prepared BenchmarkRoute cell.
type routeCell struct {
	routes  []Route
	mixes   map[string][]*http.Request // mix name → the requests it cycles through
	routers map[string]Router
	gate    map[string]error
	setup   error
}

var routeCells sync.Map // route count → *routeCell

// lookupCount is the number of distinct requests a route cell cycles
// through (a power of two), hitPct the share that hits a route.
const (
	lookupCount = 4096
	hitPct      = 90
)

// routeMixes lists, per router variant, the lookup mixes it is timed on:
// mix=all (Mix: static and parametrised routes in the table's proportion)
// for the routers that serve every route, mix=static (StaticMix) for the
// article's exact-path map, which serves static paths alone, and for the
// trie it is compared with there.
var routeMixes = map[string][]string{
	"hashmap":  {"all"},
	"trie":     {"all", "static"},
	"servemux": {"all"},
	"exact":    {"static"},
}

// routeVariants is the order of BenchmarkRoute's variants.
var routeVariants = append(slices.Clone(Routers), "exact")

func prepareRoutes(n int) *routeCell {
	if c, ok := routeCells.Load(n); ok {
		return c.(*routeCell)
	}
	c := &routeCell{mixes: map[string][]*http.Request{}, routers: map[string]Router{}, gate: map[string]error{}}
	c.routes, c.setup = Routes(n, seed)
	if c.setup == nil {
		all, static := Mix(c.routes, lookupCount, hitPct, seed), StaticMix(c.routes, lookupCount, hitPct, seed)
		for name, ls := range map[string][]Lookup{"all": all, "static": static} {
			for _, l := range ls {
				c.mixes[name] = append(c.mixes[name], NewRequest(l.Path))
			}
		}
		for _, name := range Routers {
			r, err := NewRouter(name, c.routes)
			if err != nil {
				c.gate[name] = err
				continue
			}
			c.routers[name] = r
			c.gate[name] = Gate(r, c.routes, all, seed)
			if c.gate[name] == nil && slices.Contains(routeMixes[name], "static") {
				c.gate[name] = GateLookups(r, c.routes, static)
			}
		}
		c.routers["exact"] = NewExactRouter(c.routes)
		c.gate["exact"] = GateLookups(c.routers["exact"], c.routes, static)
	}
	routeCells.Store(n, c)
	return c
}

var sinkRoute int

// BenchmarkRoute times one route lookup of a seeded mix (90% hits, 10%
// misses) per op:
//
//	BenchmarkRoute/sweep=<route count>/variant=<hashmap|trie|servemux|exact>/mix=<all|static>
//
// mix=all holds static and parametrised routes in the table's proportion;
// mix=static static routes alone, the requests the article's exact-path
// map (variant exact) can serve (routeMixes says which variant runs
// which). Each router first passes the gate: every route it serves
// resolves to its handler with the right parameters, every lookup of its
// mixes as it should.
func BenchmarkRoute(b *testing.B) {
	sweep(b, routeCounts, "the route count", func(b *testing.B, v float64) {
		n := int(v)
		c := prepareRoutes(n)
		if c.setup != nil {
			b.Fatal(c.setup)
		}
		for _, name := range routeVariants {
			b.Run("variant="+name, func(b *testing.B) {
				if err := c.gate[name]; err != nil {
					b.Fatalf("perflab: incorrect: %s with %d routes: %v", name, n, err)
				}
				r := c.routers[name]
				for _, mix := range routeMixes[name] {
					reqs := c.mixes[mix]
					b.Run("mix="+mix, func(b *testing.B) {
						b.ReportAllocs()
						i := 0
						for b.Loop() {
							h, _ := r.Match(reqs[i&(lookupCount-1)])
							sinkRoute += h
							i++
						}
						b.ReportMetric(1, "correct")
					})
				}
			})
		}
	})
}

// BenchmarkContext times one request through the gateway's handler chain
// (GatewayChain) with per-request context objects allocated or pooled:
//
//	BenchmarkContext/sweep=0/variant=<alloc|pooled>
//
// Besides sec/op, B/op and allocs/op and package benchmetrics' runtime
// metrics, it reports gc-pause-sec/Mreq (GC pause per million requests)
// and gc-cycles/req over gcRequests further, untimed requests, and
// gc-pause-sec/cycle, the stop-the-world pause per GC cycle, over
// gcRequests requests that each also allocate a bodySize response body
// (the rest of a service), so that the pooled chain, which allocates
// nothing itself, runs GC cycles too.
// bodySize is the response body each request of BenchmarkContext's pause
// measurement allocates; bodySink keeps it on the heap.
const bodySize = 1024

var bodySink []byte

func BenchmarkContext(b *testing.B) {
	const gcRequests = 100_000
	sweep(b, []float64{0}, "nothing", func(b *testing.B, _ float64) {
		for _, v := range []string{"alloc", "pooled"} {
			b.Run("variant="+v, func(b *testing.B) {
				ch := GatewayChain(v == "pooled")
				req := NewRequest("/api/v2/shops/1042/orders/77")
				req.Header.Set("X-Api-Key", "k-9f2c")
				w := &nopWriter{h: http.Header{}}
				// The gate: the chain answers 200 with the parameters.
				ch.ServeHTTP(w, req)
				if w.status != http.StatusOK {
					b.Fatalf("perflab: incorrect: the chain answered %d, want 200", w.status)
				}
				b.ReportAllocs()
				stop := benchmetrics.Measure(b)
				for b.Loop() {
					ch.ServeHTTP(w, req)
				}
				stop()
				// GC cost over a fixed number of requests, untimed: a short
				// benchtime sees too few GC cycles, and pauses of a few
				// nanoseconds per op print as 0 in seconds.
				runtime.GC()
				pause, cycles := GCCost(gcRequests, func() { ch.ServeHTTP(w, req) })
				// Seconds per million requests: a unit the benchmark format
				// keeps as written, printed with enough digits.
				b.ReportMetric(pause*1e6/1e9, "gc-pause-sec/Mreq")
				b.ReportMetric(cycles, "gc-cycles/req")
				runtime.GC()
				pause, cycles = GCCost(gcRequests, func() {
					ch.ServeHTTP(w, req)
					bodySink = make([]byte, bodySize)
				})
				if cycles > 0 {
					b.ReportMetric(pause/cycles/1e9, "gc-pause-sec/cycle")
				}
			})
		}
	})
}

// logRate is the common request rate of BenchmarkLog, logStep the length
// of one load step, logLateAfter the generator's lateness bound.
const (
	logRate      = 2000
	logStep      = 500 * time.Millisecond
	logLateAfter = 2 * time.Millisecond
	logAttempts  = 4
)

// BenchmarkLog serves GET /order/<id> on 127.0.0.1, each request writing
// one log record through the variant's writer into a file, under
// perflab's open-model load at logRate requests per second for logStep
// per op:
//
//	BenchmarkLog/sweep=0/variant=<bufio|ring>
//
// It reports the step's latency figures (p50-sec … p999-sec, req/s,
// errors/op); log-sec/req, the time spent logging per request: in the
// handlers' calls to Log plus the writer's own goroutine writing records
// out; log-cpu-share, that time over the process's CPU time in the step
// (the load generator runs in the same process, so this understates the
// service's share alike for both writers); and dropped/req, the fraction
// of records the writer dropped. After the step
// the writer is closed and the file must hold every record not counted as
// dropped; otherwise the cell fails as incorrect.
func BenchmarkLog(b *testing.B) {
	sweep(b, []float64{0}, "nothing", func(b *testing.B, _ float64) {
		for _, v := range LogWriters {
			b.Run("variant="+v, func(b *testing.B) { benchLog(b, v) })
		}
	})
}

func benchLog(b *testing.B, variant string) {
	sum := map[string]float64{}
	for i := 0; i < b.N; i++ {
		f, err := os.Create(filepath.Join(b.TempDir(), "access.log"))
		if err != nil {
			b.Fatal(err)
		}
		lc := &LineCounter{W: f}
		lw, err := NewLogWriter(variant, lc)
		if err != nil {
			b.Fatal(err)
		}
		srv, err := StartLogServer(lw)
		if err != nil {
			b.Fatal(err)
		}
		r, logTime, handled := logStepOnce(b, srv, lw)
		srv.Close()
		if err := lw.Close(); err != nil {
			b.Fatalf("closing the log: %v", err)
		}
		f.Close()
		all, drops := srv.Handled.Load(), lw.Dropped()
		if lc.Lines != all-drops {
			b.Fatalf("perflab: incorrect: %s handled %d requests, dropped %d records, but wrote %d: %d records lost silently",
				variant, all, drops, lc.Lines, all-drops-lc.Lines)
		}
		if r.Health.Limited {
			b.Skipf("not recorded: the load generator limited this step: %s", r.Health.Reason)
		}
		for _, x := range r.Values() {
			sum[x.Unit] += x.Value
		}
		if handled > 0 {
			sum["log-sec/req"] += logTime.Seconds() / float64(handled)
		}
		if cpu := r.Health.CPU * r.Elapsed.Seconds(); cpu > 0 {
			sum["log-cpu-share"] += logTime.Seconds() / cpu
		}
		if all > 0 {
			sum["dropped/req"] += float64(drops) / float64(all)
		}
	}
	for unit, x := range sum {
		b.ReportMetric(x/float64(b.N), unit)
	}
}

// logStepOnce warms srv up, then runs one open-model step against it and
// returns the step, the time spent logging during it (in handlers and in
// the writer's own goroutines) and the requests handled meanwhile.
func logStepOnce(b *testing.B, srv *LogServer, lw LogWriter) (*load.Result, time.Duration, int64) {
	u, _ := url.Parse(srv.URL + "/order/1042")
	ctx := context.Background()
	t, err := load.Resolve(ctx, u, false, nil)
	if err != nil {
		b.Fatal(err)
	}
	reqs := make([][]byte, 256)
	for i := range reqs {
		ru := *u
		ru.Path = fmt.Sprintf("/order/%d", 1000+i*37)
		if reqs[i], err = load.BuildRequest(http.MethodGet, &ru, http.Header{"User-Agent": {"perflab-load"}}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := load.Run(ctx, load.Step{Target: t, Requests: reqs, Rate: logRate, Duration: logStep / 10}); err != nil {
		b.Fatal(err)
	}
	// A step the generator limited (a scheduling hiccup of a busy
	// machine) is run again, up to logAttempts times in all.
	var r *load.Result
	var logTime time.Duration
	var handled int64
	for a := 0; a < logAttempts && (r == nil || r.Health.Limited); a++ {
		t0, bg0, h0 := srv.LogTime.Load(), lw.Background(), srv.Handled.Load()
		if r, err = load.Run(ctx, load.Step{Target: t, Requests: reqs, Rate: logRate, Duration: logStep, LateAfter: logLateAfter}); err != nil {
			b.Fatal(err)
		}
		logTime = time.Duration(srv.LogTime.Load()-t0) + lw.Background() - bg0
		handled = srv.Handled.Load() - h0
	}
	return r, logTime, handled
}

// leakTimeout bounds one trial's wait for its requests to arrive.
const leakTimeout = 5 * time.Second

// BenchmarkLeak runs one LeakTrial per op: the sweep's number of requests
// in flight at once against a handler that hands an event to a consumer
// taking one per 50 ms:
//
//	BenchmarkLeak/sweep=<requests in flight>/variant=<unbuffered|ctxcancel|bounded>
//
// It reports leaked-goroutines (goroutines left once every client gave
// up), leaked-goroutines/req (the same per request in flight: the slope),
// stuck-handlers and dropped/req (events the bounded channel dropped).
// Each trial ends by releasing the handlers and waits until the goroutine
// count is back to where it started.
func BenchmarkLeak(b *testing.B) {
	sweep(b, concurrences, "the requests in flight", func(b *testing.B, v float64) {
		c := int(v)
		for _, v := range Senders {
			b.Run("variant="+v, func(b *testing.B) {
				var leaked, stuck, dropped float64
				for i := 0; i < b.N; i++ {
					res, err := LeakTrial{Sender: v, Concurrency: c, MaxWait: leakTimeout, ConsumeEach: 50 * time.Millisecond, BoundedCap: 16}.Run(context.Background())
					if err != nil {
						b.Fatal(err)
					}
					leaked += float64(res.Goroutines)
					stuck += float64(res.Stuck)
					dropped += float64(res.Dropped)
				}
				n := float64(b.N)
				b.ReportMetric(leaked/n, "leaked-goroutines")
				b.ReportMetric(leaked/n/float64(c), "leaked-goroutines/req")
				b.ReportMetric(stuck/n, "stuck-handlers")
				b.ReportMetric(dropped/n/float64(c), "dropped/req")
			})
		}
	})
}
