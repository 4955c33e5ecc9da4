package httpserve

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/perflab/perflab/driver/load"
	"github.com/perflab/perflab/target/orders"
)

// The experiment's fixed choices (see the package documentation).
const (
	sloP99         = 20 * time.Millisecond // knee: p99 bound
	maxErrorRate   = 0.01                  // knee: error bound
	steadyFraction = 0.8                   // steady step: this fraction of the knee
	overloadFactor = 1.5                   // overload steps: this multiple of the knee
	guardFraction  = 0.95                  // the guard's token bucket: this fraction of the knee
	closedConns    = 32                    // closed-model steps: connections
	lateAfter      = sloP99 / 10           // pacing lag that counts as late (see load.Health)
	numRequests    = 4096                  // distinct order requests cycled through
)

// articleConnsPerCore is the article's wrk -c512 on its 4-core container:
// the saturated step opens this many connections per CPU the service runs
// on.
const articleConnsPerCore = 512 / 4

// Values the axes may take: the spec picks from these.
var (
	stepValues = []string{"200ms", "300ms", "500ms", "1s", "2s"}
	rateValues = []string{"500", "1000", "2000", "5000", "10000"}
)

// BenchmarkServe measures the orders service in one profile per cell:
//
//	BenchmarkServe/profile=<p>/step=<d>/rate=<r>/measure=<m>[/…]
//
// See the package documentation for what each measure reports.
func BenchmarkServe(b *testing.B) {
	for _, p := range orders.Profiles {
		b.Run("profile="+p.Name, func(b *testing.B) {
			for _, step := range stepValues {
				b.Run("step="+step, func(b *testing.B) {
					d, _ := time.ParseDuration(step)
					for _, rate := range rateValues {
						b.Run("rate="+rate, func(b *testing.B) {
							r, _ := strconv.ParseFloat(rate, 64)
							serveCell(b, p, d, r)
						})
					}
				})
			}
		})
	}
}

// cell is the state shared by the measures of one cell.
type cell struct {
	srv    *server
	target *load.Target
	reqs   [][]byte
	step   time.Duration
	peak   float64 // closed-model throughput, 0 if not measured validly
	knee   load.KneeResult
	// svcMean is the mean service time (send to response) of the last
	// steady step, in seconds; 0 when unknown.
	svcMean float64
	// satConns is the saturated step's connection count: the article's
	// 512 connections for 4 cores, scaled to the service's CPUs.
	satConns int
}

// saturatedConns scales the article's wrk -c512 on 4 cores to a service
// on cpus CPUs (one when it shares a single CPU with the generator).
func saturatedConns(cpus []int) int { return articleConnsPerCore * max(1, len(cpus)) }

// splitCPUs gives the service the upper half of the CPUs this process may
// use and the load generator the lower half; with one CPU both share it.
func splitCPUs() (srv, gen []int) {
	cpus := load.AvailableCPUs()
	if len(cpus) < 2 {
		return nil, nil
	}
	return cpus[len(cpus)/2:], cpus[:len(cpus)/2]
}

// profilingPass says whether the binary runs under perflab's profiling
// pass (a CPU profile or an execution trace was requested), whether it is
// the trace pass, and the pass's output directory.
func profilingPass() (outDir string, ok, trace bool) {
	get := func(name string) string {
		if f := flag.Lookup(name); f != nil {
			return f.Value.String()
		}
		return ""
	}
	trace = get("test.trace") != ""
	if get("test.cpuprofile") == "" && !trace {
		return "", false, false
	}
	return get("test.outputdir"), true, trace
}

