package main

import (
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
)

func TestResultsTable(t *testing.T) {
	sum := func(c, lo, hi float64, n int) analysis.Summary {
		return analysis.Summary{Center: c, Lo: lo, Hi: hi, N: n}
	}
	tests := []struct {
		name      string
		rows      []resultRow
		want, not []string
	}{
		{
			name: "time in human units, zero memory units folded",
			rows: []resultRow{
				{Bench: "BenchmarkHash/size=64", Unit: "sec/op", Sum: sum(1.742e-6, 1.70e-6, 1.80e-6, 6)},
				{Bench: "BenchmarkHash/size=64", Unit: "B/op", Sum: sum(0, 0, 0, 6)},
				{Bench: "BenchmarkHash/size=64", Unit: "allocs/op", Sum: sum(0, 0, 0, 6)},
			},
			want: []string{"sec/op:", "1.742µs", "[1.700µs, 1.800µs] ±3.3%", "B/op, allocs/op: 0 for every benchmark"},
			not:  []string{"1.742e-06", "\nB/op:"},
		},
		{
			name: "allocating benchmarks keep their tables; configs named when several",
			rows: []resultRow{
				{Bench: "BenchmarkX", Config: "a", Unit: "B/op", Sum: sum(4096, 4096, 4096, 6)},
				{Bench: "BenchmarkX", Config: "b", Unit: "B/op", Sum: sum(0, 0, 0, 6)},
				{Bench: "BenchmarkX", Config: "a", Unit: "sec/op", Sum: sum(1e-3, 1e-3, 1e-3, 3)},
			},
			want: []string{"B/op:", "BenchmarkX @a", "4.000KiB", "(n<6: no interval)"},
		},
	}
	for _, tt := range tests {
		var b strings.Builder
		if err := writeResultsTable(&b, tt.rows); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, w := range tt.want {
			if !strings.Contains(out, w) {
				t.Errorf("%s: output lacks %q:\n%s", tt.name, w, out)
			}
		}
		for _, w := range tt.not {
			if strings.Contains(out, w) {
				t.Errorf("%s: output has %q:\n%s", tt.name, w, out)
			}
		}
		if i, j := strings.Index(out, "sec/op:"), strings.Index(out, "B/op:"); j >= 0 && i > j {
			t.Errorf("%s: sec/op should come first:\n%s", tt.name, out)
		}
	}
}
