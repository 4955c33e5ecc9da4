package gateway

import (
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
)

// promotionOps is how many operations per goroutine the untimed replay
// that counts dirty-map promotions runs.
const promotionOps = 20_000

// BenchmarkMap times one operation on a concurrent map of MapKeys keys
// from b.RunParallel at a GOMAXPROCS the benchmark sets (values above the
// machine's cores skip themselves), each goroutine a KeyStream: reads of
// its newest keys, Zipf-distributed, and, at the sweep's percentage,
// writes that insert a new key and evict its oldest:
//
//	BenchmarkMap/sweep=<write %>/variant=<syncmap|cow|sharded|mutex>/gomaxprocs=<p>
//
// The syncmap and sharded cells also report dirty-promotions/op: how
// often their sync.Maps promoted a dirty map per operation, counted in an
// untimed replay of the same workload after the timed one (0 on a Go whose
// sync.Map has no dirty map, Go 1.24 and later).
func BenchmarkMap(b *testing.B) {
	sweep(b, writePcts, "the percentage of writes", func(b *testing.B, pct float64) {
		for _, name := range Maps {
			b.Run("variant="+name, func(b *testing.B) {
				for _, p := range procsValues {
					b.Run("gomaxprocs="+strconv.Itoa(p), func(b *testing.B) {
						if n := runtime.NumCPU(); p > n {
							b.Skipf("gomaxprocs=%d needs %d cores; this machine has %d (runtime.NumCPU)", p, p, n)
						}
						benchMap(b, name, pct, p)
					})
				}
			})
		}
	})
}

func benchMap(b *testing.B, name string, pct float64, procs int) {
	m, err := NewMap(name)
	if err != nil {
		b.Fatal(err)
	}
	prev := runtime.GOMAXPROCS(procs)
	defer runtime.GOMAXPROCS(prev)
	// b.RunParallel runs GOMAXPROCS goroutines: one stream each, made
	// and filled before the timer starts.
	streams := Streams(m, seed, procs)
	var next atomic.Int32
	var lost atomic.Bool
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		s := streams[int(next.Add(1)-1)%len(streams)]
		for pb.Next() {
			if !s.Next(pct).Apply(m) {
				lost.Store(true)
			}
		}
	})
	b.StopTimer()
	if lost.Load() {
		b.Fatalf("perflab: incorrect: %s lost a key or its value", name)
	}
	if name == "syncmap" || name == "sharded" {
		per, note, ok, err := DirtyPromotions(name, pct, procs, promotionOps, seed+1)
		switch {
		case err != nil:
			b.Fatalf("perflab: incorrect: %v", err)
		case ok:
			b.ReportMetric(per, "dirty-promotions/op")
		default:
			b.Logf("dirty-map promotions not counted: %s", note)
		}
	}
}