func serveCell(b *testing.B, p orders.Profile, step time.Duration, fixedRate float64) {
	srvCPUs, genCPUs := splitCPUs()
	if len(genCPUs) > 0 {
		restore, err := load.PinCPUs(genCPUs)
		if err != nil {
			b.Fatalf("pinning the load generator: %v", err)
		}
		defer restore()
	} else {
		b.Logf("one CPU: the service and the load generator share it")
	}
	outDir, prof, trace := profilingPass()
	srv := startServer(b, p.Name, srvCPUs, prof && !trace)
	defer srv.stop()
	t, reqs, err := srv.orderRequests(numRequests)
	if err != nil {
		b.Fatal(err)
	}
	c := &cell{srv: srv, target: t, reqs: reqs, step: step, satConns: saturatedConns(srvCPUs)}
	ctx := context.Background()

	// Warm up: connections, page cache, the DB pool, the JIT of sonic.
	if _, err := c.run(ctx, 0, step/2, closedConns); err != nil {
		b.Fatalf("warming up: %v", err)
	}
	if trace {
		// The execution trace shows the load generator, not the service:
		// one short step keeps the pass quick.
		b.Run("measure=peak", func(b *testing.B) {
			r, err := c.run(ctx, 0, c.step/2, closedConns)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(r.Throughput(), "req/s")
		})
		return
	}
	if prof {
		c.profilePass(b, p, outDir)
		return
	}
	b.Run("measure=peak", c.measurePeak)
	b.Run("measure=knee", c.measureKnee)
	b.Run("measure=fixed", func(b *testing.B) { c.measureFixed(b, fixedRate) })
	b.Run("measure=steady", c.measureSteady)
	if p.Name == "baseline" || p.Name == "pool" || p.Name == "optimized" {
		b.Run("measure=saturated", c.measureSaturated)
	}
	if p.Name == "optimized" {
		b.Run("measure=doc", c.measureCodecs)
		b.Run("measure=overload", c.measureOverload)
	}
}

// run performs one step against the order endpoint; rate 0 is the closed
// model.
func (c *cell) run(ctx context.Context, rate float64, d time.Duration, conns int) (*load.Result, error) {
	return load.Run(ctx, load.Step{Target: c.target, Requests: c.reqs, Rate: rate, Duration: d, Conns: conns, LateAfter: lateAfter})
}

// limitedAttempts bounds the attempts at a step (or knee probe) the load
// generator limited: a scheduling hiccup of a busy machine spoils one
// attempt, and on 2 cores often a second, and a step left unrecorded in
// a round leaves the checks reading it fewer paired rounds.
const limitedAttempts = 4

// runValid is run, repeated while the generator limited the attempt, up
// to limitedAttempts in all.
func (c *cell) runValid(ctx context.Context, rate float64, d time.Duration) (*load.Result, error) {
	var r *load.Result
	var err error
	for a := 0; a < limitedAttempts && (r == nil || r.Health.Limited); a++ {
		if r, err = c.run(ctx, rate, d, 0); err != nil {
			return r, err
		}
	}
	return r, nil
}

// serverDelta reports the service's own cost per request between two
// readings of its metrics: ns/op is its CPU time per request, B/op and
// allocs/op its heap allocation per request; with db, also db-wait-sec/op,
// the time requests waited for a DB connection, and db-closed/op, the
// connections the pool closed for exceeding its idle limit.
func serverDelta(b *testing.B, m0, m1 orders.Metrics, db bool) {
	n := float64(m1.Requests - m0.Requests)
	if n <= 0 {
		return
	}
	b.ReportMetric((m1.CPUSeconds-m0.CPUSeconds)*1e9/n, "ns/op")
	b.ReportMetric(float64(m1.AllocBytes-m0.AllocBytes)/n, "B/op")
	b.ReportMetric(float64(m1.AllocObjs-m0.AllocObjs)/n, "allocs/op")
	if db {
		b.ReportMetric((m1.DBWaitSec-m0.DBWaitSec)/n, "db-wait-sec/op")
		b.ReportMetric(float64(m1.DBIdleClose-m0.DBIdleClose)/n, "db-closed/op")
	}
}

// measured wraps a measurement with readings of the service's metrics.
func (c *cell) measured(b *testing.B, f func() bool) { c.measuredDB(b, false, f) }

func (c *cell) measuredDB(b *testing.B, db bool, f func() bool) {
	m0, err := c.srv.metrics()
	if err != nil {
		b.Fatal(err)
	}
	c.svcMean = 0
	if !f() {
		return
	}
	m1, err := c.srv.metrics()
	if err != nil {
		b.Fatal(err)
	}
	serverDelta(b, m0, m1, db)
	if n := float64(m1.Requests - m0.Requests); db && n > 0 && c.svcMean > 0 {
		// Off-CPU time: database/sql's DBStats.WaitDuration, the time
		// requests spent blocked for a free connection, as a share of the
		// mean time a request took.
		b.ReportMetric((m1.DBWaitSec-m0.DBWaitSec)/n/c.svcMean, "db-wait-share")
	}
}

