// Package discover finds the benchmarks of any Go package and describes
// them as an experiment: their names, their sub-benchmark levels and, where
// those levels are key=value pairs laid out alike, the axes they sweep.
package discover

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/perflab/perflab/driver/gotest"
	"github.com/perflab/perflab/plan"
)

// Bench is one leaf benchmark: its top-level function and its levels.
type Bench struct {
	Func   string   // BenchmarkEncode
	Levels []string // ["size=64", "codec=json"]
	// Package is the package pattern the benchmark belongs to, relative
	// to the module directory, in a selection over several packages; ""
	// for the one package of the spec.
	Package string
}

// Name is the full benchmark path, e.g. BenchmarkEncode/size=64/codec=json.
func (b Bench) Name() string { return strings.Join(append([]string{b.Func}, b.Levels...), "/") }

// FullName is Name followed by the package, when the benchmark names
// one: "BenchmarkX (./codec)".
func (b Bench) FullName() string {
	if b.Package != "" {
		return b.Name() + " (" + b.Package + ")"
	}
	return b.Name()
}

// ParseName reads a benchmark's full name as go test prints it at
// GOMAXPROCS 1 (so with no -N suffix): the top-level function, then each
// sub-benchmark level between '/', taken as printed, whatever it holds
// ("equal,_len=1,_strict", "Rank(1)", "log-go", "x_y#01"). It fails on a
// name go test never prints: one that does not begin with "Benchmark", has
// an empty level, or holds a space or an unprintable character (go test
// writes those as '_' and escapes).
func ParseName(name string) (Bench, error) {
	elems := strings.Split(name, "/")
	switch {
	case !strings.HasPrefix(name, "Benchmark"):
		return Bench{}, fmt.Errorf("benchmark name %q does not begin with Benchmark", name)
	case !utf8.ValidString(name):
		return Bench{}, fmt.Errorf("benchmark name %q is not UTF-8", name)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsSpace(r) || !strconv.IsPrint(r) }):
		return Bench{}, fmt.Errorf("benchmark name %q holds a space or an unprintable character, which go test never prints", name)
	case slices.Contains(elems, ""):
		return Bench{}, fmt.Errorf("benchmark name %q has an empty level", name)
	}
	return Bench{Func: elems[0], Levels: elems[1:]}, nil
}

// Listing is the benchmarks a selection runs and those that skipped
// themselves.
type Listing struct {
	Benches []Bench       // the leaf benchmarks that ran, in order
	Skipped []gotest.Skip // the benchmarks that called b.Skip, with their messages
}

// List runs the test binary once over the benchmarks matching regex (one
// iteration each) and returns every leaf benchmark it ran, in order. See
// [Scan] for the benchmarks that skipped themselves; when every selected
// benchmark skipped itself, List fails with a *[SkippedError].
func List(ctx context.Context, binary, dir, regex string) ([]Bench, error) {
	l, err := Scan(ctx, binary, dir, regex)
	if err != nil {
		return nil, err
	}
	return l.Benches, nil
}

// Scan runs the test binary once over the benchmarks matching regex (one
// iteration each, GOMAXPROCS 1, verbosely) and returns the leaf benchmarks
// that ran and those that skipped themselves (b.Skip), each with its
// message. Leaves at any depth are kept side by side: a plain BenchmarkX
// beside BenchmarkY/a/b. When nothing ran but something skipped, Scan
// fails with a *[SkippedError] that says why; when nothing matched, its
// error names the package's benchmarks.
func Scan(ctx context.Context, binary, dir, regex string) (*Listing, error) {
	if regex == "" {
		regex = "."
	}
	if _, err := regexp.Compile(regex); err != nil {
		return nil, fmt.Errorf("-bench %q is not a regular expression: %w", regex, err)
	}
	gl, err := gotest.ListLeaves(ctx, gotest.Invocation{Binary: binary, Dir: dir, Bench: regex})
	if err != nil {
		if e := noMatch(ctx, binary, dir, regex); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("listing benchmarks matching %q: %w", regex, err)
	}
	out := &Listing{Skipped: gl.Skipped}
	for _, n := range gl.Ran {
		b, err := ParseName(n)
		if err != nil {
			return nil, fmt.Errorf("listing benchmarks matching %q: %w", regex, err)
		}
		out.Benches = append(out.Benches, b)
	}
	if len(out.Benches) == 0 {
		if len(out.Skipped) > 0 {
			return nil, &SkippedError{Regex: regex, Skipped: out.Skipped}
		}
		if e := noMatch(ctx, binary, dir, regex); e != nil {
			return nil, e
		}
		return nil, &NoMatchError{fmt.Sprintf("no benchmarks match %q", regex)}
	}
	return out, nil
}

// A NoMatchError is a package none of whose benchmarks the selection
// matches (or which has none): nothing to run there, as against a
// package whose benchmarks failed to list.
type NoMatchError struct{ msg string }

func (e *NoMatchError) Error() string { return e.msg }

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
		return &NoMatchError{fmt.Sprintf("-bench %q: the package has no benchmarks", regex)}
	}
	if len(names) > 12 {
		names = append(names[:12], fmt.Sprintf("… (%d in all)", len(names)))
	}
	return &NoMatchError{fmt.Sprintf("-bench %q matches no benchmark; the package has: %s", regex, strings.Join(names, ", "))}
}

// Cells returns one cell per benchmark per config.
func Cells(benches []Bench, configs []string) []plan.Cell {
	var cells []plan.Cell
	for _, b := range benches {
		for _, c := range configs {
			cells = append(cells, plan.Cell{Bench: b.Func, Levels: b.Levels, Config: c, Package: b.Package})
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
// benchmarks); otherwise it says why the benchmarks are not a sweep, for
// any mix of names: plain benchmarks beside ones with levels, levels that
// are not key=value, levels at different depths.
func Axes(benches []Bench) ([]Axis, error) {
	if len(benches) == 0 {
		return nil, errors.New("no benchmarks")
	}
	keys := make([][]string, len(benches))
	for i, b := range benches {
		k, err := keysOf(b)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	for i, b := range benches {
		if !slices.Equal(keys[i], keys[0]) {
			return nil, fmt.Errorf("%s and %s have different sub-benchmark keys (%s; %s)", benches[0].Name(), b.Name(), keyList(keys[0]), keyList(keys[i]))
		}
	}
	axes := make([]Axis, len(keys[0]))
	for i, k := range keys[0] {
		axes[i].Key = k
	}
	funcs := map[string]bool{}
	combos := map[string]bool{}
	for _, b := range benches {
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
		if want > len(combos) {
			break // more combinations than benchmarks; stop before overflowing
		}
	}
	if want != len(combos) {
		return nil, fmt.Errorf("the benchmarks are not a full cross product of their keys (%d of %d combinations exist)", len(combos), want)
	}
	return axes, nil
}

// keysOf returns the keys of a benchmark's key=value levels, or an error
// naming a level that is not key=value or a key that repeats.
func keysOf(b Bench) ([]string, error) {
	keys := []string{}
	for _, l := range b.Levels {
		k, _, ok := strings.Cut(l, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s has a sub-benchmark level (%q) that is not key=value", b.Name(), l)
		}
		if slices.Contains(keys, k) {
			return nil, fmt.Errorf("%s repeats the sub-benchmark key %q", b.Name(), k)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

func keyList(keys []string) string {
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
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
