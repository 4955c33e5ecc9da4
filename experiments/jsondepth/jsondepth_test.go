package jsondepth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestNewDeterministic: the same depth, fan-out and seed give the same
// bytes; another seed gives other bytes.
func TestNewDeterministic(t *testing.T) {
	for _, tt := range []struct{ depth, fanout int }{{1, 1}, {5, 2}, {8, 1}, {12, 3}} {
		t.Run(fmt.Sprintf("depth=%d/fanout=%d", tt.depth, tt.fanout), func(t *testing.T) {
			enc := func(seed uint64) []byte {
				doc, err := New(tt.depth, tt.fanout, seed)
				if err != nil {
					t.Fatal(err)
				}
				b, err := json.Marshal(doc)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			a, b, c := enc(7), enc(7), enc(8)
			if !bytes.Equal(a, b) {
				t.Errorf("seed 7 gave different documents:\n%s\n%s", a, b)
			}
			if bytes.Equal(a, c) {
				t.Errorf("seeds 7 and 8 gave the same document %s", a)
			}
		})
	}
}

// TestRoundTrip: every depth × fan-out document survives encoding/json,
// has the depth and fan-out it was asked for, and mixes every field kind.
func TestRoundTrip(t *testing.T) {
	for depth := 1; depth <= MaxDepth; depth++ {
		for fanout := 1; fanout <= MaxFanout; fanout++ {
			doc, err := New(depth, fanout, seed)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := reflect.TypeOf(doc).String(), fmt.Sprintf("*jsondepth.L%d", depth); got != want {
				t.Fatalf("New(%d, %d) is a %s, want %s", depth, fanout, got, want)
			}
			data, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			back := Zero(depth)
			if err := json.Unmarshal(data, back); err != nil {
				t.Fatalf("depth %d fanout %d: %v", depth, fanout, err)
			}
			if d := FirstDiff(back, doc); d != "" {
				t.Errorf("depth %d fanout %d: round trip differs at %s", depth, fanout, d)
			}
			if got := nesting(t, data); got != depth {
				t.Errorf("depth %d fanout %d: the JSON nests %d levels", depth, fanout, got)
			}
			if got, want := strings.Count(string(data), `"count":`), leaves(depth, fanout); got != want {
				t.Errorf("depth %d fanout %d: %d leaves, want %d", depth, fanout, got, want)
			}
			for _, key := range []string{`"m1_id":`, `"ref":`, `"tags":[`, `"info":{`, `"score":`, `"active":`} {
				if !strings.Contains(string(data), key) {
					t.Errorf("depth %d: no %s in %s", depth, key, data)
				}
			}
		}
	}
	if Zero(0) != nil || Zero(MaxDepth+1) != nil {
		t.Error("Zero accepts a depth out of range")
	}
	if _, err := New(0, 1, 1); err == nil {
		t.Error("New accepts depth 0")
	}
	if _, err := New(3, 4, 1); err == nil {
		t.Error("New accepts fanout 4")
	}
}

// nesting counts the generated levels in a document: the depth of "name"
// members, one per level.
func nesting(t *testing.T, data []byte) int {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(v any) int
	walk = func(v any) int {
		best := 0
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if k != "info" {
					best = max(best, walk(c))
				}
			}
			if _, ok := x["name"]; ok {
				return best + 1
			}
		case []any:
			for _, c := range x {
				best = max(best, walk(c))
			}
		}
		return best
	}
	return walk(v)
}

// leaves is the number of L1 values in a document: slice links (k%3 == 1)
// multiply by fanout.
func leaves(depth, fanout int) int {
	n := 1
	for k := 2; k <= depth; k++ {
		if k%3 == 1 {
			n *= fanout
		}
	}
	return n
}

// TestLibrariesPass runs the gate for every library, op, depth and fan-out:
// the libraries the experiment times are correct on its documents.
func TestLibrariesPass(t *testing.T) {
	for _, lib := range Libraries() {
		if lib.Skip != "" {
			t.Logf("%s: %s", lib.Name, lib.Skip)
			continue
		}
		for _, op := range ops {
			for depth := 1; depth <= MaxDepth; depth++ {
				for fanout := 1; fanout <= MaxFanout; fanout++ {
					doc, err := New(depth, fanout, seed)
					if err != nil {
						t.Fatal(err)
					}
					want, err := json.Marshal(doc)
					if err != nil {
						t.Fatal(err)
					}
					if err := Gate(lib, op, doc, want); err != nil {
						t.Errorf("lib=%s op=%s depth=%d fanout=%d: %v", lib.Name, op, depth, fanout, err)
					}
				}
			}
		}
	}
}

