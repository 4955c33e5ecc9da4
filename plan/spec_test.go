package plan

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/perflab/perflab/spec"
)

// TestForSpec lays out a spec's cells per mode: the mode's axis values,
// only the configs that run in it, in canonical order; an unknown mode is
// an error.
func TestForSpec(t *testing.T) {
	s, err := spec.Load(filepath.Join("testdata", "modes.toml"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		mode string
		want []string
	}{
		{"quick", []string{"BenchmarkA/n=1 @base", "BenchmarkA/n=4 @base", "BenchmarkB/n=1 @base", "BenchmarkB/n=4 @base"}},
		{"full", []string{
			"BenchmarkA/n=1 @base", "BenchmarkA/n=1 @old", "BenchmarkA/n=2 @base", "BenchmarkA/n=2 @old", "BenchmarkA/n=4 @base", "BenchmarkA/n=4 @old",
			"BenchmarkB/n=1 @base", "BenchmarkB/n=1 @old", "BenchmarkB/n=2 @base", "BenchmarkB/n=2 @old", "BenchmarkB/n=4 @base", "BenchmarkB/n=4 @old"}},
	}
	for _, tc := range tests {
		p, err := ForSpec(s, tc.mode, 3, 7)
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		var got []string
		for _, c := range p.Cells {
			got = append(got, c.String())
		}
		if !slices.Equal(got, tc.want) || p.Rounds != 3 || p.Seed != 7 {
			t.Errorf("ForSpec(%s) = %q, %d rounds, seed %d; want %q, 3 rounds, seed 7", tc.mode, got, p.Rounds, p.Seed, tc.want)
		}
	}
	if _, err := ForSpec(s, "nightly", 3, 7); err == nil {
		t.Error("ForSpec of an unknown mode succeeded")
	}
}
