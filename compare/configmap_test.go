package compare

import (
	"fmt"
	"testing"
)

func TestParseConfigMap(t *testing.T) {
	tests := []struct {
		in   []string
		want string
		err  bool
	}{
		{[]string{"default=go126"}, "map[default:go126]", false},
		{[]string{"a=b,c=d"}, "map[a:b c:d]", false},
		{[]string{"a=b", "a=c"}, "", true},
		{[]string{"a"}, "", true},
		{[]string{"=b"}, "", true},
	}
	for _, tt := range tests {
		got, err := ParseConfigMap(tt.in)
		if (err != nil) != tt.err || !tt.err && fmt.Sprint(got) != tt.want {
			t.Errorf("ParseConfigMap(%q) = %v, %v", tt.in, got, err)
		}
	}
}

func FuzzParseConfigMap(f *testing.F) {
	f.Add("default=go126")
	f.Add("a=b,,c")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseConfigMap([]string{s})
		if err == nil {
			for o, n := range m {
				if o == "" || n == "" {
					t.Errorf("ParseConfigMap(%q) accepted an empty name: %v", s, m)
				}
			}
		}
	})
}
