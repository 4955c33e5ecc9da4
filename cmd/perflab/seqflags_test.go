package main

import (
	"math"
	"strings"
	"testing"
)

func TestParsePrecision(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  bool
	}{
		{"1%", 0.01, false},
		{" 0.5 % ", 0.005, false},
		{"0.02", 0.02, false},
		{"0", 0, true},
		{"100%", 0, true},
		{"1", 0, true},
		{"-1%", 0, true},
		{"x%", 0, true},
		{"NaN", 0, true},
		{"", 0, true},
	}
	for _, tt := range tests {
		got, err := parsePrecision(tt.in)
		if (err != nil) != tt.err || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("parsePrecision(%q) = %v, %v", tt.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--precision") {
			t.Errorf("parsePrecision(%q) error does not name the flag: %v", tt.in, err)
		}
	}
	var f seqFlags
	if err := (&f).check(); err != nil {
		t.Errorf("default flags: %v", err)
	}
	f.unit = "ns/op"
	if err := f.check(); err == nil || !strings.Contains(err.Error(), "--unit") {
		t.Errorf("--unit ns/op: error %v, want one naming --unit", err)
	}
}

func FuzzParsePrecision(f *testing.F) {
	for _, s := range []string{"1%", "0.01", "%", "1e-300%", "99.9999%", "-0", "Inf"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := parsePrecision(s)
		if err == nil && !(v > 0 && v < 1) {
			t.Fatalf("parsePrecision(%q) accepted %v", s, v)
		}
	})
}
