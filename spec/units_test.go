package spec

import (
	"strings"
	"testing"
)

func TestUnits(t *testing.T) {
	base := "name = \"x\"\ndriver = \"gotest\"\nbenchmarks = [\"BenchmarkX\"]\n[mode.quick]\nrounds = 6\n[mode.full]\nrounds = 6\n"
	tests := []struct {
		name, text, err string
		want            []Unit
	}{
		{"higher", "[[unit]]\nname = \"hits/op\"\nbetter = \"higher\"\n", "", []Unit{{"hits/op", "higher"}}},
		{"bad direction", "[[unit]]\nname = \"hits/op\"\nbetter = \"sideways\"\n", `spec.toml:8: unit "hits/op": better = "sideways"`, nil},
		{"twice", "[[unit]]\nname = \"a\"\nbetter = \"lower\"\n[[unit]]\nname = \"a\"\nbetter = \"higher\"\n", `unit "a" is declared twice`, nil},
		{"no name", "[[unit]]\nbetter = \"lower\"\n", "needs name", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse("spec.toml", []byte(base+tt.text))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Units) != len(tt.want) || s.Units[0] != tt.want[0] {
				t.Errorf("units %+v, want %+v", s.Units, tt.want)
			}
		})
	}
}
