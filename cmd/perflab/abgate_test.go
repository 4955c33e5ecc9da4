package main

import (
	"slices"
	"testing"

	"github.com/perflab/perflab/compare"
)

// TestABGateUnit: with --fail-on and no --unit, sequential sampling
// decides on the gated time unit and must clear the gate's limits.
func TestABGateUnit(t *testing.T) {
	tests := []struct {
		unit, rules string
		wantUnit    string
		wantLimits  []float64
	}{
		{"", "sec/op>+1%", "sec/op", []float64{1.01}},
		{"", "B/op>+10%,cpu-sec/op>+2%", "cpu-sec/op", []float64{1.02}},
		{"sec/op", "cpu-sec/op>+2%", "sec/op", nil},
		{"", "instructions/op>+1%", "instructions/op", []float64{1.01}},
		{"", "B/op>+10%", "", nil},
		{"", "", "", nil},
	}
	for _, tt := range tests {
		var rules []compare.Threshold
		if tt.rules != "" {
			var err error
			if rules, err = compare.ParseThresholds(tt.rules); err != nil {
				t.Fatalf("ParseThresholds(%q): %v", tt.rules, err)
			}
		}
		unit, limits := abGateUnit(tt.unit, rules)
		if unit != tt.wantUnit || !slices.EqualFunc(limits, tt.wantLimits, func(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }) {
			t.Errorf("abGateUnit(%q, %q) = %q %v, want %q %v", tt.unit, tt.rules, unit, limits, tt.wantUnit, tt.wantLimits)
		}
	}
}
