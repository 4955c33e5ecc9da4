// Package discover finds the benchmarks of any Go package and describes
// them as an experiment: their names, their sub-benchmark levels and, where
// those levels are key=value pairs laid out alike, the axes they sweep.
package discover

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/plan"
)

// Bench is one leaf benchmark: its top-level function and its levels.
type Bench struct {
	Func   string   // BenchmarkEncode
	Levels []string // ["size=64", "codec=json"]
}

// Name is the full benchmark path, e.g. BenchmarkEncode/size=64/codec=json.
func (b Bench) Name() string { return strings.Join(append([]string{b.Func}, b.Levels...), "/") }

// List runs the test binary once over the benchmarks matching regex (one
// iteration each) and returns every leaf benchmark it ran, in order.
func List(ctx context.Context, binary, dir, regex string) ([]Bench, error) {
	if regex == "" {
		regex = "."
	}
	if _, err := regexp.Compile(regex); err != nil {
		return nil, fmt.Errorf("-bench %q is not a regular expression: %w", regex, err)
	}
	res, err := gotest.Run(ctx, gotest.Invocation{Binary: binary, Dir: dir, Bench: regex, Benchtime: "1x", CPU: []int{1}})
	if err != nil && len(res) == 0 {
		if e := noMatch(ctx, binary, dir, regex); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("listing benchmarks matching %q: %w", regex, err)
	}
	var out []Bench
	seen := map[string]bool{}
	for _, r := range res {
		n := benchname.Parse("Benchmark" + string(r.Name.Full()))
		b := Bench{Func: n.Base}
		for _, p := range n.Parts {
			if p.Key != "" {
				b.Levels = append(b.Levels, p.Key+"="+p.Value)
			} else {
				b.Levels = append(b.Levels, p.Value)
			}
		}
		if !seen[b.Name()] {
			seen[b.Name()] = true
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		if e := noMatch(ctx, binary, dir, regex); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("no benchmarks match %q", regex)
	}
	return out, nil
}

// noMatch returns an error naming the package's benchmarks when no
// top-level benchmark matches the first element of regex, and nil otherwise.
func noMatch(ctx context.Context, binary, dir, regex string) error {
	names, err := gotest.ListBenchmarks(ctx, gotest.Invocation{Binary: binary, Dir: dir})
	if err != nil {
		return nil
	}
	first, _, _ := strings.Cut(regex, "/")
	re, err := regexp.Compile(first)
	if err != nil {
		return nil
	}
	for _, n := range names {
		if re.MatchString(n) {
			return nil
		}
	}
	if len(names) == 0 {
		return fmt.Errorf("-bench %q: the package has no benchmarks", regex)
	}
	if len(names) > 12 {
		names = append(names[:12], fmt.Sprintf("… (%d in all)", len(names)))
	}
	return fmt.Errorf("-bench %q matches no benchmark; the package has: %s", regex, strings.Join(names, ", "))
}

// Cells returns one cell per benchmark per config.
func Cells(benches []Bench, configs []string) []plan.Cell {
	var cells []plan.Cell
	for _, b := range benches {
		for _, c := range configs {
			cells = append(cells, plan.Cell{Bench: b.Func, Levels: b.Levels, Config: c})
		}
	}
	return cells
}

// Axis is a sub-benchmark key and its values in first-seen order.
type Axis struct {
	Key    string
	Values []string
}

// Axes derives the axes of a set of benchmarks. It succeeds when every
// benchmark has the same keys at the same levels, and every combination of
// values exists (so the spec's cross product selects exactly these
// benchmarks); otherwise it says why the benchmarks are not a sweep.
func Axes(benches []Bench) ([]Axis, error) {
	if len(benches) == 0 {
		return nil, fmt.Errorf("no benchmarks")
	}
	keys := keysOf(benches[0])
	if keys == nil {
		return nil, fmt.Errorf("%s has a sub-benchmark level that is not key=value", benches[0].Name())
	}
	axes := make([]Axis, len(keys))
	for i, k := range keys {
		axes[i].Key = k
	}
	funcs := map[string]bool{}
	combos := map[string]bool{}
	for _, b := range benches {
		if k := keysOf(b); !slices.Equal(k, keys) {
			return nil, fmt.Errorf("%s and %s have different sub-benchmark keys", benches[0].Name(), b.Name())
		}
		funcs[b.Func] = true
		combos[b.Name()] = true
		for i, l := range b.Levels {
			_, v, _ := strings.Cut(l, "=")
			if !slices.Contains(axes[i].Values, v) {
				axes[i].Values = append(axes[i].Values, v)
			}
		}
	}
	want := len(funcs)
	for _, a := range axes {
		want *= len(a.Values)
	}
	if want != len(combos) {
		return nil, fmt.Errorf("the benchmarks are not a full cross product of their keys (%d of %d combinations exist)", len(combos), want)
	}
	return axes, nil
}

func keysOf(b Bench) []string {
	keys := []string{}
	for _, l := range b.Levels {
		k, _, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil
		}
		keys = append(keys, k)
	}
	return keys
}

// Funcs returns the distinct top-level benchmark functions, in order.
func Funcs(benches []Bench) []string {
	var out []string
	for _, b := range benches {
		if !slices.Contains(out, b.Func) {
			out = append(out, b.Func)
		}
	}
	return out
}

// Numeric reports whether every value of the axis is a number.
func (a Axis) Numeric() bool {
	for _, v := range a.Values {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			return false
		}
	}
	return len(a.Values) > 0
}
