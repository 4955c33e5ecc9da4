// Package cputimed holds benchmarks of every shape the CPU timer of a
// gotest.Build with CPUTime must handle: a b.N loop, b.Loop, RunParallel,
// an allocating loop, a paused timer, a loop that sleeps, and one that
// reports its own CPU time.
package cputimed

import (
	"testing"
	"time"
)

var (
	sink uint64
	keep []byte
)

func work(x uint64, n int) uint64 {
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func BenchmarkLoop(b *testing.B) {
	x := uint64(1)
	for i := 0; i < b.N; i++ {
		x = work(x, 100)
	}
	sink = x
}

func BenchmarkBLoop(b *testing.B) {
	x := uint64(1)
	for b.Loop() {
		x = work(x, 100)
	}
	sink = x
}

func BenchmarkParallel(b *testing.B) {
	b.RunParallel(func(pb *testing.PB) {
		x := uint64(1)
		for pb.Next() {
			x = work(x, 100)
		}
		sink += x & 1
	})
}

func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		keep = make([]byte, 1<<10)
	}
}

// BenchmarkPaused does a hundred times more work with the timer stopped
// than with it running.
func BenchmarkPaused(b *testing.B) {
	x := uint64(1)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		x = work(x, 10000)
		b.StartTimer()
		x = work(x, 100)
	}
	sink = x
}

// BenchmarkSleep waits a millisecond per operation inside the timer.
func BenchmarkSleep(b *testing.B) {
	for i := 0; i < b.N; i++ {
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkOwn reports its own CPU time, which the timer must not replace.
func BenchmarkOwn(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink = work(sink, 10)
	}
	b.ReportMetric(7, "cpu-sec/op")
}
