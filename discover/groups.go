package discover

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// AxisGroup is one benchmark function's values along an analysis key.
type AxisGroup struct {
	Func   string
	Values []string // in first-seen order
}

// AxisGroups groups the benchmarks by function for analysis along key:
// each function whose leaves carry key=value levels gets its values. It
// fails when no benchmark has the key (naming the keys there are) or a
// value is not a number (knees and crossovers need a numeric axis).
func AxisGroups(benches []Bench, key string) (groups []AxisGroup, without []string, err error) {
	var keys []string
	for _, f := range Funcs(benches) {
		g := AxisGroup{Func: f}
		for _, b := range benches {
			if b.Func != f {
				continue
			}
			for _, l := range b.Levels {
				k, v, ok := strings.Cut(l, "=")
				if ok && !slices.Contains(keys, k) {
					keys = append(keys, k)
				}
				if ok && k == key && !slices.Contains(g.Values, v) {
					if _, err := strconv.ParseFloat(v, 64); err != nil {
						return nil, nil, fmt.Errorf("--axis %s: %s has the value %q, not a number; knees and crossovers need a numeric axis", key, b.Name(), v)
					}
					g.Values = append(g.Values, v)
				}
			}
		}
		if len(g.Values) > 0 {
			groups = append(groups, g)
		} else {
			without = append(without, f)
		}
	}
	if len(groups) == 0 {
		return nil, nil, fmt.Errorf("--axis %s: no benchmark has a %s=… level (their keys: %s)", key, key, strings.Join(keys, ", "))
	}
	return groups, without, nil
}
