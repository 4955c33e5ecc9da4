package jsonpipe

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Doc is a generated JSON document and the value it encodes.
type Doc struct {
	JSON   []byte // compact JSON, exactly the requested size
	Value  any    // what encoding/json decodes JSON into: map[string]any, []any, string, float64, bool, nil
	Fields int    // object members (key/value pairs) in the whole document
	Depth  int    // deepest nesting of objects and arrays; the root object is level 1
}

// Generator shape. A document of size bytes has
// max(MinFields, size·FieldsAt5MiB/5 MiB) fields, so 5 MiB gives ~12k
// fields, and always exactly Depth levels of nesting.
const (
	Depth        = 8
	FieldsAt5MiB = 12000
	MinFields    = 16
	MinSize      = 1024 // smallest size Generate accepts
)

// FieldsFor is the number of fields Generate puts into a document of size bytes.
func FieldsFor(size int) int {
	return max(MinFields, int((int64(size)*FieldsAt5MiB+(5<<20)/2)/(5<<20)))
}

// leaf kinds.
const (
	kString  = iota // plain text whose length scales with the document size
	kSpecial        // fixed text that needs JSON escaping or is not ASCII
	kInt            // integer-valued number
	kFloat          // number with a fraction
	kBool           // true or false
	kNull           // null
	kNumbers        // array of numbers
	kStrings        // array of short strings
	kObject         // nested object
)

// node is one value of the document tree before it is written out.
type node struct {
	kind  int
	keys  []string // kObject: member names, in order
	kids  []*node  // kObject: member values
	level int      // kObject: nesting level, the root is 1
	base  float64  // kString: relative length, scaled to fill the size
	seed  uint64   // kString: seed of its text
	n     int      // kString: final length in bytes
	num   float64  // kInt, kFloat
	text  string   // kString (once the size is fitted), kSpecial
	b     bool     // kBool
	nums  []float64
	strs  []string
}

// specials are strings that exercise JSON escaping (quotes, backslashes,
// control characters, HTML-sensitive characters, U+2028) and non-ASCII text.
var specials = []string{
	`Tom & Jerry <b>bold</b>`,
	`a "quoted" word and a back\slash`,
	"tab\there, newline\nthere",
	"héllo wörld — ünïcode",
	"中文字符与日本語のテキスト",
	"emoji 😀 and \u2028 line separator",
	"control \x01\x1f bytes",
	"",
}

var words = []string{
	"order", "customer", "item", "price", "amount", "status", "created", "updated",
	"shipping", "address", "city", "country", "payment", "method", "total", "discount",
	"quantity", "product", "category", "vendor", "region", "warehouse", "tracking", "note",
}

// Generate returns the document of exactly size bytes for seed: the same
// (seed, size) gives the same bytes on every platform and Go release that
// keeps math/rand/v2's PCG and strconv's shortest float formatting.
func Generate(seed uint64, size int) (*Doc, error) {
	if size < MinSize {
		return nil, fmt.Errorf("jsonpipe: document size %d is below the minimum of %d bytes; ask for a larger size", size, MinSize)
	}
	rng := rand.New(rand.NewPCG(seed, uint64(size)))
	fields := FieldsFor(size)
	root := shape(rng, fields)
	var strs []*node
	collect(root, &strs)
	if len(strs) == 0 {
		return nil, fmt.Errorf("jsonpipe: internal error: document has no scalable string; report this with seed %d and size %d", seed, size)
	}
	// Fit the string lengths to the size: the fixed part plus the sum of
	// the scaled lengths, then pad the last string to the exact size.
	fixed := encodedLen(root)
	room := size - fixed
	if room < 0 {
		return nil, fmt.Errorf("jsonpipe: %d fields need %d bytes without text, more than the %d asked for; ask for a larger size", fields, fixed, size)
	}
	lo, hi := 0.0, float64(room)+1
	for range 60 {
		mid := (lo + hi) / 2
		if scaled(strs, mid) <= room {
			lo = mid
		} else {
			hi = mid
		}
	}
	total := 0
	for _, s := range strs {
		s.n = int(s.base * lo)
		total += s.n
	}
	strs[len(strs)-1].n += room - total
	for _, s := range strs {
		s.text = text(s.seed, s.n)
	}
	buf := make([]byte, 0, size)
	buf = write(buf, root)
	if len(buf) != size {
		return nil, fmt.Errorf("jsonpipe: internal error: wrote %d bytes, want %d; report this with seed %d", len(buf), size, seed)
	}
	return &Doc{JSON: buf, Value: value(root), Fields: fields, Depth: Depth}, nil
}

