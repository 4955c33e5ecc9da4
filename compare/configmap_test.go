package compare

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// results makes six samples of each name under one config.
func results(config string, base float64, names ...string) []*benchfmt.Result {
	var out []*benchfmt.Result
	for i := 0; i < 6; i++ {
		for j, n := range names {
			r := &benchfmt.Result{Name: benchfmt.Name(n), Iters: 1000,
				Values: []benchfmt.Value{{Value: base * float64(j+1) * (1 + 0.001*float64(i)), Unit: "sec/op"}}}
			if config != "" {
				r.SetConfig("config", config)
			}
			out = append(out, r)
		}
	}
	return out
}

func TestConfigMap(t *testing.T) {
	many := make([]string, 40)
	for i := range many {
		many[i] = fmt.Sprintf("Hash/size=%d", i)
	}
	tests := []struct {
		name      string
		old, new  []*benchfmt.Result
		m         []string
		rows      int
		want, not []string
	}{
		{
			name: "one config each side: paired automatically",
			old:  results("default", 1e-6, many...), new: results("go126", 1e-6, many...),
			rows: 40, want: []string{"configs compared: default (old) with go126 (new)", "@default→go126"},
			not: []string{"in one side only"},
		},
		{
			name: "explicit map among several configs",
			old:  append(results("default", 1e-6, "A", "B"), results("gogc", 1e-6, "A", "B")...),
			new:  append(results("go126", 1e-6, "A", "B"), results("gogc", 1e-6, "A", "B")...),
			m:    []string{"default=go126"}, rows: 4, want: []string{"configs compared: default (old) with go126 (new)"},
		},
		{
			name: "several configs, none common, no map: a short table and the hint",
			old:  append(results("default", 1e-6, many...), results("gogc", 1e-6, many...)...),
			new:  append(results("go126", 1e-6, many...), results("nogc", 1e-6, many...)...),
			rows: 0,
			want: []string{"in one side only", "old   default  40", "new   go126    40", "pair them with --map default=go126"},
			not:  []string{"Hash/size=39"}, // examples only, never every name
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ParseConfigMap(tt.m)
			if err != nil {
				t.Fatal(err)
			}
			res := Compare(tt.old, tt.new, Options{ConfigMap: m})
			if len(res.Rows) != tt.rows {
				t.Errorf("%d rows, want %d", len(res.Rows), tt.rows)
			}
			var out bytes.Buffer
			if err := res.WriteText(&out, nil); err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.not {
				if strings.Contains(out.String(), w) {
					t.Errorf("output has %q:\n%s", w, out.String())
				}
			}
		})
	}
}

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
