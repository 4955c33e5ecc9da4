package planted

import "testing"

var sink uint64

func BenchmarkWork(b *testing.B) {
	b.Run("v=a", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += workA(uint64(i), Rounds)
		}
	})
	b.Run("v=b", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += workA(uint64(i), RoundsB)
		}
	})
	b.Run("v=c", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += workC(uint64(i), Rounds)
		}
	})
}
