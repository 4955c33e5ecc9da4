package shardtiny

import (
	"fmt"
	"testing"
)

var sink uint64

func work(n int) {
	x := uint64(n)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink = x
}

// BenchmarkWork has two variants: a costs 40·n steps, b 100 + 5·n.
func BenchmarkWork(b *testing.B) {
	for _, v := range []string{"a", "b"} {
		b.Run("variant="+v, func(b *testing.B) {
			for _, n := range []int{16} {
				b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
					steps := 40 * n
					if v == "b" {
						steps = 100 + 5*n
					}
					for b.Loop() {
						work(steps)
					}
				})
			}
		})
	}
}
