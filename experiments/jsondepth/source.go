package jsondepth

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

//go:generate go run ./internal/gendepth -depth 12 -out types_gen.go
//go:generate go run github.com/mailru/easyjson/easyjson@v0.9.2 -all -no_std_marshalers -output_filename types_easyjson.go types_gen.go

// MaxFanout is the largest fan-out New accepts.
const MaxFanout = 3

// Source is the deterministic stream of field values the fill functions
// draw from: a PCG generator seeded with the document's seed, so the same
// seed always yields the same document.
type Source struct{ r *rand.Rand }

// NewSource returns a Source seeded with seed.
func NewSource(seed uint64) *Source {
	return &Source{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// words are the plain words names and tags are built from.
var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"}

// extras are the fragments that make strings need escaping: HTML
// characters, quotes, a backslash, a tab, non-ASCII letters and a line
// separator that encoding/json escapes and other libraries may not.
var extras = []string{"<b>", "a&b", `"q"`, `c:\dir`, "tab\there", "café", "日本語", "x\u2028y", "1 > 0"}

// Int returns an int in [-1e12, 1e12].
func (s *Source) Int() int { return int(s.r.Int64N(2e12+1) - 1e12) }

// IntPtr returns a pointer to a new Int.
func (s *Source) IntPtr() *int64 {
	v := int64(s.Int())
	return &v
}

// Float returns a float64 in [-5000, 5000) with full 53-bit precision.
func (s *Source) Float() float64 { return s.r.Float64()*1e4 - 5e3 }

// Bool returns true or false.
func (s *Source) Bool() bool { return s.r.IntN(2) == 1 }

// Word returns one plain word.
func (s *Source) Word() string { return words[s.r.IntN(len(words))] }

// Words returns one to three words, never nil.
func (s *Source) Words() []string {
	out := make([]string, 1+s.r.IntN(3))
	for i := range out {
		out[i] = s.Word()
	}
	return out
}

// Text returns two or three words; one string in three also carries a
// fragment that needs escaping.
func (s *Source) Text() string {
	parts := []string{s.Word(), s.Word()}
	if s.r.IntN(3) == 0 {
		parts = append(parts, extras[s.r.IntN(len(extras))])
	}
	return strings.Join(parts, " ")
}

// New returns a document of the given depth (1..MaxDepth) and fan-out
// (1..MaxFanout) filled from seed: a *L<depth>.
func New(depth, fanout int, seed uint64) (any, error) {
	doc := Zero(depth)
	if doc == nil {
		return nil, fmt.Errorf("jsondepth: depth %d out of range; use 1..%d", depth, MaxDepth)
	}
	if fanout < 1 || fanout > MaxFanout {
		return nil, fmt.Errorf("jsondepth: fanout %d out of range; use 1..%d", fanout, MaxFanout)
	}
	fill(doc, NewSource(seed), fanout)
	return doc, nil
}

// box returns a function that copies *p into a new interface value on
// every call: the struct value itself, not the pointer, so the conversion
// allocates a copy as passing a struct to an any parameter does.
func box[T any](p *T) func() any {
	return func() any { return *p }
}
