// Package plantedpair is a benchmark pair with a known truth, for checking
// that perflab decides what it should: variant b does exactly 2% more of
// variant a's work, and variant c is an exact copy of a (the same
// function, so the same machine code and alignment).
package plantedpair

import "testing"

var sink uint64

// workA runs n steps of a xorshift generator: a dependent chain of integer
// operations, no memory traffic.
func workA(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// steps of a; b runs 2% more.
const (
	stepsA = 100
	stepsB = 102
)

func BenchmarkWork(b *testing.B) {
	b.Run("v=a", func(b *testing.B) {
		x := uint64(88172645463325252)
		for i := 0; i < b.N; i++ {
			x = workA(x, stepsA)
		}
		sink = x
	})
	b.Run("v=b", func(b *testing.B) {
		x := uint64(88172645463325252)
		for i := 0; i < b.N; i++ {
			x = workA(x, stepsB)
		}
		sink = x
	})
	b.Run("v=c", func(b *testing.B) {
		x := uint64(88172645463325252)
		for i := 0; i < b.N; i++ {
			x = workA(x, stepsA) // the same code as v=a: an A/A pair
		}
		sink = x
	})
}
