// Package gateway is the workload of the gateway experiment: article D's
// API-gateway micro-claims (D3–D8 of the built-in suite),
// each measured by a benchmark of its own.
//
// # The benchmarks
//
// The spec's one axis, sweep, is what each benchmark varies; a benchmark
// skips the values that belong to another:
//
//	BenchmarkRoute/sweep=<route count>/variant=<hashmap|trie|servemux|exact>/mix=<all|static>
//	BenchmarkContext/sweep=0/variant=<alloc|pooled>
//	BenchmarkMap/sweep=<write %>/variant=<syncmap|cow|sharded|mutex>/gomaxprocs=<p>
//	BenchmarkLog/sweep=0/variant=<bufio|ring>
//	BenchmarkLeak/sweep=<requests in flight>/variant=<unbuffered|ctxcancel|bounded>
//	BenchmarkParse/sweep=0/codec=<std|jsoniter|simdjson>
//
// Route matching (D3): [Routes] generates a seeded REST route table of up
// to [MaxRoutes] (12,847) unique routes, static and parametrised, free of
// ServeMux conflicts; [Mix] a seeded lookup mix of hits and misses. The
// routers ([NewRouter]): a hash map of static routes with a parameter
// fallback, a radix trie of our own (httprouter cannot hold a literal and
// a parameter at one position, which such a table has), and
// net/http.ServeMux with Go 1.22 patterns. [Gate] checks a router before
// it is timed; [ExactRouter], the article's exact-path map, serves the
// static routes alone and is timed, with the trie, on a [StaticMix]. A
// router that fails its gate fails its cell with
//
//	perflab: incorrect: <first difference>
//
// Context pooling (D4): [GatewayChain] is a handler chain whose
// per-request [Ctx] is allocated or pooled.
//
// Concurrent maps (D5): [NewMap] gives sync.Map, an atomic.Value
// copy-on-write map, the article's 8-way sharded map (8 sync.Maps) and a
// single-mutex map; each goroutine's [KeyStream] reads its newest keys,
// Zipf-distributed, and at a percentage writes, inserting a new key and
// evicting its oldest. [DirtyPromotions] counts how often a sync.Map
// promotes its dirty map under that workload: before Go 1.24 only, since
// then sync.Map has none. Under a toolchain before go1.24 (the spec's
// go1.22 config) the test binary holds BenchmarkMap alone.
//
// Log writers (D7): [BufioLog] (a mutex-guarded bufio.Writer) and
// [RingLog] (a lock-free ring of fixed slots drained by one goroutine,
// dropping and counting what does not fit) behind [LogServer], loaded by
// package driver/load over loopback.
//
// Goroutine leaks (D8): [LeakTrial] sends a number of requests at once to
// a handler that hands an event to a slow consumer and counts the
// goroutines left once the clients gave up; it then releases the handlers
// and checks that the goroutine count is back where it started.
//
// JSON parsing (D6): BenchmarkParse (in the package's tests) reads a 1.2
// KB order document into a struct with encoding/json, jsoniter and
// simdjson-go, each checked against encoding/json's struct first.
//
// # Running it
//
//	go test -run '^$' -bench 'BenchmarkRoute/sweep=12847/' -benchmem ./experiments/gateway/
//	perflab run gateway --quick
package gateway
