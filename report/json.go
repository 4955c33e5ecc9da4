package report

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/perflab/perflab/analysis"
)

// JSON writes v (a findings value, or a struct of them) as indented JSON:
// the one JSON encoding of results. Field names and omissions follow the
// values' json tags as encoding/json reads them; every number that is not
// finite (NaN, +Inf, −Inf: a missing estimate, an interval too few samples
// cannot give, a change from zero) is written as null, in every output. A
// paired ratio (analysis.Ratio) is written as {"rounds", "ratio", "lo",
// "hi", "conf", "p"}.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(jsonValue(reflect.ValueOf(v)))
}

var (
	ratioType     = reflect.TypeFor[analysis.Ratio]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	textType      = reflect.TypeFor[encoding.TextMarshaler]()
)

// object is a JSON object whose keys keep their order.
type object []member

type member struct {
	key   string
	value any
}

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(m.key)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(m.value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// number is a float for JSON: nil (null) unless finite.
func number(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

// jsonValue converts v into values encoding/json writes as it would write v,
// with non-finite numbers as null.
func jsonValue(v reflect.Value) any {
	if !v.IsValid() {
		return nil
	}
	t := v.Type()
	if t == ratioType {
		r := v.Interface().(analysis.Ratio)
		return object{{"rounds", r.N}, {"ratio", number(r.Ratio)}, {"lo", number(r.Lo)}, {"hi", number(r.Hi)}, {"conf", number(r.Conf)}, {"p", number(r.P)}}
	}
	if t.Kind() != reflect.Pointer && t.Kind() != reflect.Interface && (t.Implements(marshalerType) || t.Implements(textType)) {
		return v.Interface() // time.Time and the like write themselves
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return number(v.Float())
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return jsonValue(v.Elem())
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return v.Interface() // []byte: base64, as encoding/json writes it
		}
		fallthrough
	case reflect.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = jsonValue(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		keys := v.MapKeys()
		o := make(object, 0, len(keys))
		for _, k := range keys {
			o = append(o, member{fmt.Sprint(k.Interface()), jsonValue(v.MapIndex(k))})
		}
		slices.SortFunc(o, func(a, b member) int { return strings.Compare(a.key, b.key) })
		return o
	case reflect.Struct:
		o := object{}
		fields(v, &o, map[string]bool{})
		return o
	}
	return v.Interface()
}

// fields adds the exported fields of struct v to o as encoding/json
// names them: a field's json tag, "-" skipped, omitempty honoured, and the
// fields of an untagged embedded struct promoted unless a shallower field
// has the name.
func fields(v reflect.Value, o *object, taken map[string]bool) {
	t := v.Type()
	var embedded []reflect.Value
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		fv := v.Field(i)
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				if fv.IsNil() {
					continue
				}
				ft, fv = ft.Elem(), fv.Elem()
			}
			if ft.Kind() == reflect.Struct && ft != ratioType {
				embedded = append(embedded, fv)
				continue
			}
			if ft == ratioType {
				for _, m := range jsonValue(fv).(object) {
					if !taken[m.key] {
						taken[m.key] = true
						*o = append(*o, m)
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.Contains(","+opts+",", ",omitempty,") && empty(fv) {
			continue
		}
		if taken[name] {
			continue
		}
		taken[name] = true
		val := jsonValue(fv)
		if strings.Contains(","+opts+",", ",string,") {
			val = strconv.Quote(fmt.Sprint(val))
		}
		*o = append(*o, member{name, val})
	}
	for _, e := range embedded {
		fields(e, o, taken)
	}
}

// empty is encoding/json's omitempty test.
func empty(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}
