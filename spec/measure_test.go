package spec

import (
	"strings"
	"testing"
)

func TestParseMeasure(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Measure
		err  bool
	}{
		{"", Measure{}, false},
		{"time", Measure{}, false},
		{"instructions", Measure{Instructions: true}, false},
		{"time,instructions", Measure{Instructions: true}, false},
		{"instructions,cache", Measure{Instructions: true, CacheSim: true}, false},
		{"cycles", Measure{}, true},
	} {
		got, err := ParseMeasure(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseMeasure(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil {
			if back, _ := ParseMeasure(got.String()); back != got {
				t.Errorf("%q: String %q does not read back", tc.in, got.String())
			}
		}
	}
}

func TestModeMeasureField(t *testing.T) {
	const base = "name = \"m\"\ndriver = \"gotest\"\nbenchmarks = [\"BenchmarkX\"]\n[mode.quick]\nrounds = 6\n%s\n[mode.full]\nrounds = 6\n"
	s, err := Parse("m.toml", []byte(strings.Replace(base, "%s", `measure = "instructions"`, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := s.Mode("quick"); m.Measure != "instructions" {
		t.Errorf("quick mode measure = %q", m.Measure)
	}
	_, err = Parse("m.toml", []byte(strings.Replace(base, "%s", `measure = "cycles"`, 1)))
	if err == nil || !strings.Contains(err.Error(), "m.toml:6") || !strings.Contains(err.Error(), "instructions") {
		t.Errorf("a bad measure: %v, want an error at line 6 naming what can be measured", err)
	}
}
