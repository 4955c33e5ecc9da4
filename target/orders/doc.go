// Package orders is the reference HTTP service of perflab's HTTP
// experiments: an order-query service whose one job is to serve
// GET /order/{id} in the configurations ("profiles") article D of the
// built-in suite compares, so that they can be measured side by side.
//
// # The service
//
// GET /order/{id} (ids 1 to NumOrders) returns an [Order] with its line
// items as about 1.2 KB of JSON, read with two prepared queries from an
// SQLite database (modernc.org/sqlite, pure Go) that [EnsureDB] seeds on
// first start: NumOrders orders with 3 to 8 items each, generated from a
// fixed seed so every machine serves the same documents. Requests need
// "Authorization: Bearer <token>" ([DefaultToken] unless configured).
// GET /doc/{codec} serves one fixed order encoded per request by the named
// codec (see [Codecs]), for comparing JSON libraries; a codec whose output
// differs from encoding/json's after normalisation is refused ([CheckCodec]).
//
// The full middleware chain, outermost first: request id, access log
// (one synchronous write per request), panic recovery, metrics (status and
// latency counters), auth check, CORS, timeout. The lean chain keeps
// request id and auth. The overload guard's token bucket, when switched
// on, sits in front of either chain.
//
// # Profiles
//
//	baseline   encoding/json, database/sql's default pool (two idle
//	           connections kept), time.Now for every timestamp, full chain
//	json       baseline + code-generated JSON (easyjson, order_easyjson.go)
//	pool       baseline + a pool sized for the load (max(8, 4×GOMAXPROCS)
//	           connections open and idle)
//	clock      baseline + a clock refreshed every millisecond by a ticker
//	           for log timestamps, request ids and latencies
//	chain      baseline + the lean chain
//	optimized  all four changes
//	ceiling    the optimized stack whose handler writes a constant body
//
// # The side port
//
// [Serve] also listens on a side address for net/http/pprof under
// /debug/pprof/, the service's counters and runtime metrics as JSON at
// /debug/perflab/metrics ([Metrics]), a CPU profile of any length and
// sampling rate at /debug/perflab/cpuprofile?ms=N&hz=H, and
// POST /debug/perflab/guard?rate=R, which switches the overload guard: a
// token bucket of R requests per second (golang.org/x/time/rate, burst
// R/100) in front of the middleware chain, so a shed request costs little,
// and a circuit breaker (github.com/sony/gobreaker/v2) around the DB call,
// which opens when half of at least 20 calls in a second fail (a call has
// 100 ms); shed requests get 429 and 503. rate=0 turns it off.
//
// The command "perflab target orders --profile NAME" runs the service;
// the httpserve experiment runs it as a child process of its benchmarks.
package orders
