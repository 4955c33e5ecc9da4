// Package plantedparallel is a b.RunParallel benchmark pair with a known
// truth, for checking CPU time summed over the threads of a parallel
// benchmark: each operation runs 100 steps of a xorshift generator (no
// memory traffic, no allocation) on every goroutine RunParallel starts.
// Variant b does exactly 2% more operations than a per iteration (each
// goroutine one extra every 50), and variant c is a copy of a (the same
// function).
package plantedparallel

import (
	"sync/atomic"
	"testing"
)

var sink atomic.Uint64

// work runs n steps of a xorshift generator.
func work(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// loop runs b.N operations over RunParallel's goroutines, each goroutine
// one more every extra of its own when extra > 0.
func loop(b *testing.B, extra int) {
	b.RunParallel(func(pb *testing.PB) {
		x := uint64(88172645463325252)
		k := 0
		for pb.Next() {
			x = work(x, 100)
			if extra > 0 {
				if k++; k == extra {
					k = 0
					x = work(x, 100)
				}
			}
		}
		sink.Add(x)
	})
}

func BenchmarkWork(b *testing.B) {
	b.Run("v=a", func(b *testing.B) { loop(b, 0) })
	b.Run("v=b", func(b *testing.B) { loop(b, 50) })
	b.Run("v=c", func(b *testing.B) { loop(b, 0) }) // the same code as v=a: an A/A pair
}
