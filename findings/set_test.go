package findings

import (
	"bytes"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// repeatReader yields its line n times without holding them.
type repeatReader struct {
	line []byte
	n    int
	off  int
}

func (r *repeatReader) Read(p []byte) (int, error) {
	total := 0
	for len(p) > 0 {
		if r.n == 0 {
			if total == 0 {
				return 0, io.EOF
			}
			return total, nil
		}
		c := copy(p, r.line[r.off:])
		p, total, r.off = p[c:], total+c, r.off+c
		if r.off == len(r.line) {
			r.off, r.n = 0, r.n-1
		}
	}
	return total, nil
}

// TestParseSetLimits: an input past a limit is refused with an error
// that names the limit; inputs within them are read whole, in one pass.
func TestParseSetLimits(t *testing.T) {
	const good = "goos: linux\nBenchmarkA-2 10 100 ns/op\nBenchmarkA-2 10 110 ns/op\nUnit hits/op better=higher\nBenchmarkB-2 10 5 hits/op"
	for _, tc := range []struct {
		name    string
		in      io.Reader
		want    string // substring of the error; "" for success
		results int
	}{
		{"benchmark output", strings.NewReader(good), "", 3},
		{"no final newline", strings.NewReader("BenchmarkA 1 1 ns/op"), "", 1},
		{"CRLF", strings.NewReader("BenchmarkA 1 1 ns/op\r\nBenchmarkA 1 2 ns/op\r\n"), "", 2},
		{"empty", strings.NewReader(""), "holds no benchmark results", 0},
		{"line of 1 MiB", io.MultiReader(strings.NewReader("BenchmarkA 1 1 ns/op\n"), bytes.NewReader(bytes.Repeat([]byte("x"), MaxInputLine+1))), "line 2 is longer than 1 MiB", 0},
		{"zeros", io.LimitReader(zeros{}, 10*MaxInputLine), "longer than 1 MiB", 0},
		{"log lines past 64 MiB", io.MultiReader(strings.NewReader(good+"\n"), &repeatReader{line: []byte(strings.Repeat("log ", 250) + "\n"), n: MaxInput / 1000}), "more than 64 MiB", 0},
		{"long configuration amplified", io.MultiReader(strings.NewReader("k: "+strings.Repeat("v", 30000)+"\n"), &repeatReader{line: []byte("BenchmarkA 1 1 ns/op\n"), n: 1 << 20}), "more than 512 MiB of memory", 0},
		{"values that are no numbers", strings.NewReader("BenchmarkA 1 NaN ns/op\nBenchmarkA 1 +Inf ns/op 3 B/op\nBenchmarkA 1 2 ns/op\n"), "", 2},
		{"only values that are no numbers", strings.NewReader("BenchmarkA 1 NaN ns/op\nBenchmarkA 1 -Inf ns/op\n"), "holds no benchmark results", 0},
		{"configuration deleted again", io.MultiReader(strings.NewReader("k: "+strings.Repeat("v", 30000)+"\nk:\n"), &repeatReader{line: []byte("BenchmarkA 1 1 ns/op\n"), n: 2000}), "", 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, warn, err := ParseSet(tc.in, "in.txt")
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "in.txt") {
					t.Fatalf("err = %v, want %q naming the input", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("err = %v (warn %v)", err, warn)
			}
			if len(s.Results) != tc.results {
				t.Errorf("%d results, want %d", len(s.Results), tc.results)
			}
		})
	}
	_, warn, _ := ParseSet(strings.NewReader("BenchmarkA 1 1 ns/op\nBenchmarkA 1 NaN ns/op\n"), "in.txt")
	if warn == nil || !strings.Contains(warn.Error(), "in.txt:2: NaN") {
		t.Errorf("a NaN value is not named: %v", warn)
	}
	s, _, err := ParseSet(strings.NewReader(good), "in.txt")
	if err != nil {
		t.Fatal(err)
	}
	if !s.Units().HigherIsBetter("hits/op") {
		t.Error("the Unit line of the input was not read")
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// TestParseSetDevZero: reading /dev/zero ends at once with an error, in
// little memory.
func TestParseSetDevZero(t *testing.T) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	_, _, err = ParseSet(f, "/dev/zero")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "longer than 1 MiB") {
		t.Errorf("ParseSet(/dev/zero) = %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("ParseSet(/dev/zero) allocated %d MiB", alloc>>20)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("ParseSet(/dev/zero) took %s", d)
	}
}

// FuzzParseSetMemory: whatever the input — a head of configuration and
// other lines (up to 8 KiB), then one line (up to 1 KiB) repeated up to
// 4000 times, which is how results multiply their configuration — the
// results' memory (live heap after a collection, the set kept) stays
// within twice parseSet's estimate plus 1 MiB, so the estimate that
// MaxResultsMemory bounds is a bound of what the reader keeps.
func FuzzParseSetMemory(f *testing.F) {
	f.Add([]byte("goos: linux\npkg: x\n"), []byte("BenchmarkA-2 10 100 ns/op 5 B/op"), uint16(1000))
	f.Add([]byte("k: "+strings.Repeat("v", 8000)+"\n"), []byte("BenchmarkA 1 1 x"), uint16(4000))
	f.Add([]byte("a: 1\nb: 2\nUnit x better=higher\n"), []byte("BenchmarkB/k=v 1 1 x 2 y 3 z"), uint16(300))
	f.Add([]byte(""), []byte("c: "+strings.Repeat("w", 1000)), uint16(500))
	f.Add([]byte("\x00\xff"), []byte("Benchmark\t1\t1\tns/op"), uint16(7))
	f.Fuzz(func(t *testing.T, head, line []byte, n uint16) {
		if len(head) > 8<<10 || len(line) > 1<<10 {
			return
		}
		in := io.MultiReader(bytes.NewReader(head), strings.NewReader("\n"), &repeatReader{line: append(append([]byte(nil), line...), '\n'), n: int(n % 4001)})
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s, held, _, err := parseSet(in, "fuzz")
		runtime.GC()
		runtime.ReadMemStats(&after)
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		if err == nil && live > 2*held+1<<20 {
			t.Errorf("the results take %d bytes, the estimate %d", live, held)
		}
		if held > MaxResultsMemory+1<<20 {
			t.Errorf("estimate %d past the limit without an error", held)
		}
		runtime.KeepAlive(s)
	})
}
