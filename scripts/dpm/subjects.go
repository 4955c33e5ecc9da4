package main

import (
	"fmt"
	"go/format"
	"sort"
	"strings"
)

// A module is a real module from the module proxy made into a subject
// repository: its release with a benchmark file of ours committed as the
// base, then one commit per change on top of that base.
type module struct {
	Name    string // short name: the subjects are Name/change
	Path    string // module path
	Version string
	// BenchFile is committed with the base: benchmarks that use only the
	// module's API, so the same file builds at every change.
	BenchFile, BenchText string
	Benchmarks           []string // the benchmarks of BenchFile, in its order
	// Planted is the file a planted change adds: plantedPass and the
	// variables its sites read, written by plantedFile.
	Planted string
	// PassFunc is plantedPass's source, for the module's language
	// version (no generics, no min).
	PassFunc string
	// Sites are the edits a planted change makes to the hot functions.
	Sites []site
	// Knobs are the variables the sites read, each the size of some
	// extra work, with the value a probe measures it at.
	Knobs []knob
	// LayoutFile and LayoutText are the layout-only change: functions
	// that never run, in a file whose name sorts before the package's
	// other files, so the default link order puts them before the hot
	// code and moves it.
	LayoutFile, LayoutText string
}

// A site is one edit of a planted change: Call is inserted as the first
// statement after the line Anchor of File.
type site struct {
	File, Anchor, Call string
}

// A knob is a variable of the planted file; Probe is the value its
// measurement of cost per unit uses.
type knob struct {
	Name  string
	Probe int
}

// change is one commit on top of the base: a planted slowdown of Target
// (a fraction of instructions/op; 0.05 is +5%) or, with Target 0, the
// layout-only change.
type change struct {
	Name   string
	Target float64
}

var changes = []change{
	{"slow2", 0.02},
	{"slow5", 0.05},
	{"slow10", 0.10},
	{"layout", 0},
}

// benchRegex selects the benchmarks of every BenchFile.
const benchRegex = "^BenchmarkAB"

var modules = []module{gjsonModule, bitsetModule}

// moduleNamed returns the module called name.
func moduleNamed(name string) (module, bool) {
	for _, m := range modules {
		if m.Name == name {
			return m, true
		}
	}
	return module{}, false
}

// plantedFile writes the planted file of m with the knobs' values.
func plantedFile(m module, values map[string]int) string {
	pkg := packageName(m)
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	b.WriteString("// This file is a planted slowdown for measuring how fast a benchmark\n")
	b.WriteString("// tool decides: the sites call plantedPass on their input with a length\n")
	b.WriteString("// set by the variables below, sized by Cachegrind's instructions/op.\n\n")
	b.WriteString("// Sizes of the planted work: variables, not constants, so the compiler\n")
	b.WriteString("// makes the same code whatever their values.\nvar (\n")
	names := make([]string, 0, len(values))
	for name := range values {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(&b, "\t%s = %d\n", name, values[name])
	}
	b.WriteString(")\n\n")
	b.WriteString("// plantedSink keeps every pass's result, so the compiler cannot drop it.\nvar plantedSink uint64\n\n")
	b.WriteString(m.PassFunc)
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return b.String() // the go build that follows says what is wrong
	}
	return string(src)
}

// packageName is the package clause of m's benchmark file.
func packageName(m module) string {
	line, _, _ := strings.Cut(m.BenchText, "\n")
	return strings.TrimPrefix(line, "package ")
}

// applySites inserts the planted calls into the sources: src maps each
// site's file to its text. It fails when an anchor is missing or not
// unique, which a new release of the module would cause.
func applySites(m module, src map[string]string) (map[string]string, error) {
	out := map[string]string{}
	for _, s := range m.Sites {
		text, ok := out[s.File]
		if !ok {
			text = src[s.File]
		}
		if n := strings.Count(text, s.Anchor+"\n"); n != 1 {
			return nil, fmt.Errorf("%s %s: %s: the line %q occurs %d times, want once", m.Path, m.Version, s.File, s.Anchor, n)
		}
		out[s.File] = strings.Replace(text, s.Anchor+"\n", s.Anchor+"\n\t"+s.Call+"\n", 1)
	}
	return out, nil
}

var gjsonModule = module{
	Name: "gjson", Path: "github.com/tidwall/gjson", Version: "v1.17.3",
	BenchFile: "dpm_bench_test.go",
	BenchText: `package gjson

// Benchmarks of Get on three documents, for measuring how fast a
// benchmark tool decides. They use only Get and Result.Int.

import (
	"strconv"
	"strings"
	"testing"
)

// abDoc is a JSON document of n records with nested fields, then a
// "tail" object.
func abDoc(n int) string {
	var b strings.Builder
	b.WriteString(` + "`" + `{"records":[` + "`" + `)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(` + "`" + `{"id":` + "`" + ` + strconv.Itoa(i) + ` + "`" + `,"name":"record ` + "`" + ` + strconv.Itoa(i) + ` + "`" + `","tags":["a","b","c"],` + "`" + `)
		b.WriteString(` + "`" + `"nested":{"depth":{"value":` + "`" + ` + strconv.Itoa(i*7) + ` + "`" + `,"text":"some \"escaped\" text \u00e9"}},"ok":true}` + "`" + `)
	}
	b.WriteString(` + "`" + `],"tail":{"deep":{"deeper":{"value":42}}}}` + "`" + `)
	return b.String()
}

var (
	abSmall  = abDoc(3)
	abMedium = abDoc(80)
	abLarge  = abDoc(800)
	abSink   int64
)

func BenchmarkABGetSmall(b *testing.B) {
	for i := 0; i < b.N; i++ {
		abSink += Get(abSmall, "records.2.nested.depth.value").Int()
	}
}

func BenchmarkABGetMedium(b *testing.B) {
	for i := 0; i < b.N; i++ {
		abSink += Get(abMedium, "records.79.nested.depth.value").Int()
	}
}

func BenchmarkABGetLarge(b *testing.B) {
	for i := 0; i < b.N; i++ {
		abSink += Get(abLarge, "tail.deep.deeper.value").Int()
	}
}
`,
	Benchmarks: []string{"BenchmarkABGetSmall", "BenchmarkABGetMedium", "BenchmarkABGetLarge"},
	Planted:    "planted.go",
	PassFunc: `// plantedPass runs FNV-1a over n bytes of s, from its start and around
// again.
func plantedPass(s string, n int) uint64 {
	h := uint64(14695981039346656037)
	for n > 0 && len(s) > 0 {
		k := n
		if k > len(s) {
			k = len(s)
		}
		for i := 0; i < k; i++ {
			h ^= uint64(s[i])
			h *= 1099511628211
		}
		n -= k
	}
	return h
}
`,
	Sites: []site{{
		File:   "gjson.go",
		Anchor: "func Get(json, path string) Result {",
		Call:   "plantedSink += plantedPass(json, len(json)*plantedPerMillion/1000000+plantedBytes)",
	}},
	Knobs:      []knob{{"plantedPerMillion", 200000}, {"plantedBytes", 2000}},
	LayoutFile: "a_layout.go",
	LayoutText: layoutText("gjson"),
}

