package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateDeterministic: the same arguments give the same bytes.
func TestGenerateDeterministic(t *testing.T) {
	for _, depth := range []int{1, 4, 12} {
		a, err := Generate("p", depth)
		if err != nil {
			t.Fatal(err)
		}
		b, err := Generate("p", depth)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("depth %d: two runs wrote different sources", depth)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "gen.go", a, 0); err != nil {
			t.Errorf("depth %d: the output does not parse: %v", depth, err)
		}
	}
}

// TestCheckedIn: the checked-in types_gen.go is what the generator writes
// now; if not, run go generate in experiments/jsondepth.
func TestCheckedIn(t *testing.T) {
	want, err := Generate("jsondepth", 12)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "types_gen.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("types_gen.go is stale: run go generate in experiments/jsondepth")
	}
}

func TestGenerateShape(t *testing.T) {
	src, err := Generate("p", 4)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"type L1 struct", "\tM1\n", "Score  float64", "Active bool",
		"type L2 struct", "Wrap struct", "Child  L1",
		"type L3 struct", "Next *L2",
		"type L4 struct", "Items []L3", "v.Items = make([]L3, fanout)",
		"const MaxDepth = 4", "func Zero(depth int) any", "func Boxed(doc any) func() any",
	} {
		if !strings.Contains(string(src), want) {
			t.Errorf("generated source lacks %q", want)
		}
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, tt := range []struct {
		pkg   string
		depth int
		want  string
	}{
		{"p", 0, "depth 0 out of range"},
		{"p", MaxDepth + 1, "out of range"},
		{"", 3, "empty package name"},
		{"not a name", 3, "formatting the generated source"},
	} {
		_, err := Generate(tt.pkg, tt.depth)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Generate(%q, %d) error = %v, want %q", tt.pkg, tt.depth, err, tt.want)
		}
	}
}
