// Package plantedalloc is an allocating benchmark pair with a known truth,
// for checking CPU time where the garbage collector is busy: every
// operation allocates a 256-byte slice and keeps it in a 4096-slot ring
// (about 1 MiB live), so collections run throughout. Variant b does
// exactly 2% more operations than a per iteration (one extra every 50:
// the same allocation, fill and garbage), and variant c is a copy of a
// (the same function).
package plantedalloc

import "testing"

var (
	ring [4096][]uint64
	next int
	sink uint64
)

// op allocates a slice, fills it from a xorshift generator seeded with x,
// keeps it in the ring (dropping the oldest) and returns the last value.
func op(x uint64) uint64 {
	s := make([]uint64, 32)
	for i := range s {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		s[i] = x
	}
	ring[next] = s
	next = (next + 1) % len(ring)
	return x
}

// loop runs b.N iterations of op, and one more op every extra iterations
// when extra > 0.
func loop(b *testing.B, extra int) {
	x := uint64(88172645463325252)
	k := 0
	for i := 0; i < b.N; i++ {
		x = op(x)
		if extra > 0 {
			if k++; k == extra {
				k = 0
				x = op(x)
			}
		}
	}
	sink = x
}

func BenchmarkWork(b *testing.B) {
	b.Run("v=a", func(b *testing.B) { loop(b, 0) })
	b.Run("v=b", func(b *testing.B) { loop(b, 50) })
	b.Run("v=c", func(b *testing.B) { loop(b, 0) }) // the same code as v=a: an A/A pair
}
