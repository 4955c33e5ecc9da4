package jsonpipe

import (
	"strings"
	"testing"
)

func TestFirstDifference(t *testing.T) {
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name      string
		got, want any
		diff      string
	}{
		{"equal scalars", 1.5, 1.5, ""},
		{"equal trees", obj("a", []any{1.0, "x", nil}, "b", obj("c", true)), obj("a", []any{1.0, "x", nil}, "b", obj("c", true)), ""},
		{"number", obj("a", 2.0), obj("a", 1.0), "$.a: got number 2, want number 1"},
		{"string", []any{"x", "y"}, []any{"x", "z"}, `$[1]: got string "y", want string "z"`},
		{"type", obj("a", "1"), obj("a", 1.0), `$.a: got string "1", want number 1`},
		{"null vs false", obj("a", nil), obj("a", false), "$.a: got null, want false"},
		{"missing key", obj("a", 1.0), obj("a", 1.0, "b", 2.0), `$: key "b" is missing`},
		{"extra key", obj("a", 1.0, "z", 2.0), obj("a", 1.0), `$: unexpected key "z"`},
		{"short array", obj("a", []any{1.0}), obj("a", []any{1.0, 2.0}), "$.a: got an array of 1 elements, want 2"},
		{"object for array", obj("a", obj()), obj("a", []any{}), "$.a: got an object of 0 keys, want an array"},
		{"array for object", []any{}, obj(), "$: got an array of 0 elements, want an object"},
		{"odd key", obj("a b", obj("c", 1.0)), obj("a b", obj("c", 2.0)), `$["a b"].c: got number 1, want number 2`},
		{"first in key order", obj("b", 1.0, "a", 1.0), obj("b", 2.0, "a", 2.0), "$.a: got number 1, want number 2"},
		{"deep", obj("x", []any{obj("y", []any{1.0, obj("z", "q")})}), obj("x", []any{obj("y", []any{1.0, obj("z", "r")})}), `$.x[0].y[1].z: got string "q", want string "r"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := FirstDifference(tt.got, tt.want); got != tt.diff {
				t.Errorf("FirstDifference = %q, want %q", got, tt.diff)
			}
		})
	}
}

func TestVerifyOutput(t *testing.T) {
	want := map[string]any{"a": []any{1.0, "x"}}
	tests := []struct {
		out, err string
	}{
		{`{"a":[1,"x"]}`, ""},
		{"{\"a\":[1,\"x\"]}\n", ""},
		{`{"a":[1.0,"\u0078"]}`, ""},
		{`{"a":[1,"y"]}`, `output differs from the input: $.a[1]: got string "y", want string "x"`},
		{`{"a":[1,"x"]`, "output is not valid JSON"},
		{``, "output is not valid JSON"},
	}
	for _, tt := range tests {
		err := VerifyOutput([]byte(tt.out), want)
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("VerifyOutput(%q) = %v, want nil", tt.out, err)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("VerifyOutput(%q) = %v, want an error containing %q", tt.out, err, tt.err)
		}
	}
}
