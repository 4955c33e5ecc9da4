// Package httpserve is the workload of the httpserve experiment: the
// orders service (package target/orders) measured under load from
// perflab's load generator (package driver/load), to check article D of the
// built-in suite — that four "zero-cost" changes (code-generated JSON, a
// sized DB pool, a cached clock, a 2-middleware chain) take an order
// service from 3,000 to 121,600 requests per second.
//
// # Two processes, one binary
//
// Each cell of BenchmarkServe starts the test binary again as the service
// (TestMain serves when PERFLAB_HTTPSERVE_SERVER names a profile), waits
// until it listens on 127.0.0.1, loads it, and kills it when the cell ends —
// also when the benchmark fails or panics (b.Cleanup), and when the
// benchmark process dies (the child gets SIGKILL on its parent's death and
// exits when its standard input closes). With two or more CPUs the service
// is pinned to the upper half of the CPUs this process may use, with
// GOMAXPROCS set to their number, and the load generator to the lower
// half.
//
// # The cells
//
//	BenchmarkServe/profile=<p>/step=<d>/rate=<r>/measure=<m>[/<sub>]
//
// profile is one of the service's profiles (baseline, json, pool, clock,
// chain, optimized, ceiling; see target/orders). step is the length of one
// load step of the knee search (200ms, 300ms, 500ms, 1s or 2s); other
// steps are multiples of it. rate is the common rate of measure=fixed
// (500, 1000, 2000, 5000 or 10000 requests per second). Requests cycle
// through 4096 GETs of random orders, the same for every profile.
//
// The measures of a cell, in order, against one running service:
//
//   - peak: closed model, 32 connections for one step: req/s.
//   - knee: the highest open-model rate whose coordinated-omission-corrected
//     p99 is at most 20 ms with under 1% errors; coarse steps of ×1.3 from
//     half the peak, then bisection to 5%; one step per probe. Reports
//     knee-req/s, and good-req/s and p99-sec at the knee.
//   - fixed: open model at the common rate for 2 steps: req/s, good-req/s,
//     errors/op, p50-sec, p90-sec, p99-sec, p999-sec, svc-p99-sec.
//   - steady: open model at 80% of the knee for 4 steps, with the
//     service's CPU profile taken at 200 Hz meanwhile: the step's latency
//     figures, the CPU shares cpu-json-share (JSON encoding),
//     cpu-dbconn-share (acquiring, opening, preparing and closing DB
//     connections) and cpu-clock-share (time.Now) of the service's own CPU
//     samples, cpu-samples, their number, and cpu-db-share, the share of all
//     samples spent by the embedded SQLite engine running queries, which
//     the own samples exclude because in the article's setup the database
//     is a server of its own (see Parts); db-wait-sec/op and db-closed/op;
//     db-wait-share, the time requests waited for a DB connection
//     (database/sql's DBStats.WaitDuration: off-CPU, blocked) as a share
//     of the mean service time of the step's requests.
//   - saturated (baseline, pool and optimized): closed model for 4 steps
//     at the article's connection count scaled to the service's CPUs (wrk
//     -c512 on its 4 cores: 128 connections per CPU the service runs on,
//     reported as conns), with the service's CPU profile taken as in
//     steady: the load under which article D measured its RPS, its P99 and
//     its profile (as many requests in flight as connections), and under
//     which database/sql's default pool (the baseline's: no limit on open
//     connections, two kept idle) opens and closes connections; the step's
//     figures (req/s is the peak throughput at that load, p99-sec the P99
//     of the same step), conns, the CPU shares, cpu-samples, cpu-db-share,
//     db-wait-sec/op, db-closed/op and db-wait-share.
//   - doc/codec=<c> (optimized only): closed model for half a step against
//     GET /doc/<c>, one fixed ~1.2 KB order encoded per request by codec c:
//     req/s, and correct = 1: the response was checked against
//     encoding/json's first. A codec whose output differs is skipped with
//     "perflab: incorrect:" and the difference, never ranked (a skip rather
//     than a failure, so the cell's other measures survive).
//   - overload/guard=<off|on> (optimized only): open model at 1.5× the knee
//     for 2 steps, without and with the guard (a token bucket at 95% of the
//     knee rate in front of the middleware chain, the rest paying for the
//     rejections, and a circuit breaker around the DB call): the step's
//     figures and shed/op, the fraction answered 429 or 503.
//
// Every reported measure also has ns/op, B/op and allocs/op: the service's
// CPU time and heap allocation per request over the measure, read from its
// metrics endpoint (not the load generator's, which go test would report),
// (db-wait-sec/op and db-closed/op, on the steady and saturated steps, are the time
// waited for a DB connection and the connections the pool closed for
// exceeding its idle limit, per request).
//
// A step the generator limited (late dispatches or its CPU saturated, see
// driver/load's Health) is repeated, up to four attempts in all, and then
// skipped with the reason, never recorded as the service's result. Two exceptions, both safe: a
// knee probe that met the SLO at the full rate despite a late generator
// passes (lateness only adds latency), and the steady step keeps its CPU
// shares and per-request costs, but not its latency figures, when the
// generator dispatched at least 90% of the rate.
//
// Under perflab's profiling pass (the binary runs with -test.cpuprofile) a
// cell instead runs one steady step at half its peak and writes the
// service's CPU, heap and mutex profiles and the step's HDR histogram log
// beside the pass's own profiles, named server-<profile>-cpu.pprof,
// -heap.pprof, -mutex.pprof and -steady.hlog; under the trace pass
// (-test.trace) it runs one short closed step.
//
// # Running it
//
//	go test -run '^$' -bench 'BenchmarkServe/profile=baseline/step=300ms/rate=1000' -benchtime 1x ./experiments/httpserve/
//
// The first run seeds the order database (about 50 MB, seconds) in
// $PERFLAB_CACHE or the user cache directory.
package httpserve
