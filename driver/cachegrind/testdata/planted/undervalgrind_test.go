package planted

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// underValgrind reports whether the process runs under valgrind, whose
// preload library is in its LD_PRELOAD.
func underValgrind() bool { return strings.Contains(os.Getenv("LD_PRELOAD"), "vgpreload") }

// BenchmarkEnv fails under valgrind unless the runtime was told not to read
// its clock with RDTSCP (GODEBUG=cpu.rdtscp=off), and unless GODEBUG
// still holds what PLANTED_GODEBUG names (a config's own setting).
func BenchmarkEnv(b *testing.B) {
	if underValgrind() {
		g := os.Getenv("GODEBUG")
		if !strings.Contains(g, "cpu.rdtscp=off") || !strings.Contains(g, os.Getenv("PLANTED_GODEBUG")) {
			b.Fatalf("GODEBUG=%q", g)
		}
	}
	for i := 0; i < b.N; i++ {
		sink++
	}
}

// BenchmarkCrash stands for a cell Cachegrind cannot measure (a runtime
// that executes an instruction valgrind cannot decode): under valgrind it
// dies with a message of its own once b.N passes PLANTED_DIE_ABOVE (at
// once when that is unset); outside valgrind it runs as any benchmark.
func BenchmarkCrash(b *testing.B) {
	above, _ := strconv.Atoi(os.Getenv("PLANTED_DIE_ABOVE"))
	if underValgrind() && b.N > above {
		fmt.Fprintf(os.Stderr, "planted: died under valgrind at b.N=%d, as on an undecodable instruction\n", b.N)
		os.Exit(3)
	}
	for i := 0; i < b.N; i++ {
		sink++
	}
}