// skipLimited skips a measure the generator limited: it is not the
// service's result and must not be recorded as one.
func skipLimited(b *testing.B, r *load.Result) bool {
	if r.Health.Limited {
		b.Skipf("not recorded: the load generator limited this step: %s", r.Health.Reason)
		return true
	}
	return false
}

func reportStep(b *testing.B, r *load.Result) {
	for _, v := range r.Values() {
		b.ReportMetric(v.Value, v.Unit)
	}
}

// measurePeak: closed-model throughput with closedConns connections.
func (c *cell) measurePeak(b *testing.B) {
	c.measured(b, func() bool {
		r, err := c.run(context.Background(), 0, c.step, closedConns)
		if err != nil {
			b.Fatal(err)
		}
		if r.Health.Limited {
			// Remember the figure to start the knee search from, but do not
			// record it as the service's throughput.
			c.peak = -r.Throughput()
		}
		if skipLimited(b, r) {
			return false
		}
		c.peak = r.Throughput()
		b.ReportMetric(r.Throughput(), "req/s")
		b.ReportMetric(r.ErrorRate(), "errors/op")
		return true
	})
}

// measureKnee: the highest rate whose corrected p99 stays within sloP99
// with errors under maxErrorRate.
func (c *cell) measureKnee(b *testing.B) {
	start := math.Abs(c.peak) * 0.5
	if start < 100 {
		start = 500
	}
	k := load.Knee{
		SLO: sloP99, MaxErrorRate: maxErrorRate, Start: start, Growth: 1.3,
		MaxRate: math.Max(4*math.Abs(c.peak), 2000), Resolution: 0.05, MaxProbes: 20, Retries: limitedAttempts - 1,
	}
	c.measured(b, func() bool {
		res, err := k.Search(context.Background(), func(ctx context.Context, rate float64) (load.Point, error) {
			r, err := c.run(ctx, rate, c.step, 0)
			if err != nil {
				return load.Point{}, err
			}
			return load.PointOf(r), nil
		})
		if err != nil {
			b.Fatal(err)
		}
		c.knee = res
		for _, pt := range res.Points {
			b.Logf("probe %.0f req/s: p99 %v, errors %.3g, pass %v %s", pt.Rate, pt.P99, pt.ErrorRate, pt.Pass, pt.Reason)
		}
		switch {
		case res.Limited:
			b.Skipf("not recorded: the load generator limited the knee search %s; the knee is above %.0f req/s", res.Reason, res.Rate)
			return false
		case !res.Bracketed:
			b.Skipf("not recorded: no knee bracketed (%s)", res.Reason)
			return false
		}
		b.ReportMetric(res.Rate, "knee-req/s")
		for _, pt := range res.Points {
			if pt.Pass && pt.Rate == res.Rate {
				b.ReportMetric(pt.Goodput, "good-req/s")
				b.ReportMetric(pt.P99.Seconds(), "p99-sec")
			}
		}
		return true
	})
}

// measureFixed: latency at the common rate of the rate axis.
func (c *cell) measureFixed(b *testing.B, rate float64) {
	c.measured(b, func() bool {
		r, err := c.runValid(context.Background(), rate, 2*c.step)
		if err != nil {
			b.Fatal(err)
		}
		if skipLimited(b, r) {
			return false
		}
		reportStep(b, r)
		return true
	})
}

// steadyRate is where the steady step loads the service.
func (c *cell) steadyRate() float64 {
	if c.knee.Rate > 0 {
		return steadyFraction * c.knee.Rate
	}
	return 0.5 * math.Abs(c.peak)
}

