package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/driver/cachegrind"
	"github.com/perflab/perflab/store"
)

// funcSide writes a functions artifact with six rounds of one cell.
func funcSide(t *testing.T, checksum float64) *side {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sum.jsonl")
	var b bytes.Buffer
	for r := 1; r <= 6; r++ {
		line, _ := json.Marshal(cachegrind.FuncRecord{Round: r, Name: "BenchmarkSum/n=256", N: 1000,
			Funcs: map[string]float64{"planted.checksum": checksum, "planted.BenchmarkSum.func1": 11, "runtime.sysmon": 0.01 * float64(r)}})
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return &side{artifacts: []store.Artifact{{Config: "default", Cell: "BenchmarkSum/n=256", Kind: cachegrind.ArtifactKind, Path: path}}}
}

func TestWriteFuncChanges(t *testing.T) {
	var out bytes.Buffer
	if err := writeFuncChanges(&out, funcSide(t, 1030), funcSide(t, 1542)); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{"functions whose instructions/op changed most", "BenchmarkSum/n=256 @default: 1041.04 → 1553.04 instructions/op (+49.18%)", "planted.checksum", "100%"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	out.Reset()
	if err := writeFuncChanges(&out, funcSide(t, 1030), funcSide(t, 1030)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "no cell's instructions/op changed") {
		t.Errorf("an unchanged cell: %q", out.String())
	}
	out.Reset()
	if err := writeFuncChanges(&out, &side{}, funcSide(t, 1030)); err != nil || out.Len() != 0 {
		t.Errorf("a side without counts (a file) printed %q, %v", out.String(), err)
	}
}
