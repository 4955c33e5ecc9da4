package jsonpipe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// Verify runs p once on doc and checks that its output decodes, with
// encoding/json, to want. The error names the first difference.
func Verify(p Pipeline, doc []byte, want any) error {
	var out []byte
	var m Meter
	if err := p.Run(doc, &m, func(chunks [][]byte) {
		out = bytes.Join(chunks, nil)
	}); err != nil {
		return fmt.Errorf("pipeline failed: %w", err)
	}
	return VerifyOutput(out, want)
}

// VerifyOutput checks that out is one JSON value that decodes to want.
func VerifyOutput(out []byte, want any) error {
	var got any
	if err := json.Unmarshal(out, &got); err != nil {
		return fmt.Errorf("output is not valid JSON: %v (output starts %q)", err, clip(string(out), 60))
	}
	if d := FirstDifference(got, want); d != "" {
		return fmt.Errorf("output differs from the input: %s", d)
	}
	return nil
}

// FirstDifference compares two values as encoding/json decodes them
// (map[string]any, []any, string, float64, bool, nil) and describes the
// first place they differ, as a path from the root ($) and both values;
// "" when they are equal. Object keys are visited in sorted order.
func FirstDifference(got, want any) string {
	return diff("$", got, want)
}

func diff(path string, got, want any) string {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want an object", path, show(got))
		}
		keys := slices.Sorted(maps.Keys(w))
		for _, k := range keys {
			gv, ok := g[k]
			if !ok {
				return fmt.Sprintf("%s: key %q is missing", path, k)
			}
			if d := diff(path+member(k), gv, w[k]); d != "" {
				return d
			}
		}
		if len(g) != len(w) {
			for _, k := range slices.Sorted(maps.Keys(g)) {
				if _, ok := w[k]; !ok {
					return fmt.Sprintf("%s: unexpected key %q", path, k)
				}
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			return fmt.Sprintf("%s: got %s, want an array", path, show(got))
		}
		for i := range min(len(g), len(w)) {
			if d := diff(path+"["+strconv.Itoa(i)+"]", g[i], w[i]); d != "" {
				return d
			}
		}
		if len(g) != len(w) {
			return fmt.Sprintf("%s: got an array of %d elements, want %d", path, len(g), len(w))
		}
	default:
		if !scalarEqual(got, want) {
			return fmt.Sprintf("%s: got %s, want %s", path, show(got), show(want))
		}
	}
	return ""
}

func scalarEqual(a, b any) bool {
	switch x := a.(type) {
	case string, bool, float64, nil:
		return a == b
	case json.Number:
		y, ok := b.(json.Number)
		return ok && x == y
	}
	return false
}

func member(k string) string {
	ident := k != ""
	for i, c := range k {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			ident = false
			break
		}
	}
	if ident {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string " + strconv.Quote(clip(x, 40))
	case float64:
		return "number " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case map[string]any:
		return fmt.Sprintf("an object of %d keys", len(x))
	case []any:
		return fmt.Sprintf("an array of %d elements", len(x))
	}
	return fmt.Sprintf("%T %v", v, v)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