// TestGateCatchesWrongEncoders plants broken libraries and checks that the
// gate names the first difference, and that harmless differences pass.
func TestGateCatchesWrongEncoders(t *testing.T) {
	std, _ := Lookup("encoding_json")
	wrap := func(f func([]byte) []byte) Library {
		return Library{Name: "planted", Marshal: func(v any) ([]byte, error) {
			b, err := json.Marshal(v)
			return f(b), err
		}, Unmarshal: std.Unmarshal}
	}
	replaceFirst := func(old, new string) func([]byte) []byte {
		return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
	}
	tests := []struct {
		name string
		lib  Library
		op   string
		want string // fragment of the error; "" means the gate passes
	}{
		{"exact", std, OpMarshal, ""},
		{"through any", std, OpAny, ""},
		{"unmarshal", std, OpUnmarshal, ""},
		{"whitespace", wrap(func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(`,"`), []byte(`, "`)) }), OpMarshal, ""},
		{"html unescaped", wrap(func(b []byte) []byte {
			b = bytes.ReplaceAll(b, []byte(`\u003c`), []byte("<"))
			return bytes.ReplaceAll(b, []byte(`\u0026`), []byte("&"))
		}), OpMarshal, ""},
		{"keys reordered", wrap(func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"count":`))
			j := bytes.Index(b[i:], []byte(`,"active":`)) + i
			k := bytes.IndexByte(b[j+1:], ',') + j + 1
			// "count":N,"score":F,"active":B → "score":F,"active":B,"count":N
			return []byte(string(b[:i]) + string(b[bytes.IndexByte(b[i:], ',')+i+1:k]) + "," + string(b[i:bytes.IndexByte(b[i:], ',')+i]) + string(b[k:]))
		}), OpMarshal, ""},
		{"extra key", wrap(replaceFirst(`{"m1_id":`, `{"zz":0,"m1_id":`)), OpMarshal, "differs from encoding/json's after normalising at byte"},
		{"changed string", wrap(replaceFirst(`"m3_kind":"`, `"m3_kind":"X`)), OpMarshal, ".Items[0].M3.M3Kind: got "},
		{"float in exponent form", wrap(func(b []byte) []byte {
			// "weight":1949.88… → "weight":1.94988…e3: the same float, spelled otherwise.
			i := bytes.Index(b, []byte(`"weight":`)) + len(`"weight":`)
			j := i + bytes.IndexAny(b[i:], ",}")
			f, err := strconv.ParseFloat(string(b[i:j]), 64)
			if err != nil {
				panic(err)
			}
			return []byte(string(b[:i]) + strconv.FormatFloat(f, 'e', -1, 64) + string(b[j:]))
		}), OpMarshal, "differs from encoding/json's after normalising"},
		{"float with a trailing zero", wrap(func(b []byte) []byte {
			i := bytes.Index(b, []byte(`"weight":`)) + len(`"weight":`)
			j := i + bytes.IndexAny(b[i:], ",}")
			return []byte(string(b[:j]) + "0" + string(b[j:]))
		}), OpMarshal, "differs from encoding/json's after normalising"},
		{"dropped field", wrap(replaceFirst(`"active":true,`, ``)), OpMarshal, "Active: got false, want true"},
		{"broken json", wrap(func(b []byte) []byte { return b[:len(b)-1] }), OpMarshal, "does not decode"},
		{"marshal error", Library{Name: "err", Marshal: func(any) ([]byte, error) { return nil, fmt.Errorf("boom") }}, OpMarshal, "Marshal failed: boom"},
		{"unmarshal drops a value", Library{Name: "lossy", Unmarshal: func(data []byte, v any) error {
			if err := json.Unmarshal(data, v); err != nil {
				return err
			}
			v.(*L4).Items[1].Next.Wrap.Child.Score = 0
			return nil
		}}, OpUnmarshal, ".Items[1].Next.Wrap.Child.Score: got 0, want"},
		{"unknown op", std, "encode", "unknown op"},
		{"skipped library", Library{Name: "gone", Skip: "needs another GOARCH"}, OpMarshal, "cannot run in this build: needs another GOARCH"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := New(4, 2, 3)
			if err != nil {
				t.Fatal(err)
			}
			// Make sure the planted edits find their targets.
			doc.(*L4).Items[0].Next.Wrap.Child.Active = true
			doc.(*L4).Items[0].Next.Wrap.Child.Name = "a <b> & c"
			want, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			err = Gate(tt.lib, tt.op, doc, want)
			t.Logf("gate: %v", err)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("gate failed a correct encoder: %v", err)
			case tt.want != "" && err == nil:
				t.Errorf("gate passed a wrong encoder, want an error containing %q", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Errorf("gate error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestGateRejectsBadDocuments(t *testing.T) {
	std, _ := Lookup("encoding_json")
	var nilDoc *L3
	for _, doc := range []any{nil, L1{}, nilDoc, new(int)} {
		if err := Gate(std, OpMarshal, doc, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "non-nil pointer to a struct") {
			t.Errorf("Gate(%T) error = %v", doc, err)
		}
		if err := CheckMarshal([]byte(`{}`), doc, []byte(`{}`)); err == nil {
			t.Errorf("CheckMarshal(%T) accepted the document", doc)
		}
	}
	if _, ok := Lookup("fxamacker"); ok {
		t.Error("Lookup found a library that is not in the experiment")
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"b":1,"a":[true,null,"x"]}`, `{"a":[true,null,"x"],"b":1}`},
		{` { "a" : "\u003c\u0026\u003e" } `, `{"a":"<&>"}`},
		{`"\/\u2028\t"`, "\"/\u2028\\u0009\""},
		{`[1e3, 1000, 0.10, -0]`, `[1e3,1000,0.10,-0]`},
		{`{"k":2,"k":1}`, `{"k":2,"k":1}`},
		{`"caf\u00e9"`, `"café"`},
	}
	for _, tt := range tests {
		got, err := Normalize([]byte(tt.in))
		if err != nil {
			t.Errorf("Normalize(%s): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("Normalize(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1}x`, `[1,]`, `{1:2}`} {
		if got, err := Normalize([]byte(bad)); err == nil {
			t.Errorf("Normalize(%q) = %s, want an error", bad, got)
		}
	}
}

// FuzzNormalize: Normalize never panics, and what it accepts it turns
// into valid JSON that normalises to itself.
func FuzzNormalize(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "normalize", "*.json"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Normalize(data)
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Normalize(%q) = %q, not valid JSON", data, out)
		}
		again, err := Normalize(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("Normalize is not idempotent on %q: %q then %q (%v)", data, out, again, err)
		}
	})
}

func TestFirstDiff(t *testing.T) {
	type inner struct {
		X []int
		P *int
		M map[string]int
		F float64
	}
	one, two := 1, 2
	tests := []struct {
		name    string
		a, b    any
		wantSub string
	}{
		{"equal", inner{X: []int{1}, P: &one}, inner{X: []int{1}, P: &one}, ""},
		{"slice element", inner{X: []int{1, 2}}, inner{X: []int{1, 3}}, ".X[1]: got 2, want 3"},
		{"slice length", inner{X: []int{1}}, inner{X: []int{1, 3}}, ".X: got 1 elements, want 2"},
		{"nil slice", inner{X: nil}, inner{X: []int{}}, ".X: got nil, want non-nil"},
		{"pointer", inner{P: &one}, inner{P: &two}, ".P: got 1, want 2"},
		{"map", inner{M: map[string]int{"a": 1}}, inner{M: map[string]int{"a": 2}}, ".M[a]: got 1, want 2"},
		{"float", inner{F: 0.5}, inner{F: 0.25}, ".F: got 0.5, want 0.25"},
		{"types", 1, "1", "got a int, want a string"},
		{"top level", 1, 2, "the top level: got 1, want 2"},
	}
	for _, tt := range tests {
		got := FirstDiff(tt.a, tt.b)
		if (tt.wantSub == "") != (got == "") || !strings.Contains(got, tt.wantSub) {
			t.Errorf("%s: FirstDiff = %q, want %q", tt.name, got, tt.wantSub)
		}
	}
}

// TestFlatMarshaler: the reflection-free marshaler writes encoding/json's
// bytes for the flattened document of every depth and fan-out, and for
// strings and floats that need escaping or exponents; it refuses a type
// with a field it does not write.
func TestFlatMarshaler(t *testing.T) {
	for depth := 1; depth <= MaxDepth; depth++ {
		for fanout := 1; fanout <= MaxFanout; fanout++ {
			doc, err := New(depth, fanout, 3)
			if err != nil {
				t.Fatal(err)
			}
			flat, _, err := Flatten(doc)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewFlatMarshaler(flat)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Check(flat); err != nil {
				t.Errorf("depth %d fan-out %d: %v", depth, fanout, err)
			}
		}
	}
	n := int64(-7)
	odd := &struct {
		S  string   `json:"s"`
		F  float64  `json:"f"`
		G  float64  `json:"g"`
		P  *int64   `json:"p"`
		Q  *int64   `json:"q"`
		T  []string `json:"t"`
		U  []string `json:"u"`
		OK bool     `json:"ok"`
	}{S: "a\"b\\c\n\t<&>\x01\u2028é\xff", F: 1e-9, G: 1e21, P: &n, T: []string{"x", "<y>"}}
	m, err := NewFlatMarshaler(odd)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Check(odd); err != nil {
		t.Error(err)
	}
	if _, err := NewFlatMarshaler(&struct{ M map[string]int }{}); err == nil {
		t.Error("accepted a map field")
	}
}
