// Package poolreuse is the workload of the poolreuse experiment: object
// pools measured against plain allocation as the fraction of objects put
// back (the reuse rate) varies.
//
// The experiment checks article C of the built-in suite: that [sync.Pool]
// is slower than plain allocation below about 32% reuse, that a tiered pool
// (L1 sync.Pool, L2 stack with a TTL, L3 slab) beats sync.Pool, and that a
// lock-free free list over pre-allocated slots beats sync.Pool.
//
// The package holds the pools, all behind one interface, [Pool]:
//
//   - [Plain]: every Get allocates; the baseline.
//   - [SyncPool]: a sync.Pool without New, so hits can be counted.
//   - [Tiered]: the article's three-tier pool.
//   - [FreeList]: a lock-free Treiber stack over pre-allocated slots.
//
// # The benchmark
//
// BenchmarkPool (in the package's tests) runs one operation per iteration:
// Get an object, write one byte into each of its 64-byte cache lines, then
// Put it back at the reuse rate or drop it (it becomes garbage). The reuse
// decision is a Bresenham accumulator, so reuse=25 puts exactly every
// fourth object. Sub-benchmarks are nested as
//
//	BenchmarkPool/mode=<serial|parallel|pressure>/size=<64|1024|8192>/variant=<plain|syncpool|tiered|freelist>/reuse=<0|5|…|100>
//
// where mode=serial is one goroutine, mode=parallel uses
// testing.B.RunParallel (one accumulator per goroutine), and mode=pressure
// is the serial workload with 1 KiB of garbage allocated per operation, as
// the rest of a request would, so that the GC runs while the pool serves
// (it runs sync.Pool and the free list at size=64 and reuse=100 alone; its
// other cells skip themselves); size is the object
// size in bytes, and reuse is the percentage of objects put back. Every
// variant runs at every reuse value, plain included (it ignores the rate),
// so each variant is a full series along reuse. Each run starts from a fresh,
// empty pool; the free list starts with 1024 free slots.
//
// Besides sec/op, each benchmark reports hits/op, the fraction of Gets
// served with a recycled object, and the runtime metrics recorded by
// package benchmetrics; -benchmem adds B/op and allocs/op.
//
// # Running it
//
// With plain go test, from the module root:
//
//	go test -run '^$' -bench 'BenchmarkPool/mode=serial/size=64/' -benchmem ./experiments/poolreuse/
//	go test -run '^$' -bench 'BenchmarkPool/mode=parallel/' -cpu 1,2,4 -benchmem ./experiments/poolreuse/
//
// -cpu sweeps GOMAXPROCS for mode=parallel. The full matrix is 756
// benchmarks; select a slice with -bench as above.
package poolreuse
