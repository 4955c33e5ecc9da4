package unit

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/perflab/perflab/spec"
)

// fileMeta reads the unit metadata lines of a benchmark file.
func fileMeta(t *testing.T, name string) []benchfmt.UnitMetadata {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []benchfmt.UnitMetadata
	r := benchfmt.NewReader(f, name)
	for r.Scan() {
		if m, ok := r.Result().(*benchfmt.UnitMetadata); ok {
			out = append(out, *m)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestBetter(t *testing.T) {
	declared := fileMeta(t, "declared.txt")
	tests := []struct {
		name  string
		table *Table
		want  map[string]Direction
	}{
		{"no metadata: benchfmt's defaults, then rates higher and the rest lower", nil, map[string]Direction{
			"sec/op": Lower, "ns/op": Lower, "B/op": Lower, "allocs/op": Lower,
			"B/s": Higher, "MB/s": Higher, "req/s": Higher, "ops/s": Higher,
			"hits/op": Lower, "instructions/op": Lower, "p99-sec": Lower, "gc-cycles/op": Lower,
		}},
		{"a file's Unit lines, tidied (MB/s is B/s)", New(declared), map[string]Direction{
			"hits/op": Higher, "MB/s": Lower, "B/s": Lower, "misses/op": Lower, "sec/op": Lower, "req/s": Higher,
		}},
		{"a later list overrides an earlier one", New(declared, []benchfmt.UnitMetadata{Meta("hits/op", "Lower"), Meta("MB/s", "HIGHER")}), map[string]Direction{
			"hits/op": Lower, "B/s": Higher,
		}},
		{"perflab's own units", New(Own()), map[string]Direction{
			CPU: Lower, "gc-cycles/op": Lower, "gc-pause-sec/op": Lower, "mutex-wait-sec/op": Lower, "heap-objects/op": Lower,
		}},
		{"a spec's [[unit]] tables", New(Declared(&spec.Spec{Units: []spec.Unit{{Name: "hits/op", Better: "higher"}, {Name: "rps", Better: "higher"}, {Name: "ops/s", Better: "lower"}}})), map[string]Direction{
			"hits/op": Higher, "rps": Higher, "ops/s": Lower,
		}},
	}
	for _, tt := range tests {
		for unit, want := range tt.want {
			if got := tt.table.Better(unit); got != want {
				t.Errorf("%s: %s is %v, want %v", tt.name, unit, got, want)
			}
			if got := tt.table.HigherIsBetter(unit); got != (want == Higher) {
				t.Errorf("%s: HigherIsBetter(%s) = %v", tt.name, unit, got)
			}
		}
	}
	if Declared(nil) != nil {
		t.Error("Declared(nil) should be empty")
	}
}

func TestOrder(t *testing.T) {
	units := []string{"allocs/op", "x-sec/op", "B/op", "B/s", "sec/op", "a-sec/op"}
	slices.SortStableFunc(units, Compare)
	want := []string{"sec/op", "B/s", "a-sec/op", "x-sec/op", "B/op", "allocs/op"}
	if !slices.Equal(units, want) {
		t.Errorf("order %v, want %v", units, want)
	}
	if Class("B/op") == Class("sec/op") {
		t.Error("bytes and seconds should scale differently")
	}
}
