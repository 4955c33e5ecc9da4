package findings

import (
	"slices"
	"strings"
	"testing"

	"github.com/perflab/perflab/store"
)

func TestBurstRounds(t *testing.T) {
	for _, tt := range []struct {
		name, value string
		want        []int
	}{
		{"none flagged", "9:1.2%/0.50 10:1.1%/0.52", nil},
		{"two flagged", "9:1.2%/0.50 10:14.0%/1.90* 11:1.3%/0.60 12:9.9%/2.10*", []int{10, 12}},
		{"unsorted and repeated", "12:9%/2* 10:9%/2* 12:9%/2*", []int{10, 12}},
		{"malformed entries ignored", "x:1%* 0:5%* -3:1%* 7* :* 8:5%/1*", []int{8}},
		{"empty", "", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			env := []store.KV{{Key: "cpu", Value: "x"}, {Key: NoiseKey, Value: tt.value}}
			if got := BurstRounds(env); !slices.Equal(got, tt.want) {
				t.Errorf("BurstRounds(%q) = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
	if got := BurstRounds([]store.KV{{Key: "noise-before", Value: "3:1%*"}}); got != nil {
		t.Errorf("another key's value was read: %v", got)
	}
}

// TestFindingsReportBurstRounds checks that flagged rounds are named in
// the run's notes and kept in its statistics.
func TestFindingsReportBurstRounds(t *testing.T) {
	var in Input
	in.Env = []store.KV{{Key: NoiseKey, Value: "3:9%/2.0* 4:1%/0.5 5:9%/2.1*"}}
	in.Results = results(abText(map[int]float64{10: 1, 100: 0.5, 1000: 0.25}))
	f := Of(in)
	if f.RoundsDone != 8 {
		t.Errorf("RoundsDone = %d, want all 8 rounds kept", f.RoundsDone)
	}
	if !slices.ContainsFunc(f.Warnings, func(w string) bool { return strings.Contains(w, "rounds 3, 5") && strings.Contains(w, "kept") }) {
		t.Errorf("no note names the flagged rounds: %q", f.Warnings)
	}
}

func FuzzBurstRounds(f *testing.F) {
	f.Add("9:1.2%/0.50 10:14.0%/1.90*")
	f.Add("x:* 99999999999999999999:1%*")
	f.Fuzz(func(t *testing.T, v string) {
		got := BurstRounds([]store.KV{{Key: NoiseKey, Value: v}})
		if !slices.IsSorted(got) {
			t.Errorf("not sorted: %v", got)
		}
		for _, n := range got {
			if n <= 0 {
				t.Errorf("round %d ≤ 0", n)
			}
		}
	})
}

func TestIsBurst(t *testing.T) {
	quiet := []float64{0.01, 0.012, 0.009, 0.011}
	tests := []struct {
		cv      float64
		earlier []float64
		want    bool
	}{
		{0.02, quiet, false},                       // below the 5% floor
		{0.06, quiet, true},                        // above the floor and 3× the median
		{0.06, nil, true},                          // no history: the floor alone
		{0.04, nil, false},                         // no history, below the floor
		{0.08, []float64{0.03, 0.04, 0.05}, false}, // noisy all along: not a burst
		{0.13, []float64{0.03, 0.04, 0.05}, true},
	}
	for _, tc := range tests {
		if got := IsBurst(tc.cv, tc.earlier); got != tc.want {
			t.Errorf("IsBurst(%g, %v) = %v, want %v", tc.cv, tc.earlier, got, tc.want)
		}
	}
}
