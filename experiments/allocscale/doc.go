// Package allocscale is the workload of the allocscale experiment: a
// logging service's requests, each serialising a JSON log record, served
// by many goroutines per P, to see how the heap allocator scales with
// GOMAXPROCS, GC settings and Go toolchains.
//
// The experiment checks article E of the built-in suite: that allocation-
// heavy requests make the heap lock (mheap_.lock) the bottleneck, that
// pooling the serialisation buffers removes it, that contention grows with
// GOMAXPROCS, that an arena pool cuts it, and that GOGC=10 with a memory
// limit cuts RSS growth and GC pauses.
//
// # The request
//
// [NewRequest] makes request number id; a [Logger] turns it into a log
// record — a map[string]interface{} of ten fields, encoded with
// json.NewEncoder into a bytes.Buffer, the ~1.4 KB result copied out: two
// byte slices and one map per request, the article's shape — and writes it
// to the log output. The variants:
//
//   - [Plain]: everything allocated per request.
//   - [Pooled]: the article's fix; buffer and map from sync.Pools.
//   - [Presized]: allocated per request, but with the sizes known up front.
//   - Arena: both byte slices from an arena taken from a per-P pool of
//     arenas (sync.Pool), freed after 1024 requests. It exists only under
//     GOEXPERIMENT=arenas (package arena); elsewhere [NewLogger] returns
//     [ErrNeedsArenas] and the benchmark skips itself as not applicable.
//
// [Verify] checks that a variant writes exactly what Plain writes; the
// benchmark runs it first and fails a variant that does not, so a wrong
// variant is never ranked.
//
// # The benchmark
//
// BenchmarkAlloc (in the package's tests) is nested as
//
//	BenchmarkAlloc/variant=<plain|pooled|presized|arena>/gpp=<1|8|64|256|1024>/gomaxprocs=<1|2|4|…|128>
//
// and serves b.N requests with testing.B.RunParallel from gpp goroutines
// per P at GOMAXPROCS gomaxprocs, which the benchmark sets itself (and
// skips, as not applicable, above runtime.NumCPU), so that every cell runs
// in its own process and its CPU profile covers one GOMAXPROCS. Each
// worker yields after a request, as a server goroutine waits for its next
// request, so goroutines per P matter; the yield goes through the
// scheduler's run queue and its lock, which the any-lock share of a profile
// sees (the heap-lock share does not). The log output checksums every
// record (CRC-32), touching every byte as a writer would.
//
// Besides sec/op (per request, the whole process: 1/throughput) and the
// -benchmem and package benchmetrics units (mutex-wait-sec/op counts
// runtime-internal locks too), each cell reports:
//
//	p99-sec             99th percentile of request latency (log-linear histogram, ≤1/8 relative error)
//	gc-cpu-frac         GC CPU / all CPU (/cpu/classes/gc/total over /cpu/classes/total)
//	scav-cpu-frac       scavenger CPU / all CPU (/cpu/classes/scavenge/total)
//	gc-pause-sec/cycle  stop-the-world GC pause per completed GC cycle
//	rss-growth-B        peak RSS during the run above the RSS at its start (Linux: VmHWM after clearing it)
//	peak-rss/limit      under a memory limit, the peak RSS over the limit (how close the process came to it)
//
// Each run starts from debug.FreeOSMemory: a collection that returns every
// free page to the OS, so rss-growth-B is what this run's heap goal, stacks
// and runtime structures bring back into memory, not what an earlier run of
// the same process (testing's b.N ramp) happened to leave resident.
//
// The CPU classes are updated by the runtime at the end of GC cycles, so a
// run without a completed cycle reports no fractions.
//
// BenchmarkWindows runs the same requests for fixed windows: 12 windows
// of 100 ms sampling runtime/metrics (the correlation between scavenger
// time and blocked goroutines, at variant=plain, gpp=64, gomaxprocs=2),
// and, at gpp=64 or 1024 and GOMAXPROCS 16 and up, one 250 ms window under a CPU
// profile ([ProfileWindow]) whose runtime-lock shares it reports
// (heap-lock-share, lock-share), with the share of time goroutines spent
// blocked on locks (lock-wait-share): one share per round, so the claims
// on lock shares get intervals across rounds.
//
// # Profiles
//
// The experiment profiles each cell on its own (profile = "cell"). When
// the test binary writes a CPU profile, TestMain raises the sampling rate
// to 1000 Hz, so a short pass gives the runtime-lock shares of package
// profshare a usable interval; one pass per cell gives no run-to-run
// interval, so those shares are shown as context.
//
// # Older toolchains
//
// The package and its tests use nothing newer than Go 1.18 (no min or max
// builtins, no sync/atomic types, no range over integers, no
// testing.B.Loop; debug.SetMemoryLimit only from Go 1.19, memlimit.go), so
// that the go1.18 config can build it: the heap allocator before Go 1.19,
// which article E blames. Older toolchains cannot: the package uses
// generics, and go1.17 and before refuse a GOFLAGS that carries
// -buildvcs. Those toolchains refuse the module's go.mod, which asks for
// a newer Go; each old config builds with a module file of its own
// (config field modfile, the go command's -modfile flag) with an older go
// line: go120.mod and go121.mod require nothing, so their builds do without
// the lock-share window (which reads profiles with package profshare and,
// through it, github.com/google/pprof: [ProfileWindow] then returns an
// error); go118.mod requires a pprof that Go 1.18 builds, and the go1.18
// config sets the build tag profshare, so its build has the window too.
// From Go 1.23 on the window is always built.
//
// # Running it
//
// With plain go test, from the module root:
//
//	go test -run '^$' -bench 'BenchmarkAlloc/variant=(plain|pooled)/gpp=64/' -cpu 1 ./experiments/allocscale/
//	GOEXPERIMENT=arenas go test -run '^$' -bench 'BenchmarkAlloc/variant=arena/gpp=64/' -cpu 1 ./experiments/allocscale/
//	cd experiments/allocscale && GOTOOLCHAIN=go1.18.10 go test -modfile=go118.mod -tags profshare -run '^$' -bench 'BenchmarkAlloc/variant=plain/gpp=64/' -cpu 1 .
package allocscale
