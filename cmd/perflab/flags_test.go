package main

import (
	"slices"
	"strings"
	"testing"
)

func TestParseCPU(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		err  bool
	}{
		{"", nil, false},
		{"1", []int{1}, false},
		{"1,2,4", []int{1, 2, 4}, false},
		{" 2 , 8 ", []int{2, 8}, false},
		{"0", nil, true},
		{"-1", nil, true},
		{"1,,2", nil, true},
		{"x", nil, true},
		{"99999999", nil, true},
	}
	for _, tt := range tests {
		got, err := parseCPU(tt.in)
		if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
			t.Errorf("parseCPU(%q) = %v, %v", tt.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--cpu") {
			t.Errorf("parseCPU(%q) error does not name the flag: %v", tt.in, err)
		}
	}
}

func FuzzParseCPU(f *testing.F) {
	for _, s := range []string{"", "1", "1,2,4", "0", "a,b", ",", "1,-2", "65536,65537"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := parseCPU(s)
		if err != nil {
			return
		}
		for _, n := range got {
			if n < 1 {
				t.Fatalf("parseCPU(%q) accepted %d", s, n)
			}
		}
	})
}
