package analysis

import (
	"math"
	"testing"
)

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
