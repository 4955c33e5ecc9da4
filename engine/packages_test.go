package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/spec"
)

// TestPackages runs cells of two packages whose benchmarks share a name:
// each package gets its own binary, run in its own directory (its
// testdata/), every result carries its cell's package, and the stored
// plan keeps the packages for a resume.
func TestPackages(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs test binaries")
	}
	dir := t.TempDir()
	writeSide(t, filepath.Join(dir, "a"), 1)
	writeSide(t, filepath.Join(dir, "b"), 2)
	for _, p := range []string{"a", "b"} {
		if err := os.Remove(filepath.Join(dir, p, "go.mod")); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module side\n\ngo 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	text := "name = \"pkgs\"\ndriver = \"gotest\"\nbenchmarks = [\"BenchmarkSide\"]\n" +
		"[mode.quick]\nrounds = 6\nbenchtime = \"1x\"\n[mode.full]\nrounds = 6\n" +
		"[[config]]\nname = \"old\"\n[[config]]\nname = \"new\"\ngogc = \"200\"\n"
	s, err := spec.Parse(filepath.Join(dir, "perflab-ab.toml"), []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var cells []plan.Cell
	for _, pkg := range []string{"./a", "./b"} {
		for _, c := range []string{"old", "new"} {
			cells = append(cells, plan.Cell{Bench: "BenchmarkSide", Config: c, Package: pkg})
		}
	}
	db := openStore(t)
	var progress strings.Builder
	res, err := Run(context.Background(), Options{
		Spec: s, Mode: "quick", DB: db, ArtifactDir: t.TempDir(), CacheDir: t.TempDir(),
		Seed: 1, Rounds: 2, NoProfile: true, NoiseRuns: 2, Progress: &progress, Cells: cells,
	})
	if err != nil || res.Status != "complete" {
		t.Fatalf("Run = %+v, %v\n%s", res, err, progress.String())
	}
	// old and new share their build settings (GOGC is set when the binary
	// runs), so each package's binary is built once and serves both.
	if n := strings.Count(progress.String(), "test binary built"); n != 2 {
		t.Errorf("built %d binaries, want 2 (one per package)\n%s", n, progress.String())
	}
	results, err := db.Results(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"./a": 1, "./b": 2}
	seen := map[string]int{}
	for _, r := range results {
		pkg := r.GetConfig("package")
		v, ok := r.Value("side/op")
		if !ok || v != want[pkg] {
			t.Errorf("package %q (config %s) reported side/op = %v (present %v), want %v", pkg, r.GetConfig("config"), v, ok, want[pkg])
		}
		seen[pkg+" "+r.GetConfig("config")]++
	}
	for _, k := range []string{"./a old", "./a new", "./b old", "./b new"} {
		if seen[k] != 2 {
			t.Errorf("results of %s = %d, want one a round (2): %v", k, seen[k], seen)
		}
	}
	run, err := db.GetRun(context.Background(), res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Plan.Cells) != 4 || run.Plan.Cells[0].Package != "./a" || run.Plan.Cells[3].Package != "./b" {
		t.Errorf("stored plan cells %+v lack their packages, so a resume would run the wrong binaries", run.Plan.Cells)
	}
}
