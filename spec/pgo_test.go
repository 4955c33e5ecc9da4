package spec

import (
	"slices"
	"strings"
	"testing"
)

func TestPGO(t *testing.T) {
	const head = "name = \"p\"\ndriver = \"gotest\"\nbenchmarks = [\"BenchmarkX\"]\n[mode.quick]\nrounds = 6\n[mode.full]\nrounds = 6\n"
	tests := []struct {
		pgo     string
		flag    string // wanted in BuildFlags; "" for none
		errLine string // wanted error fragment; "" for valid
	}{
		{"", "", ""},
		{"off", "-pgo=off", ""},
		{"auto", "-pgo=auto", ""},
		{"profiles/cpu.pprof", "-pgo=profiles/cpu.pprof", ""},
		{"/abs/cpu.pprof", "-pgo=/abs/cpu.pprof", ""},
		{"a b.pprof", "", `pgo "a b.pprof" must be "off", "auto" or the path of a CPU profile`},
		{"-x", "", `pgo "-x" must be`},
	}
	for _, tt := range tests {
		t.Run(tt.pgo, func(t *testing.T) {
			text := head + "[[config]]\nname = \"c\"\n"
			if tt.pgo != "" {
				text += "pgo = \"" + tt.pgo + "\"\n"
			}
			s, err := Parse("p.toml", []byte(text))
			if tt.errLine != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errLine) || !strings.HasPrefix(err.Error(), "p.toml:10: ") {
					t.Fatalf("Parse error = %v, want p.toml:10: …%s", err, tt.errLine)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			c := s.Configs[0]
			if tt.flag == "" {
				if f := c.BuildFlags(); len(f) != 0 {
					t.Errorf("build flags = %q, want none", f)
				}
				return
			}
			if !slices.Contains(c.BuildFlags(), tt.flag) || !strings.Contains(c.BuildKey(), tt.flag) {
				t.Errorf("build flags %q, key %q; want %s in both", c.BuildFlags(), c.BuildKey(), tt.flag)
			}
		})
	}
}
