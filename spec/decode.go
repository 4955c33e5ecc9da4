package spec

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// rawSpec is the shape the TOML text is decoded into. It differs from Spec
// only where TOML values of several types are accepted.
type rawSpec struct {
	Name        string          `toml:"name"`
	Title       string          `toml:"title"`
	Article     string          `toml:"article"`
	Description string          `toml:"description"`
	Driver      string          `toml:"driver"`
	Package     string          `toml:"package"`
	Benchmarks  []string        `toml:"benchmarks"`
	Axes        []rawAxis       `toml:"axis"`
	Modes       map[string]Mode `toml:"mode"`
	Configs     []rawConfig     `toml:"config"`
	Analysis    Analysis        `toml:"analysis"`
	Claims      []Claim         `toml:"claim"`
	Units       []Unit          `toml:"unit"`
}

type rawAxis struct {
	Key   string     `toml:"key"`
	Quick []flexText `toml:"quick"`
	Full  []flexText `toml:"full"`
}

type rawConfig struct {
	Name         string   `toml:"name"`
	GOEXPERIMENT string   `toml:"goexperiment"`
	GOTOOLCHAIN  string   `toml:"gotoolchain"`
	Tags         []string `toml:"tags"`
	GCFlags      string   `toml:"gcflags"`
	LDFlags      string   `toml:"ldflags"`
	GOMAXPROCS   flexText `toml:"gomaxprocs"`
	GOGC         flexText `toml:"gogc"`
	GOMEMLIMIT   flexText `toml:"gomemlimit"`
	GODEBUG      string   `toml:"godebug"`
	Modfile      string   `toml:"modfile"`
	PGO          string   `toml:"pgo"`
	Modes        []string `toml:"modes"`
}

// flexText receives the text of a TOML string, integer or float as written.
// The validator rejects other kinds and canonicalises integers, using the
// value kinds recorded by the position index.
type flexText string

func (f *flexText) UnmarshalText(b []byte) error {
	*f = flexText(b)
	return nil
}

var flexTextType = reflect.TypeOf(flexText(""))

// decode decodes src strictly into a rawSpec, turning every decoder error
// into an *Error.
func decode(file string, src []byte) (raw *rawSpec, err error) {
	defer func() {
		if r := recover(); r != nil {
			raw = nil
			err = &Error{File: file, Msg: fmt.Sprintf("cannot decode TOML (decoder failure: %v); simplify the file and report this", r)}
		}
	}()
	raw = new(rawSpec)
	dec := toml.NewDecoder(bytes.NewReader(src)).DisallowUnknownFields()
	if derr := dec.Decode(raw); derr != nil {
		return nil, decodeError(file, derr)
	}
	return raw, nil
}

// decodeError converts an error of the TOML decoder into an *Error.
func decodeError(file string, err error) *Error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		errs := strict.Errors
		sort.SliceStable(errs, func(i, j int) bool {
			li, ci := errs[i].Position()
			lj, cj := errs[j].Position()
			return li < lj || li == lj && ci < cj
		})
		line, _ := errs[0].Position()
		msg := unknownKeyMsg(errs[0].Key(), strings.HasSuffix(errs[0].Error(), "missing table"))
		if n := len(errs) - 1; n > 0 {
			msg += fmt.Sprintf(" (and %d more unknown key(s) after it)", n)
		}
		return &Error{File: file, Line: line, Msg: msg}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		key := []string(de.Key())
		if found, ok := mismatchKind(msg); ok && len(key) > 0 {
			want := "of another type"
			if t, ok := fieldType(key); ok {
				want = describeType(t)
			}
			msg = fmt.Sprintf("key %q %s must be %s, not a TOML %s", key[len(key)-1], tableName(key[:len(key)-1]), want, found)
		} else {
			msg = "invalid TOML: " + msg
		}
		return &Error{File: file, Line: line, Msg: msg}
	}
	return &Error{File: file, Msg: fmt.Sprintf("cannot decode TOML: %v", err)}
}

// mismatchKind extracts the TOML kind from the decoder's type-mismatch
// message "cannot decode TOML <kind> into ...".
func mismatchKind(msg string) (string, bool) {
	const prefix = "cannot decode TOML "
	rest, ok := strings.CutPrefix(msg, prefix)
	if !ok {
		return "", false
	}
	kind, _, ok := strings.Cut(rest, " into ")
	return kind, ok
}

// unknownKeyMsg words a strict-mode error for key, which names a key (or,
// when table is true, a table header) that the spec format does not have.
func unknownKeyMsg(key []string, table bool) string {
	if len(key) == 0 {
		return "unknown key"
	}
	parent, name := key[:len(key)-1], key[len(key)-1]
	known := knownKeys(parent)
	var msg string
	if table {
		msg = fmt.Sprintf("unknown table [%s]", strings.Join(key, "."))
	} else {
		msg = fmt.Sprintf("unknown key %q %s", name, tableName(parent))
	}
	if s := suggest(name, known); s != "" && table {
		return msg + fmt.Sprintf("; did you mean [%s]?", strings.Join(append(slices.Clone(parent), s), "."))
	} else if s != "" {
		return msg + fmt.Sprintf("; did you mean %q?", s)
	}
	if len(known) > 0 {
		return msg + "; known keys there: " + strings.Join(known, ", ")
	}
	return msg
}

// tableName names the table at path the way it is written in a spec.
func tableName(path []string) string {
	if len(path) == 0 {
		return "at the top level"
	}
	t, ok := fieldType(path)
	if ok && t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
		return "in [[" + strings.Join(path, ".") + "]]"
	}
	return "in [" + strings.Join(path, ".") + "]"
}

// fieldType returns the Go type that the TOML key path decodes into.
// Array tables and map entries are stepped through.
func fieldType(path []string) (reflect.Type, bool) {
	t := reflect.TypeOf(rawSpec{})
	for _, part := range path {
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
			t = t.Elem()
		}
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			f, ok := fieldByTag(t, part)
			if !ok {
				return nil, false
			}
			t = f.Type
		default:
			return nil, false
		}
	}
	return t, true
}

func fieldByTag(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if tag != "" && tag != "-" && strings.EqualFold(tag, name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// knownKeys lists the keys the table at path accepts, sorted.
func knownKeys(path []string) []string {
	t, ok := fieldType(path)
	if !ok {
		return nil
	}
	if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Map:
		return modeNames()
	case reflect.Struct:
	default:
		return nil
	}
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("toml"), ",")
		if tag != "" && tag != "-" {
			keys = append(keys, tag)
		}
	}
	sort.Strings(keys)
	return keys
}

// describeType says in words which TOML values decode into t.
func describeType(t reflect.Type) string {
	switch {
	case t == flexTextType:
		return "a string or a number"
	case t.Kind() == reflect.String:
		return "a string"
	case t.Kind() == reflect.Int:
		return "an integer"
	case t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.Map, t.Kind() == reflect.Struct:
		return "a table"
	case t.Kind() == reflect.Slice && t.Elem() == flexTextType:
		return "an array of strings or numbers"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct:
		return "an array of tables"
	case t.Kind() == reflect.Slice:
		return "an array of " + strings.TrimPrefix(strings.TrimPrefix(describeType(t.Elem()), "an "), "a ") + "s"
	}
	return "of another type"
}

// suggest returns the entry of known closest to name when it is close
// enough to be a likely typo, or "".
func suggest(name string, known []string) string {
	best, bestD := "", len(name)/3+1
	for _, k := range known {
		if d := editDistance(strings.ToLower(name), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return len(a) + len(b)
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
