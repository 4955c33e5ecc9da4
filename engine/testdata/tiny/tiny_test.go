package tiny

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

// BenchmarkWork has two variants whose costs cross at n≈2.9: variant a
// costs 40·n steps, variant b 100 + 5·n. Each reports its steps per op
// too, a count no machine's load changes.
func BenchmarkWork(b *testing.B) {
	for _, v := range []string{"a", "b", "skip"} {
		b.Run("variant="+v, func(b *testing.B) {
			if v == "skip" {
				b.Skip("not applicable in this configuration")
			}
			for _, n := range []int{1, 2, 4, 8, 16} {
				b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
					steps := 40 * n
					if v == "b" {
						steps = 100 + 5*n
					}
					for b.Loop() {
						work(steps)
					}
					b.ReportMetric(float64(steps), "steps/op")
				})
			}
		})
	}
}