// shape builds the tree: a spine of objects down to level Depth, then the
// remaining members spread over random objects, some of them new objects.
func shape(rng *rand.Rand, fields int) *node {
	root := &node{kind: kObject, level: 1}
	objects := []*node{root}
	used := 0
	add := func(o *node, kid *node) {
		o.keys = append(o.keys, key(rng, len(o.keys)))
		o.kids = append(o.kids, kid)
		used++
	}
	for o := root; o.level < Depth; {
		kid := &node{kind: kObject, level: o.level + 1}
		add(o, kid)
		objects = append(objects, kid)
		o = kid
	}
	// The deepest object holds the padding string, so every document has
	// at least one scalable string.
	deepest := objects[len(objects)-1]
	for used < fields-1 {
		o := objects[rng.IntN(len(objects))]
		if o.level < Depth && rng.IntN(100) < 12 {
			kid := &node{kind: kObject, level: o.level + 1}
			add(o, kid)
			objects = append(objects, kid)
			continue
		}
		add(o, leaf(rng, o.level))
	}
	add(deepest, &node{kind: kString, base: 1, seed: rng.Uint64()})
	return root
}

func key(rng *rand.Rand, i int) string {
	return words[rng.IntN(len(words))] + "_" + strconv.Itoa(i)
}

// leaf draws a scalar member, or an array of scalars when the array's
// level stays within Depth.
func leaf(rng *rand.Rand, level int) *node {
	r := rng.IntN(100)
	switch {
	case r < 40:
		return &node{kind: kString, base: 0.2 + 1.6*rng.Float64(), seed: rng.Uint64()}
	case r < 44:
		return &node{kind: kSpecial, text: specials[rng.IntN(len(specials))]}
	case r < 59:
		return &node{kind: kInt, num: float64(rng.Int64N(2_000_000_001) - 1_000_000_000)}
	case r < 74:
		return &node{kind: kFloat, num: float64(rng.Int64N(200_000_001)-100_000_000) / 1000}
	case r < 82:
		return &node{kind: kBool, b: rng.IntN(2) == 1}
	case r < 84:
		return &node{kind: kNull}
	case level >= Depth:
		return &node{kind: kInt, num: float64(rng.IntN(1000))}
	case r < 94:
		nums := make([]float64, 1+rng.IntN(12))
		for i := range nums {
			nums[i] = float64(rng.Int64N(2_000_001)-1_000_000) / 100
		}
		return &node{kind: kNumbers, nums: nums}
	default:
		strs := make([]string, 1+rng.IntN(6))
		for i := range strs {
			strs[i] = words[rng.IntN(len(words))]
		}
		return &node{kind: kStrings, strs: strs}
	}
}

func collect(n *node, out *[]*node) {
	switch n.kind {
	case kString:
		*out = append(*out, n)
	case kObject:
		for _, k := range n.kids {
			collect(k, out)
		}
	}
}

// scaled is the total length of the scalable strings at scale s.
func scaled(strs []*node, s float64) int {
	t := 0
	for _, n := range strs {
		t += int(n.base * s)
	}
	return t
}

// encodedLen is the length of n written before its scalable strings get
// their text.
func encodedLen(n *node) int { return len(write(nil, n)) }

func write(buf []byte, n *node) []byte {
	switch n.kind {
	case kObject:
		buf = append(buf, '{')
		for i, k := range n.keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, k)
			buf = append(buf, ':')
			buf = write(buf, n.kids[i])
		}
		return append(buf, '}')
	case kString, kSpecial:
		return appendString(buf, n.text)
	case kInt, kFloat:
		return strconv.AppendFloat(buf, n.num, 'f', -1, 64)
	case kBool:
		return strconv.AppendBool(buf, n.b)
	case kNull:
		return append(buf, "null"...)
	case kNumbers:
		buf = append(buf, '[')
		for i, x := range n.nums {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = strconv.AppendFloat(buf, x, 'f', -1, 64)
		}
		return append(buf, ']')
	case kStrings:
		buf = append(buf, '[')
		for i, s := range n.strs {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendString(buf, s)
		}
		return append(buf, ']')
	}
	return buf // unreachable: every kind is handled above; Generate's size check would catch it
}

// text is n bytes of plain ASCII words drawn from seed.
func text(seed uint64, n int) string {
	if n == 0 {
		return ""
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	b := make([]byte, 0, n+16)
	for len(b) < n {
		if len(b) > 0 {
			b = append(b, ' ')
		}
		b = append(b, words[rng.IntN(len(words))]...)
	}
	return string(b[:n])
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string: quotes, backslashes and control
// characters escaped, everything else (valid UTF-8) copied as is.
func appendString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		buf = append(buf, s[start:i]...)
		switch c {
		case '"', '\\':
			buf = append(buf, '\\', c)
		case '\n':
			buf = append(buf, '\\', 'n')
		case '\t':
			buf = append(buf, '\\', 't')
		default:
			buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// value is the tree as encoding/json decodes it.
func value(n *node) any {
	switch n.kind {
	case kObject:
		m := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			m[k] = value(n.kids[i])
		}
		return m
	case kString, kSpecial:
		return n.text
	case kInt, kFloat:
		return n.num
	case kBool:
		return n.b
	case kNumbers:
		a := make([]any, len(n.nums))
		for i, x := range n.nums {
			a[i] = x
		}
		return a
	case kStrings:
		a := make([]any, len(n.strs))
		for i, s := range n.strs {
			a[i] = s
		}
		return a
	}
	return nil
}
