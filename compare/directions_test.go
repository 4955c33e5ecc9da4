package compare

import (
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestDirections(t *testing.T) {
	meta := []benchfmt.UnitMetadata{
		{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: "hits/op", Key: "better"}, Value: "higher"},
		{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: "req/s", Key: "better"}, Value: "higher"},
		{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: "MB/s", Key: "better"}, Value: "lower"},
		{UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: "B/op", Key: "assume"}, Value: "nothing"},
	}
	dir := Directions(meta)
	for unit, want := range map[string]bool{"hits/op": true, "req/s": true, "MB/s": false, "B/op": false, "sec/op": false, "misses/s": false} {
		if got := dir(unit); got != want {
			t.Errorf("%s: higher is better = %v, want %v", unit, got, want)
		}
	}
	// Without metadata nothing is guessed from the name.
	for unit, want := range map[string]bool{"hits/op": false, "ops/s": false, "MB/s": true} {
		if got := HigherIsBetter(unit); got != want {
			t.Errorf("default %s: %v, want %v", unit, got, want)
		}
	}
}
