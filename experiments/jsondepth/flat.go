package jsondepth

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
)

// Flatten returns a pointer to a value of a flat struct type holding every
// leaf of doc, a *L<depth>: one field per scalar, pointer-to-scalar or
// []string field anywhere in the tree, named by its JSON path
// (its own key, numbered from the second use on: "name", "name2"…, so the
// keys take about the bytes the nested document's do), and no nested struct, pointer to a struct or slice
// of structs. The type is built with reflect.StructOf, which is what a code
// generator that flattens the nesting ("struct2flat" in the article) would
// declare; encoding/json treats it as any declared struct type. It also
// returns the number of leaves.
func Flatten(doc any) (any, int, error) {
	v := reflect.ValueOf(doc)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, 0, fmt.Errorf("flatten: want a non-nil pointer to a struct, got %T", doc)
	}
	var fields []reflect.StructField
	var values []reflect.Value
	uses := map[string]int{}
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch {
		case v.Kind() == reflect.Struct:
			t := v.Type()
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if !f.IsExported() {
					continue
				}
				if f.Anonymous {
					walk(v.Field(i), path)
					continue
				}
				name := f.Name
				if tag := f.Tag.Get("json"); tag != "" {
					name = tag
				}
				walk(v.Field(i), join(path, name))
			}
		case v.Kind() == reflect.Pointer && v.Type().Elem().Kind() == reflect.Struct:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Struct:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), join(path, strconv.Itoa(i)))
			}
		default:
			key := leafKey(path)
			uses[key]++
			if uses[key] > 1 {
				key += strconv.Itoa(uses[key])
			}
			fields = append(fields, reflect.StructField{
				Name: "F" + strconv.Itoa(len(fields)),
				Type: v.Type(),
				Tag:  reflect.StructTag(`json:"` + key + `"`),
			})
			values = append(values, v)
		}
	}
	walk(v.Elem(), "")
	flat := reflect.New(reflect.StructOf(fields))
	for i, x := range values {
		flat.Elem().Field(i).Set(x)
	}
	return flat.Interface(), len(fields), nil
}

// leafKey is the last element of a path: the leaf's own JSON key.
func leafKey(path string) string {
	for i := len(path) - 1; i >= 0; i-- {
		if path[i] == '/' {
			return path[i+1:]
		}
	}
	return path
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "/" + name
}

// checkFlat verifies that encoding/json writes the flat value as one JSON
// object with a key per leaf and no nested object.
func checkFlat(flat any, leaves int) error {
	out, err := json.Marshal(flat)
	if err != nil {
		return fmt.Errorf("marshalling the flat struct: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		return fmt.Errorf("the flat struct's JSON does not decode: %v", err)
	}
	if len(m) != leaves {
		return fmt.Errorf("the flat struct's JSON has %d keys, want %d (one per leaf)", len(m), leaves)
	}
	for k, v := range m {
		if _, nested := v.(map[string]any); nested {
			return fmt.Errorf("the flat struct's JSON nests an object at %q", k)
		}
	}
	return nil
}
