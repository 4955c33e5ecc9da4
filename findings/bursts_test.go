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
			if got := BurstRounds(env, nil); !slices.Equal(got, tt.want) {
				t.Errorf("BurstRounds(%q) = %v, want %v", tt.value, got, tt.want)
			}
		})
	}
	if got := BurstRounds([]store.KV{{Key: "noise-before", Value: "3:1%*"}}, nil); got != nil {
		t.Errorf("another key's value was read: %v", got)
	}
}

// TestBurstRoundsTyped judges the noise stored with each round by IsBurst,
// each round against the rounds measured before it, and finds the rounds
// an older version flagged in its environment key for the same noise.
func TestBurstRoundsTyped(t *testing.T) {
	noise := map[int]float64{9: 0.012, 10: 0.14, 11: 0.013, 12: 0.099, 13: 0.03}
	var rounds []store.RoundInfo
	for r := 1; r <= 13; r++ {
		ri := store.RoundInfo{Round: r} // the initial pass: no noise measured
		if cv, ok := noise[r]; ok {
			ri.Noise = &store.Noise{CV: cv, Load: 0.5}
		}
		rounds = append(rounds, ri)
	}
	// 10: above the floor with too little history; 12: over 3× the
	// median (1.3%) of rounds 9–11; 13: below the floor.
	want := []int{10, 12}
	if got := BurstRounds(nil, rounds); !slices.Equal(got, want) {
		t.Errorf("BurstRounds of typed noise = %v, want %v", got, want)
	}
	old := []store.KV{{Key: NoiseKey, Value: "9:1.2%/0.50 10:14.0%/0.50* 11:1.3%/0.50 12:9.9%/0.50* 13:3.0%/0.50"}}
	if got := BurstRounds(old, rounds[:8]); !slices.Equal(got, want) {
		t.Errorf("BurstRounds of the same noise as an old run recorded it = %v, want %v", got, want)
	}
	// A run with typed noise is judged on it, whatever its environment says.
	if got := BurstRounds([]store.KV{{Key: NoiseKey, Value: "3:9%/2.0*"}}, rounds); !slices.Equal(got, want) {
		t.Errorf("BurstRounds with both = %v, want %v from the typed noise", got, want)
	}
	if got := BurstRounds(nil, rounds[:8]); got != nil {
		t.Errorf("rounds without noise flagged %v", got)
	}
}

// TestFindingsReportBurstRounds checks that flagged rounds are named in
// the run's notes and kept in its statistics.
func TestFindingsReportBurstRounds(t *testing.T) {
	typed := []store.RoundInfo{{Round: 3, Noise: &store.Noise{CV: 0.09}}, {Round: 4, Noise: &store.Noise{CV: 0.01}}, {Round: 5, Noise: &store.Noise{CV: 0.09}}}
	for _, tc := range []struct {
		name   string
		env    []store.KV
		rounds []store.RoundInfo
	}{
		{"recorded by an older version", []store.KV{{Key: NoiseKey, Value: "3:9%/2.0* 4:1%/0.5 5:9%/2.1*"}}, nil},
		{"noise stored with the rounds", nil, typed},
	} {
		var in Input
		in.Env, in.Rounds = tc.env, tc.rounds
		in.Results = results(abText(map[int]float64{10: 1, 100: 0.5, 1000: 0.25}))
		f := Of(in)
		if f.RoundsDone != 8 {
			t.Errorf("%s: RoundsDone = %d, want all 8 rounds kept", tc.name, f.RoundsDone)
		}
		if !slices.ContainsFunc(f.Warnings, func(w string) bool { return strings.Contains(w, "rounds 3, 5") && strings.Contains(w, "kept") }) {
			t.Errorf("%s: no note names the flagged rounds: %q", tc.name, f.Warnings)
		}
	}
}

func FuzzBurstRounds(f *testing.F) {
	f.Add("9:1.2%/0.50 10:14.0%/1.90*")
	f.Add("x:* 99999999999999999999:1%*")
	f.Fuzz(func(t *testing.T, v string) {
		got := BurstRounds([]store.KV{{Key: NoiseKey, Value: v}}, nil)
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
		{0.07, []float64{0.01, 0.03, 0.01, 0.03}, true}, // an even count's median is the mean of the middle two, 2%
		{0.055, []float64{0.01, 0.03, 0.01, 0.03}, false},
	}
	for _, tc := range tests {
		if got := IsBurst(tc.cv, tc.earlier); got != tc.want {
			t.Errorf("IsBurst(%g, %v) = %v, want %v", tc.cv, tc.earlier, got, tc.want)
		}
	}
}
