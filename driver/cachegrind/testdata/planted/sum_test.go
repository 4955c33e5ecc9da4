package planted

import (
	"strconv"
	"testing"
)

var sum32 uint32

// BenchmarkSum checksums a buffer; the two versions of checksum (build tag
// v2) make an A/B pair whose change lies in one function.
func BenchmarkSum(b *testing.B) {
	for _, n := range []int{256} {
		data := make([]byte, n)
		for i := range data {
			data[i] = byte(i * 7)
		}
		b.Run("n="+strconv.Itoa(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sum32 += checksum(data)
			}
		})
	}
}
