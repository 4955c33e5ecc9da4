package poolreuse

import (
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/perflab/perflab/benchmetrics"
)

// object is the set of benchmarked object types.
type object interface {
	~[64]byte | ~[1024]byte | ~[8192]byte
}

// freeListSlots is the number of slots of the benchmarked FreeList.
const freeListSlots = 1024

// sink keeps dropped objects reachable from a package variable, so that
// escape analysis must place every object on the heap.
var sink struct {
	mu sync.Mutex
	v  any
}

func keep(v any) {
	sink.mu.Lock()
	sink.v = v
	sink.mu.Unlock()
}

// pressureBytes is the garbage each operation of mode=pressure also
// allocates, as the rest of a request would, so that the GC runs while
// the pool serves.
const pressureBytes = 1024

// pressureCells says whether mode=pressure runs a cell: the serial
// workload at full reuse for sync.Pool and the free list (article C's
// contrast of a pool whose Get “may trigger GC” with one of constant O(1)
// latency), 64-byte objects; every other cell of the mode skips itself.
func pressureCells(size int, variant string, reuse int) bool {
	return size == 64 && reuse == 100 && (variant == "syncpool" || variant == "freelist")
}

func BenchmarkPool(b *testing.B) {
	for _, mode := range []string{"serial", "parallel", "pressure"} {
		b.Run("mode="+mode, func(b *testing.B) {
			b.Run("size=64", func(b *testing.B) { benchSize[[64]byte](b, mode, 64) })
			b.Run("size=1024", func(b *testing.B) { benchSize[[1024]byte](b, mode, 1024) })
			b.Run("size=8192", func(b *testing.B) { benchSize[[8192]byte](b, mode, 8192) })
		})
	}
}

// variants lists the benchmarked pools in benchmark order.
func variants[T object]() []struct {
	name string
	new  func() Pool[T]
} {
	return []struct {
		name string
		new  func() Pool[T]
	}{
		{"plain", func() Pool[T] { return Plain[T]{} }},
		{"syncpool", func() Pool[T] { return &SyncPool[T]{} }},
		{"tiered", func() Pool[T] { return NewTiered[T]() }},
		{"freelist", func() Pool[T] { return NewFreeList[T](freeListSlots) }},
	}
}

func benchSize[T object](b *testing.B, mode string, size int) {
	for _, v := range variants[T]() {
		b.Run("variant="+v.name, func(b *testing.B) {
			for reuse := 0; reuse <= 100; reuse += 5 {
				b.Run("reuse="+strconv.Itoa(reuse), func(b *testing.B) {
					switch {
					case mode == "parallel":
						benchParallel(b, v.new(), reuse)
					case mode == "serial":
						benchSerial(b, v.new(), reuse, 0)
					case pressureCells(size, v.name, reuse):
						benchSerial(b, v.new(), reuse, pressureBytes)
					default:
						b.Skip("mode=pressure runs sync.Pool and the free list alone, at size=64 and reuse=100")
					}
				})
			}
		})
	}
}

// use writes one byte into every 64-byte cache line of *p.
func use[T object](p *T) {
	for i := 0; i < len(*p); i += 64 {
		(*p)[i] = byte(i)
	}
}

// garbage keeps the last pressure allocation reachable, so the compiler
// must place each on the heap.
var garbage []byte

// benchSerial runs the workload in one goroutine against a fresh pool;
// with extra > 0 each operation also allocates extra bytes of garbage.
func benchSerial[T object](b *testing.B, pool Pool[T], reuse, extra int) {
	var acc, hits, gets int64
	var dropped *T
	defer benchmetrics.Measure(b)()
	for b.Loop() {
		if extra > 0 {
			garbage = make([]byte, extra)
		}
		p, recycled := pool.Get()
		gets++
		if recycled {
			hits++
		}
		use(p)
		acc += int64(reuse)
		if acc >= 100 {
			acc -= 100
			pool.Put(p)
		} else {
			dropped = p
		}
	}
	keep(dropped)
	reportHits(b, hits, gets)
}

// benchParallel runs the workload in b.RunParallel goroutines, each with
// its own reuse accumulator and counters, against one fresh pool.
func benchParallel[T object](b *testing.B, pool Pool[T], reuse int) {
	var hits, gets atomic.Int64
	defer benchmetrics.Measure(b)()
	b.RunParallel(func(pb *testing.PB) {
		var acc, h, g int64
		var dropped *T
		for pb.Next() {
			p, recycled := pool.Get()
			g++
			if recycled {
				h++
			}
			use(p)
			acc += int64(reuse)
			if acc >= 100 {
				acc -= 100
				pool.Put(p)
			} else {
				dropped = p
			}
		}
		hits.Add(h)
		gets.Add(g)
		keep(dropped)
	})
	reportHits(b, hits.Load(), gets.Load())
}

func reportHits(b *testing.B, hits, gets int64) {
	if gets == 0 {
		return
	}
	b.ReportMetric(float64(hits)/float64(gets), "hits/op")
}