// measureSteady: a step at steadyFraction of the knee with the service's
// CPU profile taken meanwhile; reports the CPU shares of Parts. When the
// generator fell behind its schedule the latency figures are left out, but
// the shares and the service's cost per request stay: they describe the
// requests the service handled, as long as the generator dispatched at
// least 90% of the rate.
func (c *cell) measureSteady(b *testing.B) {
	rate := c.steadyRate()
	if rate <= 0 {
		b.Skip("not recorded: neither a knee nor a peak throughput to set the rate from")
	}
	c.measuredDB(b, true, func() bool {
		r, prof, perr := c.profiledRun(b, rate, 4*c.step, 0)
		if r.Health.Limited && r.Health.DispatchRate < 0.9*rate {
			b.Skipf("not recorded: the load generator dispatched only %.0f of %.0f req/s: %s", r.Health.DispatchRate, rate, r.Health.Reason)
			return false
		}
		if r.Health.Limited {
			b.Logf("latency not recorded: the load generator limited this step: %s", r.Health.Reason)
		} else {
			reportStep(b, r)
		}
		reportShares(b, prof, perr)
		return true
	})
}

// measureSaturated: the load under which article D measured its RPS, its
// P99 and its profile, wrk -t4 -c512 -d30s: as many requests in flight as
// connections, here a closed-model step of satConns connections (the
// article's 512 for 4 cores, scaled to the service's CPUs) for 4 steps,
// with the service's CPU profile taken meanwhile. It reports the step's
// figures (req/s, the peak throughput at that load, and the latency
// percentiles of the same step), conns, and the CPU shares of Parts. With
// database/sql's defaults (the baseline: no limit on open connections, two
// kept idle) requests in flight beyond two open and close connections,
// which the pool profile's sized pool does not.
func (c *cell) measureSaturated(b *testing.B) {
	c.measuredDB(b, true, func() bool {
		r, prof, perr := c.profiledRun(b, 0, 4*c.step, c.satConns)
		if skipLimited(b, r) {
			return false
		}
		reportStep(b, r)
		b.ReportMetric(float64(c.satConns), "conns")
		reportShares(b, prof, perr)
		return true
	})
}

// profiledRun runs a step of d at rate (0: closed model with conns
// connections) and takes the service's CPU profile meanwhile, from half a
// step after the start to the step's end, returning the profile or why it
// could not be taken; it sets c.svcMean from the step's service times.
func (c *cell) profiledRun(b *testing.B, rate float64, d time.Duration, conns int) (*load.Result, []byte, error) {
	type prof struct {
		data []byte
		err  error
	}
	pc := make(chan prof, 1)
	go func() {
		time.Sleep(c.step / 2)
		data, err := c.srv.get(fmt.Sprintf("/debug/perflab/cpuprofile?ms=%d&hz=%d", (d - c.step).Milliseconds(), profileHz))
		pc <- prof{data, err}
	}()
	r, err := c.run(context.Background(), rate, d, conns)
	if err != nil {
		b.Fatal(err)
	}
	pr := <-pc
	if r.Service != nil && r.Service.TotalCount() > 0 {
		c.svcMean = r.Service.Mean() / 1e9
	}
	return r, pr.data, pr.err
}

// reportShares reports the CPU shares of Parts in a service's CPU profile,
// the share of its embedded database engine, and the samples behind them;
// perr is why the profile could not be taken.
func reportShares(b *testing.B, profile []byte, perr error) {
	if perr != nil {
		b.Fatalf("taking the service's CPU profile: %v", perr)
	}
	shares, n, err := Shares(profile, Parts)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n), "cpu-samples")
	b.ReportMetric(shares[DBUnit], DBUnit)
	for _, part := range Parts {
		b.ReportMetric(shares[part.Unit], part.Unit)
	}
}

// profileHz is the sampling rate of the service's CPU profiles: above
// about 250 Hz the kernel's timer granularity loses samples on some machines.
const profileHz = 200

// measureCodecs: closed-model throughput of GET /doc/<codec>, one fixed
// ~1.2 KB order encoded per request, for every codec whose output matches
// encoding/json's.
func (c *cell) measureCodecs(b *testing.B) {
	want, err := c.fetch("/doc/std")
	if err != nil {
		b.Fatal(err)
	}
	for _, codec := range orders.Codecs {
		b.Run("codec="+codec.Name, func(b *testing.B) {
			got, err := c.fetch("/doc/" + codec.Name)
			if err != nil {
				b.Skipf("perflab: incorrect: not ranked: %v", err)
			}
			if err := orders.SameJSON(got, want); err != nil {
				b.Skipf("perflab: incorrect: not ranked: %s serves different JSON than encoding/json: %v", codec.Library, err)
			}
			t, err := c.srv.target("/doc/" + codec.Name)
			if err != nil {
				b.Fatal(err)
			}
			hdr := http.Header{"Authorization": {"Bearer " + orders.DefaultToken}}
			c.measured(b, func() bool {
				r, err := load.Run(context.Background(), load.Step{Target: t, Header: hdr, Duration: c.step / 2, Conns: closedConns})
				if err != nil {
					b.Fatal(err)
				}
				if skipLimited(b, r) {
					return false
				}
				b.ReportMetric(r.Throughput(), "req/s")
				b.ReportMetric(r.ErrorRate(), "errors/op")
				b.ReportMetric(1, "correct") // the output check above passed
				return true
			})
		})
	}
}

