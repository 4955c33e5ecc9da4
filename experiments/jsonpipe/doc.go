// Package jsonpipe is the workload of the jsonpipe experiment: a gjson parse
// → map[string]any → JSON marshal pipeline, run in several variants that
// allocate differently, each stage timed on its own.
//
// The experiment checks article A of the built-in suite (claims A1–A8):
// that Go's arena allocator speeds up the map-building and marshal stages
// of such a pipeline on a ~5 MB document, that a map created in an arena
// keeps its buckets there, and that arenas help on 1 KB and 10 KB
// documents too.
//
// # Documents
//
// [Generate] writes a deterministic JSON document of an exact size from a
// seed: 8 levels of nested objects (arrays of scalars count as a level),
// max(16, size·12000/5 MiB) fields in all (12,000 at 5 MiB), leaves of
// text, integers, decimals, booleans, nulls, arrays of numbers and arrays
// of words, and a few strings that need escaping or are not ASCII. The
// document comes with the value encoding/json decodes it to, which the
// correctness check compares outputs with.
//
// # The pipeline and its variants
//
// Every [Variant] validates the document (gjson.ValidBytes) and parses it
// with gjson (parse stage), walks the result into map[string]any, []any,
// string, float64, bool and nil (build stage; gjson reads values lazily,
// so this walk is where the document is actually read), and writes the
// tree as JSON (marshal stage). Variants that give memory back time that as
// a release stage.
//
//   - heap: the article's pipeline with default allocation —
//     gjson.ParseBytes (which copies the document), a fresh tree,
//     json.Marshal.
//   - pooled: the document copy and the output buffer come from sync.Pools
//     (the output is written with json.Encoder, which appends a newline).
//   - direct: no intermediate map; the gjson result is appended to the
//     output as it is walked, keys, strings and numbers copied in their
//     JSON form. This is what to do when the tree is not needed; its
//     output is the same JSON value, in document key order and with the
//     document's own escaping.
//   - tree: article A's parser (§2.4, whose allocations are “key string”,
//     “value” and “object node”): the build stage walks the gjson result
//     into a tree of nodes, each key and string value (and each number's
//     text) copied out of the document; the output is written from the
//     tree. Everything is on the heap.
//   - arenatree (GOEXPERIMENT=arenas): tree with the document copy and
//     every node, member slice, key and value in a fresh arena per
//     document, freed after the output is written.
//   - arena (GOEXPERIMENT=arenas): a fresh arena.Arena per document holds
//     everything Go lets an arena hold: the document copy gjson reads, the
//     boxed numbers, strings and slice headers of the tree (the interface
//     values are built over arena memory with unsafe), the arrays' storage,
//     and the output, written in 512 KiB chunks. Maps cannot be allocated in
//     an arena and stay on the heap, as does what gjson and encoding/json
//     allocate inside. The runtime puts any single allocation above a
//     quarter of its 8 MiB arena chunk on the heap instead, so the 5 MiB
//     document copy is not in the arena; the doc-in-arena and out-in-arena
//     metrics say where the buffers went.
//   - arenamap (GOEXPERIMENT=arenas): the article's own code — the root map
//     is created with arena.New[map[string]any] and make, everything else
//     as in heap; the arena is made in the parse stage, so the build
//     stage times the conversion alone. Its probe (A5) reports map-slot-in-arena (the map
//     variable arena.New returned), map-header-in-arena and
//     map-buckets-in-arena (the map make created and its storage), each 1
//     when the memory lies in an arena chunk. A pointer is in an arena chunk
//     exactly when arena.Clone returns a copy rather than the pointer
//     itself; the map's storage pointer is read through a mirror of the
//     runtime's map header, used only after its element count matches
//     len(m).
//   - jsonv2 (GOEXPERIMENT=jsonv2): heap with the marshal stage done by
//     encoding/json/v2 with default options, which do not sort map keys or
//     escape '<', '>' and '&' as encoding/json does.
//
// Under GOEXPERIMENT=jsonv2, encoding/json itself is implemented on top of
// encoding/json/v2, so every variant's json.Marshal in the jsonv2 config
// is v2 underneath; the report shows that config separately. A variant the
// build lacks carries [Variant].NotApplicable and its benchmark skips
// itself with that reason.
//
// The article's arena API does not exist: there is no runtime.NewArena, no
// arena.New without an arena argument, no runtime/arena package and no
// -gcflags=-d=arenas. Arenas are GOEXPERIMENT=arenas plus package arena,
// an experiment since Go 1.20.
//
// # Correctness
//
// Before a variant is timed, [Verify] runs it once and decodes its output
// with encoding/json; it must equal the document's value. Key order,
// escaping and number spelling may differ, the value may not. A variant
// that fails makes its benchmark fail with "perflab: incorrect: " and the
// first difference ([FirstDifference]: a path such as $.order_3[2].total_0
// with both values), and it has no timings.
//
// # The benchmark
//
//	BenchmarkPipeline/kib=<1|10|64|1024|5120>/variant=<heap|pooled|direct|tree|arena|arenamap|arenatree|jsonv2>
//
// runs one document through the pipeline per iteration and reports, besides
// sec/op, B/op and allocs/op:
//
//	parse-sec/op, build-sec/op, marshal-sec/op, release-sec/op
//	                 mean time of each stage the variant has
//	parse-gc-cycles/op, build-gc-cycles/op, marshal-gc-cycles/op, release-gc-cycles/op
//	                 GC cycles completed while each stage ran, per document
//	                 (runtime/metrics, read between stages outside their
//	                 clocks)
//	e2e-sec/op       mean of the stage times summed (sec/op without the loop)
//	p50-sec, p99-sec percentiles of the per-iteration end-to-end time
//	                 (with few iterations, p99 is the slowest one)
//	parse-allocs/op, build-allocs/op, marshal-allocs/op
//	                 heap allocations per stage, counted in a few untimed
//	                 runs before the timed loop (runtime.ReadMemStats
//	                 stops the world, so it stays out of the timings)
//	gc-cycles/op …   the runtime/metrics deltas of package benchmetrics
//	correct          1: the output passed the correctness check (the
//	                 report's Correctness section counts these cells)
//
// and the arena probes described above. Stage times come from time.Now
// around each stage: about 100 ns of overhead per iteration.
//
// # Running it
//
// With plain go test, from the module root:
//
//	go test -run '^$' -bench 'BenchmarkPipeline/kib=5120/' -benchmem ./experiments/jsonpipe/
//	GOEXPERIMENT=arenas go test -run '^$' -bench 'BenchmarkPipeline/kib=(1|5120)/variant=(heap|arena)' -benchmem ./experiments/jsonpipe/
//	GOEXPERIMENT=jsonv2 go test -run '^$' -bench 'BenchmarkPipeline/kib=1024/' -benchmem ./experiments/jsonpipe/
package jsonpipe
