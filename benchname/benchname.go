// Package benchname reads Go benchmark names: the base name, the
// /key=value levels a sweep's axes become, the GOMAXPROCS suffix, and the
// one natural order in which every output lists names and axis values
// (numbers by value, so size=64 comes before size=1024).
package benchname

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Part is one /key=value element of a benchmark name. Key is empty for an
// element without '='.
type Part struct{ Key, Value string }

// Name is a parsed benchmark name.
type Name struct {
	Full  string // as printed by go test, including any -N suffix
	Base  string // BenchmarkX
	Parts []Part // sub-benchmark levels in order
	Procs int    // GOMAXPROCS suffix; 1 when absent
}

// Parse splits a benchmark name into base, parts and GOMAXPROCS suffix.
func Parse(full string) Name {
	n := Name{Full: full, Procs: 1}
	rest := full
	// "-N" ends the name when GOMAXPROCS is not 1; "/n=-3" is a value.
	if i := strings.LastIndexByte(rest, '-'); i > 0 && i < len(rest)-1 && rest[i-1] != '=' && rest[i-1] != '/' {
		if p, err := strconv.Atoi(rest[i+1:]); err == nil && p > 0 {
			n.Procs = p
			rest = rest[:i]
		}
	}
	elems := strings.Split(rest, "/")
	n.Base = elems[0]
	for _, e := range elems[1:] {
		if k, v, ok := strings.Cut(e, "="); ok {
			n.Parts = append(n.Parts, Part{Key: k, Value: v})
		} else {
			n.Parts = append(n.Parts, Part{Value: e})
		}
	}
	return n
}

// Value returns the value of a name key. The keys "bench" (the base name) and
// "procs" (the GOMAXPROCS suffix) are always present.
func (n Name) Value(key string) (string, bool) {
	switch key {
	case "bench":
		return n.Base, true
	case "procs":
		return strconv.Itoa(n.Procs), true
	}
	for _, p := range n.Parts {
		if p.Key == key {
			return p.Value, true
		}
	}
	return "", false
}

// Without returns the name with the parts of the given keys removed, keeping
// the -N suffix.
func (n Name) Without(keys ...string) string {
	s := n.join(keys)
	if n.Procs != 1 {
		s += fmt.Sprintf("-%d", n.Procs)
	}
	return s
}

// Cell is the name without its GOMAXPROCS suffix, as a plan's cell names
// it: "BenchmarkX/size=64".
func (n Name) Cell() string { return n.join(nil) }

// join writes the base and the parts whose keys are not in skip.
func (n Name) join(skip []string) string {
	var b strings.Builder
	b.WriteString(n.Base)
	for _, p := range n.Parts {
		if p.Key != "" && slices.Contains(skip, p.Key) {
			continue
		}
		b.WriteByte('/')
		if p.Key != "" {
			b.WriteString(p.Key)
			b.WriteByte('=')
		}
		b.WriteString(p.Value)
	}
	return b.String()
}

// Compare orders benchmark names with numbers by value, so that
// size=64 comes before size=1024; it suits slices.SortFunc.
func Compare(a, b string) int {
	for a != "" && b != "" {
		na, ra := leadingNumber(a)
		nb, rb := leadingNumber(b)
		if na != "" && nb != "" {
			x, _ := strconv.ParseFloat(na, 64)
			y, _ := strconv.ParseFloat(nb, 64)
			if c := cmp.Compare(x, y); c != 0 {
				return c
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return cmp.Compare(a[0], b[0])
		}
		a, b = a[1:], b[1:]
	}
	return cmp.Compare(len(a), len(b))
}

// Order returns the values sorted as every output lists axis
// values, points and series: by value when all are numbers (so 64 comes
// before 1024 and −3 before −1), otherwise by [Compare]. vals is not
// changed.
func Order(vals []string) []string {
	out := slices.Clone(vals)
	nums := make(map[string]float64, len(out))
	for _, v := range out {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			slices.SortStableFunc(out, Compare)
			return out
		}
		nums[v] = x
	}
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(nums[a], nums[b]) })
	return out
}

func leadingNumber(s string) (num, rest string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' && i > 0) {
		i++
	}
	return s[:i], s[i:]
}