// fetch GETs a service path once (for checking a response, not for load).
func (c *cell) fetch(path string) ([]byte, error) {
	req, err := http.NewRequest(http.MethodGet, "http://"+c.srv.addr+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+orders.DefaultToken)
	resp, err := sideClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %.200s", path, resp.Status, body)
	}
	return body, nil
}

// measureOverload: overloadFactor × the knee, without and with the guard
// (a token bucket at the knee rate and a circuit breaker around the DB call).
func (c *cell) measureOverload(b *testing.B) {
	if !c.knee.Bracketed || c.knee.Limited || c.knee.Rate <= 0 {
		b.Skip("not recorded: the knee was not measured, so there is no overload rate")
	}
	rate := overloadFactor * c.knee.Rate
	for _, guard := range []string{"off", "on"} {
		b.Run("guard="+guard, func(b *testing.B) {
			if guard == "on" {
				if err := c.srv.setGuard(guardFraction * c.knee.Rate); err != nil {
					b.Fatal(err)
				}
				defer func() {
					if err := c.srv.setGuard(0); err != nil {
						b.Error(err)
					}
				}()
			}
			c.measured(b, func() bool {
				r, err := c.runValid(context.Background(), rate, 2*c.step)
				if err != nil {
					b.Fatal(err)
				}
				if skipLimited(b, r) {
					return false
				}
				reportStep(b, r)
				shed := r.Status[http.StatusTooManyRequests] + r.Status[http.StatusServiceUnavailable]
				if r.Scheduled > 0 {
					b.ReportMetric(float64(shed)/float64(r.Scheduled), "shed/op")
				}
				return true
			})
		})
	}
}

// profilePass replaces the measures under perflab's profiling pass: one
// steady step at half the peak throughput, with the service's CPU, heap
// and mutex profiles and the step's HDR histogram log written to outDir.
func (c *cell) profilePass(b *testing.B, p orders.Profile, outDir string) {
	b.Run("measure=steady", func(b *testing.B) {
		pk, err := c.run(context.Background(), 0, c.step, closedConns)
		if err != nil {
			b.Fatal(err)
		}
		rate := math.Max(100, 0.5*pk.Throughput())
		d := max(time.Second, 2*c.step)
		pc := make(chan []byte, 1)
		go func() {
			data, err := c.srv.get(fmt.Sprintf("/debug/perflab/cpuprofile?ms=%d&hz=%d", (d - d/4).Milliseconds(), profileHz))
			if err != nil {
				b.Logf("service CPU profile: %v", err)
			}
			pc <- data
		}()
		r, err := c.run(context.Background(), rate, d, 0)
		if err != nil {
			b.Fatal(err)
		}
		cpu := <-pc
		reportStep(b, r)
		if outDir == "" {
			return
		}
		prefix := filepath.Join(outDir, "server-"+p.Name+"-")
		write := func(name string, data []byte) {
			if len(data) == 0 {
				return
			}
			if err := os.WriteFile(prefix+name, data, 0o644); err != nil {
				b.Logf("writing %s: %v", prefix+name, err)
			}
		}
		write("cpu.pprof", cpu)
		for _, kind := range []string{"heap", "mutex"} {
			data, err := c.srv.get("/debug/pprof/" + kind)
			if err != nil {
				b.Logf("service %s profile: %v", kind, err)
			}
			write(kind+".pprof", data)
		}
		f, err := os.Create(prefix + "steady.hlog")
		if err == nil {
			err = r.WriteHDRLog(f, p.Name+"-")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			b.Logf("writing the HDR log: %v", err)
		}
	})
}
