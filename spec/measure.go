package spec

import (
	"fmt"
	"strings"
)

// Measure says what a run measures besides wall time, from a mode's
// measure field or the --measure flag: "instructions" also counts
// instructions per op under valgrind's Cachegrind; "instructions,cache"
// adds Cachegrind's simulated cache misses per op. Wall time is always
// measured.
type Measure struct {
	Instructions bool // instructions/op under Cachegrind
	CacheSim     bool // simulated L1 and last-level cache misses per op (implies Instructions)
}

// ParseMeasure reads a comma-separated list of "time", "instructions" and
// "cache".
func ParseMeasure(s string) (Measure, error) {
	var m Measure
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "", "time":
		case "instructions":
			m.Instructions = true
		case "cache":
			m.Instructions, m.CacheSim = true, true
		default:
			return Measure{}, fmt.Errorf("measure %q: want a comma-separated list of time, instructions and cache (e.g. \"instructions\" or \"instructions,cache\")", s)
		}
	}
	return m, nil
}

// String is the canonical form ParseMeasure reads back.
func (m Measure) String() string {
	switch {
	case m.CacheSim:
		return "instructions,cache"
	case m.Instructions:
		return "instructions"
	}
	return "time"
}
