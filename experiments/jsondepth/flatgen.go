package jsondepth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// A FlatMarshaler writes one flat struct type (Flatten's) as JSON without
// reflection: the field table, each field's offset, kind and key, is
// worked out once, as a code generator would write it into a MarshalJSON
// method (article B's “struct2flat” after-state: “反射调用次数 127 → 0”,
// no reflection call left), and Marshal walks the table through unsafe
// pointers. Its output is encoding/json's, byte for byte, for the leaf
// types the generated documents hold (NewFlatMarshaler refuses others, and
// Check compares the bytes).
type FlatMarshaler struct {
	typ    reflect.Type
	fields []flatField
	size   int // a first guess of the output's length
}

type flatField struct {
	key  []byte // `"key":` or `,"key":`
	off  uintptr
	kind leafKind
}

type leafKind int

const (
	leafString leafKind = iota
	leafInt
	leafFloat
	leafBool
	leafIntPtr   // *int64
	leafStrSlice // []string
)

// NewFlatMarshaler builds the field table of flat, a pointer to a struct
// whose fields are all leaves: string, int, float64, bool, *int64 or
// []string, each with a json tag naming its key.
func NewFlatMarshaler(flat any) (*FlatMarshaler, error) {
	t := reflect.TypeOf(flat)
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("flat marshaler: want a pointer to a flat struct, got %T", flat)
	}
	m := &FlatMarshaler{typ: t}
	st := t.Elem()
	for i := 0; i < st.NumField(); i++ {
		f := st.Field(i)
		var k leafKind
		switch {
		case f.Type.Kind() == reflect.String:
			k = leafString
		case f.Type.Kind() == reflect.Int:
			k = leafInt
		case f.Type.Kind() == reflect.Float64:
			k = leafFloat
		case f.Type.Kind() == reflect.Bool:
			k = leafBool
		case f.Type == reflect.TypeFor[*int64]():
			k = leafIntPtr
		case f.Type == reflect.TypeFor[[]string]():
			k = leafStrSlice
		default:
			return nil, fmt.Errorf("flat marshaler: field %s has type %s, which is not a leaf it writes", f.Name, f.Type)
		}
		key, _ := json.Marshal(f.Tag.Get("json"))
		if i > 0 {
			key = append([]byte{','}, key...)
		}
		m.fields = append(m.fields, flatField{key: append(key, ':'), off: f.Offset, kind: k})
		m.size += len(key) + 16
	}
	return m, nil
}

// Marshal writes v, a pointer of the marshaler's type, as JSON.
func (m *FlatMarshaler) Marshal(v any) ([]byte, error) {
	if reflect.TypeOf(v) != m.typ {
		return nil, fmt.Errorf("flat marshaler: got %T, want %s", v, m.typ)
	}
	base := (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] // the pointer the interface holds
	b := make([]byte, 0, m.size)
	b = append(b, '{')
	for _, f := range m.fields {
		b = append(b, f.key...)
		p := unsafe.Add(base, f.off)
		switch f.kind {
		case leafString:
			b = appendJSONString(b, *(*string)(p))
		case leafInt:
			b = strconv.AppendInt(b, int64(*(*int)(p)), 10)
		case leafFloat:
			var err error
			if b, err = appendJSONFloat(b, *(*float64)(p)); err != nil {
				return nil, err
			}
		case leafBool:
			b = strconv.AppendBool(b, *(*bool)(p))
		case leafIntPtr:
			if q := *(**int64)(p); q == nil {
				b = append(b, "null"...)
			} else {
				b = strconv.AppendInt(b, *q, 10)
			}
		case leafStrSlice:
			s := *(*[]string)(p)
			if s == nil {
				b = append(b, "null"...)
				break
			}
			b = append(b, '[')
			for i, x := range s {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendJSONString(b, x)
			}
			b = append(b, ']')
		}
	}
	return append(b, '}'), nil
}

// Check reports whether m writes v exactly as encoding/json does.
func (m *FlatMarshaler) Check(v any) error {
	got, err := m.Marshal(v)
	if err != nil {
		return err
	}
	want, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < len(got) && i < len(want) && got[i] == want[i] {
			i++
		}
		return fmt.Errorf("flat marshaler: output differs from encoding/json's at byte %d: %q vs %q", i, clip(got[i:]), clip(want[i:]))
	}
	return nil
}

func clip(b []byte) []byte { return b[:min(len(b), 40)] }

// appendJSONFloat writes f as encoding/json writes a float64.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, fmt.Errorf("flat marshaler: unsupported value %v", f)
	}
	abs, format := math.Abs(f), byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}

const hexChars = "0123456789abcdef"

// appendJSONString writes s as encoding/json writes a string: quotes,
// backslashes, control characters and, for HTML safety, <, > and &
// escaped; invalid UTF-8 as U+FFFD; U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexChars[c>>4], hexChars[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexChars[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
