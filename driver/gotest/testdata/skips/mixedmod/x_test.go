package skipmod

import "testing"

var sink int

func BenchmarkPlain(b *testing.B) {
	for b.Loop() {
		sink++
	}
}

func BenchmarkTopSkip(b *testing.B) { b.Skip("needs /usr/share/dict/words: open: no such file") }

func BenchmarkNoReason(b *testing.B) { b.SkipNow() }

func BenchmarkLogged(b *testing.B) {
	b.Log("first a log line")
	b.Skipf("two\nlines")
}

func BenchmarkSubs(b *testing.B) {
	b.Run("n=1", func(b *testing.B) {
		for b.Loop() {
			sink++
		}
	})
	b.Run("n=2", func(b *testing.B) { b.Skip("n=2 unsupported") })
	b.Run("deep", func(b *testing.B) {
		b.Run("x y", func(b *testing.B) { b.Skip("deep skip") })
		b.Run("x y", func(b *testing.B) {
			for b.Loop() {
				sink++
			}
		})
	})
}

func BenchmarkAllSubsSkip(b *testing.B) {
	b.Run("a", func(b *testing.B) { b.Skip("sub a") })
	b.Run("b", func(b *testing.B) { b.Skip("sub b") })
}

func BenchmarkParentSkipAfterSub(b *testing.B) {
	b.Run("a", func(b *testing.B) {
		for b.Loop() {
			sink++
		}
	})
	b.Skip("parent gives up")
}
