package tiny

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

var (
	sink  int
	bytes []byte
)

func BenchmarkTiny(b *testing.B) {
	for _, n := range []int{1, 2, 10} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sink += Sum(n)
			}
		})
	}
	b.Run("metric", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += Sum(3)
		}
		b.ReportMetric(42, "widgets/op")
	})
	b.Run("path=a/b", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += Sum(4)
		}
	})
	b.Run("with space", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			sink += Sum(5)
		}
	})
}

// BenchmarkAlloc allocates so the heap profile has samples.
func BenchmarkAlloc(b *testing.B) {
	for i := 0; i < b.N; i++ {
		bytes = make([]byte, 1<<10)
	}
}

func BenchmarkPanic(b *testing.B) {
	panic("tiny benchmark exploded")
}

func BenchmarkExit(b *testing.B) {
	fmt.Println("leaving with status 3")
	os.Exit(3)
}

func BenchmarkFail(b *testing.B) {
	b.Fatal("tiny benchmark failed on purpose")
}

// BenchmarkNoisy writes a line to standard output that looks like a
// malformed benchmark result.
func BenchmarkNoisy(b *testing.B) {
	fmt.Println()
	fmt.Println("BenchmarkFake not a result")
	for i := 0; i < b.N; i++ {
		sink += Sum(2)
	}
}

// BenchmarkHang starts a copy of this binary that sleeps, records its
// process id in $TINY_PIDFILE, and then sleeps itself.
func BenchmarkHang(b *testing.B) {
	if os.Getenv("TINY_HANG_CHILD") == "1" {
		time.Sleep(time.Hour)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$", "-test.bench=^BenchmarkHang$", "-test.benchtime=1x")
	cmd.Env = append(os.Environ(), "TINY_HANG_CHILD=1")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	if f := os.Getenv("TINY_PIDFILE"); f != "" {
		if err := os.WriteFile(f, []byte(strconv.Itoa(cmd.Process.Pid)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(time.Hour)
}
