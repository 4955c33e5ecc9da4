package analysis

import (
	"math"
	"slices"
	"testing"
)

func TestNaturalOrder(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"1024", "64", "-3", "-10", "1e3", "0.5"}, []string{"-10", "-3", "0.5", "64", "1e3", "1024"}},
		{[]string{"size=1024", "size=64", "plain"}, []string{"plain", "size=64", "size=1024"}},
		{[]string{"v2", "v10", "v1"}, []string{"v1", "v2", "v10"}},
		{nil, nil},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		if got := NaturalOrder(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("NaturalOrder(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if !slices.Equal(in, tt.in) {
			t.Errorf("NaturalOrder changed its input")
		}
	}
}

func TestHasInterval(t *testing.T) {
	if got := MinSamples(0.95); got != 6 {
		t.Errorf("MinSamples(0.95) = %d, want 6 (benchstat's \"need >= 6 samples\")", got)
	}
	if got := MinSamples(0.99); got != 8 {
		t.Errorf("MinSamples(0.99) = %d, want 8", got)
	}
	opt := DefaultOptions()
	for n := 1; n <= 8; n++ {
		vals := make([]float64, n)
		for i := range vals {
			vals[i] = float64(i + 1)
		}
		if got, want := Summarize(vals, opt).HasInterval(), n >= 6; got != want {
			t.Errorf("%d samples: HasInterval = %v, want %v", n, got, want)
		}
	}
	if (Summary{Center: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}).HasInterval() {
		t.Error("an empty summary has no interval")
	}
}
