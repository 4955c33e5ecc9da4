package jsondepth

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/perflab/perflab/benchmetrics"
)

// seed is the seed of every benchmarked document.
const seed = 1

// ops lists the benchmarked operations in benchmark order.
var ops = []string{OpMarshal, OpUnmarshal, OpAny}

// cell is a prepared benchmark cell: its document, encoding/json's bytes
// for it and the outcome of the correctness gate.
type cell struct {
	doc   any
	want  []byte
	setup error // the document could not be built or encoded: a harness error
	gate  error // the library failed the gate: an incorrect cell
}

// cells caches prepared cells: go test calls a benchmark function several
// times while it sizes b.N, and the gate needs to run only once.
var cells sync.Map // string → *cell

func prepare(lib Library, op string, depth, fanout int) *cell {
	key := fmt.Sprintf("%s/%s/%d/%d", lib.Name, op, depth, fanout)
	if c, ok := cells.Load(key); ok {
		return c.(*cell)
	}
	c := &cell{}
	c.doc, c.setup = New(depth, fanout, seed)
	if c.setup == nil {
		c.want, c.setup = json.Marshal(c.doc)
	}
	if c.setup == nil {
		c.gate = Gate(lib, op, c.doc, c.want)
	}
	cells.Store(key, c)
	return c
}

// BenchmarkJSON times Marshal, Unmarshal and Marshal through an interface
// for every library, fan-out and depth:
//
//	BenchmarkJSON/op=<marshal|unmarshal|any>/lib=<name>/fanout=<1..3>/depth=<1..12>
func BenchmarkJSON(b *testing.B) {
	for _, op := range ops {
		b.Run("op="+op, func(b *testing.B) {
			for _, lib := range Libraries() {
				b.Run("lib="+lib.Name, func(b *testing.B) {
					for fanout := 1; fanout <= MaxFanout; fanout++ {
						b.Run("fanout="+strconv.Itoa(fanout), func(b *testing.B) {
							for depth := 1; depth <= MaxDepth; depth++ {
								b.Run("depth="+strconv.Itoa(depth), func(b *testing.B) {
									benchCell(b, lib, op, depth, fanout)
								})
							}
						})
					}
				})
			}
		})
	}
}

// flatAfter times the flattened document right after the cell's timed
// loop, for as many iterations as the loop ran (the timer is stopped:
// sec/op stays the nested figure): encoding/json's Marshal of the flat
// struct, and a FlatMarshaler, the reflection-free code a generator would
// write for it (first checked to write encoding/json's bytes). It reports
// flat-ns/op and flat/nested for the first, flatgen-ns/op and
// flatgen/nested for the second: the ratios of per-call times within
// this run.
func flatAfter(b *testing.B, doc any, n int) {
	flat, leaves, err := Flatten(doc)
	if err == nil {
		err = checkFlat(flat, leaves)
	}
	if err != nil {
		b.Fatalf("flattening the document: %v", err)
	}
	gen, err := NewFlatMarshaler(flat)
	if err == nil {
		err = gen.Check(flat)
	}
	if err != nil {
		b.Fatalf("perflab: incorrect: %v", err)
	}
	if n == 0 {
		return
	}
	nestedPer := float64(b.Elapsed().Nanoseconds()) / float64(n)
	for _, m := range []struct {
		name    string
		marshal func(any) ([]byte, error)
	}{{"flat", json.Marshal}, {"flatgen", gen.Marshal}} {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			out, err := m.marshal(flat)
			if err != nil {
				b.Fatal(err)
			}
			sink = out
		}
		per := float64(time.Since(t0).Nanoseconds()) / float64(n)
		b.ReportMetric(per, m.name+"-ns/op") // stored tidied, as <name>-sec/op (see aliceAfter)
		if nestedPer > 0 {
			b.ReportMetric(per/nestedPer, m.name+"/nested")
		}
	}
}

// Alice is the value article B boxes (“var v interface{} =
// struct{ Name string }{"Alice"}; json.Marshal(v)”), with the struct
// type it names.
type Alice struct{ Name string }

var alice = Alice{Name: "Alice"}

// boxAlice returns alice in a fresh interface value: the conversion the
// article times, which copies the struct to the heap.
//
//go:noinline
func boxAlice() any { return alice }

// aliceAfter times encoding/json's Marshal of the article's own value for n
// iterations after the cell's timed loop (the timer is stopped: sec/op
// stays the cell's), through a typed pointer for op=marshal or boxed into
// an interface on every call for op=any, and reports alice-ns/op and
// alice-B/op, the heap bytes per call.
func aliceAfter(b *testing.B, op string, n int) {
	if n == 0 {
		return
	}
	marshal := func() ([]byte, error) { return json.Marshal(&alice) }
	if op == OpAny {
		marshal = func() ([]byte, error) { return json.Marshal(boxAlice()) }
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	t0 := time.Now()
	for i := 0; i < n; i++ {
		out, err := marshal()
		if err != nil {
			b.Fatal(err)
		}
		sink = out
	}
	per := float64(time.Since(t0).Nanoseconds()) / float64(n)
	runtime.ReadMemStats(&after)
	// Reported in nanoseconds: go test prints seconds this small with one
	// digit. perflab stores the unit tidied, as alice-sec/op.
	b.ReportMetric(per, "alice-ns/op")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(n), "alice-B/op")
}

// sink keeps results alive so the compiler cannot drop the calls.
var sink []byte

func benchCell(b *testing.B, lib Library, op string, depth, fanout int) {
	if lib.Skip != "" {
		b.Skip(lib.Skip)
	}
	c := prepare(lib, op, depth, fanout)
	if c.setup != nil {
		b.Fatalf("building the depth %d fan-out %d document: %v", depth, fanout, c.setup)
	}
	if c.gate != nil {
		b.Fatalf("perflab: incorrect: %s", c.gate)
	}
	b.ReportAllocs()
	switch op {
	case OpMarshal:
		stop := benchmetrics.Measure(b)
		n := 0
		for b.Loop() {
			out, err := lib.Marshal(c.doc)
			if err != nil {
				b.Fatal(err)
			}
			sink = out
			n++
		}
		stop()
		if lib.Name == "encoding_json" {
			flatAfter(b, c.doc, n)
			if depth == 1 && fanout == 1 {
				aliceAfter(b, op, n)
			}
		}
	case OpAny:
		boxed := Boxed(c.doc)
		stop := benchmetrics.Measure(b)
		n := 0
		for b.Loop() {
			out, err := lib.Marshal(boxed())
			if err != nil {
				b.Fatal(err)
			}
			sink = out
			n++
		}
		stop()
		if lib.Name == "encoding_json" && depth == 1 && fanout == 1 {
			aliceAfter(b, op, n)
		}
	case OpUnmarshal:
		zero := func() any { return Zero(depth) }
		defer benchmetrics.Measure(b)()
		for b.Loop() {
			if err := lib.Unmarshal(c.want, zero()); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(1, "correct")
}
