package jsondepth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Ops are the operations a cell times.
const (
	OpMarshal   = "marshal"   // Marshal(p), p a *L<depth>
	OpUnmarshal = "unmarshal" // Unmarshal(encoding/json's bytes, new(L<depth>))
	OpAny       = "any"       // Marshal(x), x an any holding a fresh copy of *p
)

// Gate checks a library on one document before it is timed. For a
// marshalling op (marshal or any), the library's output must decode, with
// encoding/json, to a value equal to the input, and must equal
// encoding/json's output once both are normalised (see Normalize). For
// unmarshal, decoding encoding/json's output with the library must
// reproduce the input. The error, if any, names the first difference.
//
// doc is a *L<depth> from New; want is encoding/json's Marshal of doc.
func Gate(lib Library, op string, doc any, want []byte) error {
	if err := checkDoc(doc); err != nil {
		return err
	}
	if lib.Skip != "" {
		return fmt.Errorf("library %s cannot run in this build: %s", lib.Name, lib.Skip)
	}
	switch op {
	case OpMarshal, OpAny:
		in := doc
		if op == OpAny {
			boxed := Boxed(doc)
			if boxed == nil {
				return fmt.Errorf("document of type %T is not a generated level type", doc)
			}
			in = boxed()
		}
		got, err := lib.Marshal(in)
		if err != nil {
			return fmt.Errorf("Marshal failed: %v", err)
		}
		return CheckMarshal(got, doc, want)
	case OpUnmarshal:
		out := reflect.New(reflect.TypeOf(doc).Elem()).Interface()
		if err := lib.Unmarshal(want, out); err != nil {
			return fmt.Errorf("Unmarshal failed: %v", err)
		}
		if d := FirstDiff(out, doc); d != "" {
			return fmt.Errorf("Unmarshal result differs from the input at %s", d)
		}
		return nil
	}
	return fmt.Errorf("unknown op %q; use %s, %s or %s", op, OpMarshal, OpUnmarshal, OpAny)
}

// CheckMarshal checks one library's Marshal output got for the document
// doc (a pointer) against want, encoding/json's output for doc.
func CheckMarshal(got []byte, doc any, want []byte) error {
	if err := checkDoc(doc); err != nil {
		return err
	}
	back := reflect.New(reflect.TypeOf(doc).Elem()).Interface()
	if err := json.Unmarshal(got, back); err != nil {
		return fmt.Errorf("output does not decode with encoding/json: %v; output begins %s", err, snippet(got, 0))
	}
	if d := FirstDiff(back, doc); d != "" {
		return fmt.Errorf("output decodes to a different value at %s", d)
	}
	ng, err := Normalize(got)
	if err != nil {
		return fmt.Errorf("normalising the output: %v", err)
	}
	nw, err := Normalize(want)
	if err != nil {
		return fmt.Errorf("normalising encoding/json's output: %v", err)
	}
	if i := firstByte(ng, nw); i >= 0 {
		return fmt.Errorf("output differs from encoding/json's after normalising at byte %d: got %s, want %s", i, snippet(ng, i), snippet(nw, i))
	}
	return nil
}

// checkDoc reports a document that is not a non-nil pointer to a struct.
func checkDoc(doc any) error {
	t := reflect.TypeOf(doc)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct || reflect.ValueOf(doc).IsNil() {
		return fmt.Errorf("the document must be a non-nil pointer to a struct such as New returns, not %T", doc)
	}
	return nil
}

// Normalize rewrites a JSON text so that texts differing only in
// insignificant whitespace, in how strings are escaped (HTML characters,
// \u escapes, U+2028/U+2029, "\/") or in the order of object keys compare
// equal: every object's members are sorted by key (stably, so duplicates
// keep their order), strings are re-escaped one canonical way and numbers
// are kept exactly as written, so a number formatted differently (1e3 vs
// 1000, 0.1 vs 0.10000000000000001) is still a difference.
//
// Sorting every object is the normalisation of map-key order; it also
// forgives struct fields emitted in another order, which the decoding half
// of Gate would not notice either.
func Normalize(data []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := readValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the JSON value")
	}
	var b bytes.Buffer
	v.write(&b)
	return b.Bytes(), nil
}

// node is a parsed JSON value: literal for numbers, true, false and null;
// str for strings; members for objects; elems for arrays.
type node struct {
	kind    byte // 'l' literal, 's' string, 'o' object, 'a' array
	literal string
	str     string
	keys    []string
	members []*node
}

func readValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			n := &node{kind: 'o'}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key %v is not a string", kt)
				}
				v, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				n.keys, n.members = append(n.keys, k), append(n.members, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			n.sortMembers()
			return n, nil
		case '[':
			n := &node{kind: 'a'}
			for dec.More() {
				v, err := readValue(dec)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return n, nil
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	case string:
		return &node{kind: 's', str: t}, nil
	case json.Number:
		return &node{kind: 'l', literal: string(t)}, nil
	case bool:
		return &node{kind: 'l', literal: strconv.FormatBool(t)}, nil
	case nil:
		return &node{kind: 'l', literal: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

func (n *node) sortMembers() {
	idx := make([]int, len(n.keys))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case n.keys[a] < n.keys[b]:
			return -1
		case n.keys[a] > n.keys[b]:
			return 1
		}
		return 0
	})
	keys, members := make([]string, len(idx)), make([]*node, len(idx))
	for i, j := range idx {
		keys[i], members[i] = n.keys[j], n.members[j]
	}
	n.keys, n.members = keys, members
}

func (n *node) write(b *bytes.Buffer) {
	switch n.kind {
	case 'l':
		b.WriteString(n.literal)
	case 's':
		writeString(b, n.str)
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			n.members[i].write(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			m.write(b)
		}
		b.WriteByte(']')
	}
}

// writeString writes s quoted, escaping only what JSON requires: the
// quote, the backslash and control characters.
func writeString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			var buf [utf8.UTFMax]byte
			b.Write(buf[:utf8.EncodeRune(buf[:], r)])
		}
	}
	b.WriteByte('"')
}

// firstByte returns the first index where a and b differ, or -1.
func firstByte(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return n
	}
	return -1
}

// snippet shows up to 24 bytes of b on each side of i between backquotes,
// with "…" where cut; control characters and invalid UTF-8 are replaced.
func snippet(b []byte, i int) string {
	lo, hi := max(0, i-24), min(len(b), i+24)
	s := strings.Map(func(r rune) rune {
		if r < 0x20 || r == '`' {
			return '·'
		}
		return r
	}, strings.ToValidUTF8(string(b[lo:hi]), "�"))
	if lo > 0 {
		s = "…" + s
	}
	if hi < len(b) {
		s += "…"
	}
	return "`" + s + "`"
}

// FirstDiff returns the path of the first difference between got and want
// with both values, such as `.Wrap.Child.Name: got "a", want "b"`, or ""
// when they are deeply equal. Floats compare by value (NaN equal to NaN).
func FirstDiff(got, want any) string {
	return diff("", reflect.ValueOf(got), reflect.ValueOf(want))
}

func diff(path string, a, b reflect.Value) string {
	at := func(format string, args ...any) string {
		p := path
		if p == "" {
			p = "the top level"
		}
		return p + ": " + fmt.Sprintf(format, args...)
	}
	if a.IsValid() != b.IsValid() {
		return at("got %v, want %v", valueText(a), valueText(b))
	}
	if !a.IsValid() {
		return ""
	}
	if a.Type() != b.Type() {
		return at("got a %s, want a %s", a.Type(), b.Type())
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() != b.IsNil() {
			return at("got %s, want %s", nilText(a), nilText(b))
		}
		if a.IsNil() {
			return ""
		}
		return diff(path, a.Elem(), b.Elem())
	case reflect.Struct:
		for i := 0; i < a.NumField(); i++ {
			if d := diff(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Slice, reflect.Array:
		if a.Kind() == reflect.Slice && a.IsNil() != b.IsNil() {
			return at("got %s, want %s", nilText(a), nilText(b))
		}
		for i := 0; i < min(a.Len(), b.Len()); i++ {
			if d := diff(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i)); d != "" {
				return d
			}
		}
		if a.Len() != b.Len() {
			return at("got %d elements, want %d", a.Len(), b.Len())
		}
		return ""
	case reflect.Map:
		if a.IsNil() != b.IsNil() || a.Len() != b.Len() {
			return at("got a map of %d entries, want %d", a.Len(), b.Len())
		}
		keys := b.MapKeys()
		slices.SortFunc(keys, func(x, y reflect.Value) int {
			return compareText(fmt.Sprint(x.Interface()), fmt.Sprint(y.Interface()))
		})
		for _, k := range keys {
			av := a.MapIndex(k)
			if !av.IsValid() {
				return at("key %v missing", k.Interface())
			}
			if d := diff(fmt.Sprintf("%s[%v]", path, k.Interface()), av, b.MapIndex(k)); d != "" {
				return d
			}
		}
		return ""
	case reflect.Float32, reflect.Float64:
		x, y := a.Float(), b.Float()
		if x == y || math.IsNaN(x) && math.IsNaN(y) {
			return ""
		}
		return at("got %v, want %v", x, y)
	}
	if a.CanInterface() && b.CanInterface() {
		if !reflect.DeepEqual(a.Interface(), b.Interface()) {
			return at("got %s, want %s", valueText(a), valueText(b))
		}
		return ""
	}
	return ""
}

func compareText(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func nilText(v reflect.Value) string {
	if v.IsNil() {
		return "nil"
	}
	return "non-nil"
}

func valueText(v reflect.Value) string {
	if !v.IsValid() {
		return "nothing"
	}
	if v.Kind() == reflect.String {
		return strconv.Quote(v.String())
	}
	if v.CanInterface() {
		return fmt.Sprintf("%v", v.Interface())
	}
	return v.Kind().String()
}
