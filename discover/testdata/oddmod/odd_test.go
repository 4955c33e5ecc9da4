package oddmod

import "testing"

var sink int

func work(b *testing.B) {
	for b.Loop() {
		sink++
	}
}

func BenchmarkPlain(b *testing.B) { work(b) }

func BenchmarkOdd(b *testing.B) {
	for _, name := range []string{"with space", "a,b", "k=v=w", "=lead", "trail=", "log-4", "n=-3", "Rank(1)", "[x]", "dup", "dup", "tab\there", "é", "a|b", "^$.*"} {
		b.Run(name, work)
	}
	b.Run("deep", func(b *testing.B) {
		b.Run("size=64", work)
		b.Run("size=1024-2", work)
	})
}

func BenchmarkSweep(b *testing.B) {
	for _, n := range []string{"1", "10"} {
		b.Run("n="+n, func(b *testing.B) {
			for _, m := range []string{"x", "y"} {
				b.Run("m="+m, work)
			}
		})
	}
}
