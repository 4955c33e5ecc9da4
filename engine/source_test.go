package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// writeSide writes a one-benchmark module whose benchmark reports the
// value held in its testdata/value.txt as "side/op".
func writeSide(t *testing.T, dir string, value int) {
	t.Helper()
	files := map[string]string{
		"go.mod": "module side\n\ngo 1.22\n",
		"side_test.go": `package side

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func BenchmarkSide(b *testing.B) {
	data, err := os.ReadFile("testdata/value.txt")
	if err != nil {
		b.Fatal(err)
	}
	v, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	for range b.N {
	}
	b.ReportMetric(float64(v), "side/op")
}
`,
		"testdata/value.txt": fmt.Sprintln(value),
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSources runs two configs with equal build settings whose sources
// live in different directories: each must get its own binary, run in its
// own directory, and report its own value.
func TestSources(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	oldDir, newDir := t.TempDir(), t.TempDir()
	writeSide(t, oldDir, 1)
	writeSide(t, newDir, 2)
	text := "name = \"ab\"\ndriver = \"gotest\"\nbenchmarks = [\"BenchmarkSide\"]\n" +
		"[mode.quick]\nrounds = 6\nbenchtime = \"1x\"\n[mode.full]\nrounds = 6\n" +
		"[[config]]\nname = \"old\"\n[[config]]\nname = \"new\"\n"
	s, err := spec.Parse(filepath.Join(oldDir, "perflab-ab.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	db := openStore(t)
	var progress strings.Builder
	cells := []plan.Cell{{Bench: "BenchmarkSide", Config: "old"}, {Bench: "BenchmarkSide", Config: "new"}}
	res, err := Run(context.Background(), Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, Rounds: 2, NoProfile: true, NoiseRuns: 2, Progress: &progress, Cells: cells,
		Sources: map[string]string{"old": oldDir, "new": newDir},
	})
	if err != nil || res.Status != "complete" {
		t.Fatalf("Run = %+v, %v\n%s", res, err, progress.String())
	}
	if n := strings.Count(progress.String(), "test binary built"); n != 2 {
		t.Errorf("built %d binaries, want 2 (one per source)\n%s", n, progress.String())
	}
	results, err := db.Results(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"old": 1, "new": 2}
	seen := map[string]int{}
	for _, r := range results {
		cfg := r.GetConfig("config")
		v, ok := r.Value("side/op")
		if !ok || v != want[cfg] {
			t.Errorf("config %s reported side/op = %v (present %v), want %v", cfg, v, ok, want[cfg])
		}
		seen[cfg]++
	}
	if seen["old"] != 2 || seen["new"] != 2 {
		t.Errorf("results per config = %v, want 2 each", seen)
	}
	run, err := db.GetRun(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if run.Plan.Sources["new"] != newDir {
		t.Errorf("stored plan %+v lacks the sources, so a resume would build the wrong code", run.Plan)
	}
}