var bitsetModule = module{
	Name: "bitset", Path: "github.com/bits-and-blooms/bitset", Version: "v1.13.0",
	BenchFile: "dpm_bench_test.go",
	BenchText: `package bitset

// Benchmarks of in-place set operations and of iteration, for measuring
// how fast a benchmark tool decides. They use only the module's API.

import "testing"

// abSets returns two sets of n bits, one with every third bit set, the
// other with every fifth.
func abSets(n uint) (*BitSet, *BitSet) {
	x, y := New(n), New(n)
	for i := uint(0); i < n; i += 3 {
		x.Set(i)
	}
	for i := uint(0); i < n; i += 5 {
		y.Set(i)
	}
	return x, y
}

var abSink uint

func BenchmarkABInPlaceUnion(b *testing.B) {
	x, y := abSets(1 << 16)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.InPlaceUnion(y)
	}
}

func BenchmarkABInPlaceIntersection(b *testing.B) {
	x, y := abSets(1 << 16)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x.InPlaceIntersection(y)
	}
}

func BenchmarkABNextSetMany(b *testing.B) {
	x, _ := abSets(1 << 14)
	buf := make([]uint, 256)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j, got := x.NextSetMany(0, buf)
		for len(got) > 0 {
			abSink += uint(len(got))
			j, got = x.NextSetMany(j+1, buf)
		}
	}
}
`,
	Benchmarks: []string{"BenchmarkABInPlaceUnion", "BenchmarkABInPlaceIntersection", "BenchmarkABNextSetMany"},
	Planted:    "planted.go",
	PassFunc: `// plantedPass runs FNV-1a over n words of s, from its start and around
// again.
func plantedPass(s []uint64, n int) uint64 {
	h := uint64(14695981039346656037)
	for n > 0 && len(s) > 0 {
		k := n
		if k > len(s) {
			k = len(s)
		}
		for _, w := range s[:k] {
			h ^= w
			h *= 1099511628211
		}
		n -= k
	}
	return h
}
`,
	Sites: []site{
		{
			File:   "bitset.go",
			Anchor: "func (b *BitSet) InPlaceUnion(compare *BitSet) {",
			Call:   "plantedSink += plantedPass(compare.set, len(compare.set)*plantedUnion/1000000)",
		},
		{
			File:   "bitset.go",
			Anchor: "func (b *BitSet) InPlaceIntersection(compare *BitSet) {",
			Call:   "plantedSink += plantedPass(compare.set, len(compare.set)*plantedIntersection/1000000)",
		},
		{
			File:   "bitset.go",
			Anchor: "func (b *BitSet) NextSetMany(i uint, buffer []uint) (uint, []uint) {",
			Call:   "plantedSink += plantedPass(b.set, cap(buffer)*plantedMany/1000000)",
		},
	},
	Knobs:      []knob{{"plantedUnion", 200000}, {"plantedIntersection", 200000}, {"plantedMany", 200000}},
	LayoutFile: "a_layout.go",
	LayoutText: layoutText("bitset"),
}

// layoutText is a file of functions that never run: only an init calls
// them, when an environment variable nobody sets says so. They are kept
// out of line, so they take room in the text before the package's code.
func layoutText(pkg string) string {
	return "package " + pkg + `

// This file moves the package's code and changes no work: its functions
// run only when DPM_LAYOUT_NEVER_SET is "yes", which nothing sets.

import "os"

//go:noinline
func layoutRotate(xs []uint32, k uint) []uint32 {
	out := make([]uint32, len(xs))
	for i, x := range xs {
		out[(i+int(k))%len(xs)] = x<<(k%32) | x>>(32-k%32)
	}
	return out
}

//go:noinline
func layoutSort(xs []uint32) {
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
}

//go:noinline
func layoutCount(s string) (n int) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{', '[':
			n += 2
		case '}', ']':
			n--
		case '"':
			n += 3
		}
	}
	return n
}

var layoutSink uint32

func init() {
	if os.Getenv("DPM_LAYOUT_NEVER_SET") == "yes" {
		xs := layoutRotate([]uint32{3, 1, 2}, 5)
		layoutSort(xs)
		layoutSink = xs[0] + uint32(layoutCount("{}"))
	}
}
`
}
