package benchname

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		full    string
		base    string
		procs   int
		parts   []Part
		without string // Without("reuse")
	}{
		{"BenchmarkA", "BenchmarkA", 1, nil, "BenchmarkA"},
		{"BenchmarkA-8", "BenchmarkA", 8, nil, "BenchmarkA-8"},
		{"BenchmarkPool/size=64/reuse=25-2", "BenchmarkPool", 2, []Part{{"size", "64"}, {"reuse", "25"}}, "BenchmarkPool/size=64-2"},
		{"BenchmarkPool/reuse=25/plain", "BenchmarkPool", 1, []Part{{"reuse", "25"}, {"", "plain"}}, "BenchmarkPool/plain"},
		{"BenchmarkX/n=-3", "BenchmarkX", 1, []Part{{"n", "-3"}}, "BenchmarkX/n=-3"},
		{"BenchmarkX/n=-3-4", "BenchmarkX", 4, []Part{{"n", "-3"}}, "BenchmarkX/n=-3-4"},
		{"BenchmarkX/a=b=c", "BenchmarkX", 1, []Part{{"a", "b=c"}}, "BenchmarkX/a=b=c"},
		{"", "", 1, nil, ""},
	}
	for _, tt := range tests {
		n := Parse(tt.full)
		if n.Base != tt.base || n.Procs != tt.procs || !slices.Equal(n.Parts, tt.parts) {
			t.Errorf("Parse(%q) = %+v", tt.full, n)
		}
		if got := n.Without("reuse"); got != tt.without {
			t.Errorf("Parse(%q).Without(reuse) = %q, want %q", tt.full, got, tt.without)
		}
	}
}

// TestCell: a name without its GOMAXPROCS suffix; a negative level value
// is not a suffix.
func TestCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"BenchmarkHash/impl=old/size=4096-2", "BenchmarkHash/impl=old/size=4096"},
		{"BenchmarkHash/impl=old/size=4096", "BenchmarkHash/impl=old/size=4096"},
		{"BenchmarkX/n=-3", "BenchmarkX/n=-3"},
		{"BenchmarkX/-3", "BenchmarkX/-3"},
		{"BenchmarkX-16", "BenchmarkX"},
		{"BenchmarkX-", "BenchmarkX-"},
		{"BenchmarkX/v=a-b", "BenchmarkX/v=a-b"},
	}
	for _, tt := range tests {
		if got := Parse(tt.in).Cell(); got != tt.want {
			t.Errorf("Parse(%q).Cell() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNameValue(t *testing.T) {
	n := Parse("BenchmarkPool/size=64/reuse=25-2")
	for key, want := range map[string]string{"bench": "BenchmarkPool", "procs": "2", "size": "64", "reuse": "25"} {
		if got, ok := n.Value(key); !ok || got != want {
			t.Errorf("Value(%q) = %q, %v; want %q", key, got, ok, want)
		}
	}
	if _, ok := n.Value("variant"); ok {
		t.Error("Value(variant) found a key the name does not have")
	}
}

func TestCompare(t *testing.T) {
	names := []string{
		"BenchmarkPool/size=8192/variant=plain",
		"BenchmarkPool/size=64/variant=plain-2",
		"BenchmarkPool/size=1024/variant=plain",
		"BenchmarkPool/size=64/variant=plain",
		"BenchmarkPool/size=64/variant=freelist",
	}
	want := []string{
		"BenchmarkPool/size=64/variant=freelist",
		"BenchmarkPool/size=64/variant=plain",
		"BenchmarkPool/size=64/variant=plain-2",
		"BenchmarkPool/size=1024/variant=plain",
		"BenchmarkPool/size=8192/variant=plain",
	}
	slices.SortFunc(names, Compare)
	if !slices.Equal(names, want) {
		t.Errorf("sorted:\n%q\nwant\n%q", names, want)
	}
}

func TestOrder(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"1024", "64", "-3", "-10", "1e3", "0.5"}, []string{"-10", "-3", "0.5", "64", "1e3", "1024"}},
		{[]string{"size=1024", "size=64", "plain"}, []string{"plain", "size=64", "size=1024"}},
		{[]string{"v2", "v10", "v1"}, []string{"v1", "v2", "v10"}},
		{nil, nil},
	}
	for _, tt := range tests {
		in := slices.Clone(tt.in)
		if got := Order(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("Order(%v) = %v, want %v", tt.in, got, tt.want)
		}
		if !slices.Equal(in, tt.in) {
			t.Errorf("Order changed its input")
		}
	}
}
