package builtin

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/perflab/perflab/driver/gotest"
)

func TestNamesAndSpecs(t *testing.T) {
	names := Names()
	if !slices.Contains(names, "poolreuse") {
		t.Fatalf("Names() = %q, want poolreuse among them", names)
	}
	for _, n := range names {
		s, err := Spec(n)
		if err != nil {
			t.Errorf("built-in %s: %v", n, err)
			continue
		}
		if s.Name != n {
			t.Errorf("experiments/%s/spec.toml names itself %q", n, s.Name)
		}
		if len(s.Claims) == 0 {
			t.Errorf("built-in %s states no claims", n)
		}
	}
	if _, err := Spec("nosuch"); err == nil {
		t.Error("Spec(nosuch) succeeded")
	}
}

func TestMaterializeIsIdempotent(t *testing.T) {
	cache := t.TempDir()
	a, err := Materialize(cache)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Materialize(cache)
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Errorf("second Materialize wrote elsewhere: %s vs %s", a, b)
	}
	for _, f := range []string{"go.mod", "go.sum", "benchmetrics/benchmetrics.go", "experiments/poolreuse/spec.toml"} {
		if _, err := os.Stat(filepath.Join(a, f)); err != nil {
			t.Errorf("materialised tree lacks %s: %v", f, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(cache, "src"))
	if len(entries) != 1 {
		t.Errorf("cache/src holds %d entries, want 1 (no temp dirs left)", len(entries))
	}
}

// TestBuiltinBuildsOutsideCheckout compiles an experiment from the
// materialised tree, as an installed perflab does.
func TestBuiltinBuildsOutsideCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles a test binary")
	}
	s, err := Load("poolreuse", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	bin, _, err := gotest.Compile(context.Background(), gotest.Build{Dir: s.Dir, Package: s.Package, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatalf("building the materialised poolreuse: %v", err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatal(err)
	}
}
